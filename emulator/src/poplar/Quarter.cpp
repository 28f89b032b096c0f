#include <poplar/Quarter.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "QuarterFormat.hpp"

namespace poplar {

QuarterMetadata::QuarterMetadata() : format_(Format::F143), scale_(0) {}

QuarterMetadata::QuarterMetadata(Format format, std::int8_t scale) : format_(format), scale_(scale) {
  if (format != Format::F143 && format != Format::F152)
    throw poplar_error("QuarterMetadata: format " + std::to_string(static_cast<int>(format)) +
                       " is neither F143 nor F152");
  if (scale < -32 || scale > 31)
    throw poplar_error("QuarterMetadata: scale " + std::to_string(scale) + " is outside [-32, 31]");
}

// Bits 0-5 as a 6-bit two's complement number.
QuarterMetadata::QuarterMetadata(std::uint8_t binary)
    : format_(binary & 0x80 ? Format::F152 : Format::F143),
      scale_(static_cast<std::int8_t>((binary & 0x3f) >= 32 ? (binary & 0x3f) - 64 : (binary & 0x3f))) {}

std::string QuarterMetadata::toString() const {
  return std::string(format_ == Format::F143 ? "F143" : "F152") + " scale " + std::to_string(scale_);
}

namespace detail {

namespace {

struct Layout {
  int mantissaBits;
  int bias;
};

Layout layoutOf(QuarterMetadata::Format format) {
  return format == QuarterMetadata::Format::F143 ? Layout{3, 8} : Layout{2, 16};
}

const std::uint8_t kQuarterNaN = 0x80;

} // namespace

double quarterToDouble(std::uint8_t code, const QuarterMetadata &metadata) {
  if (code == kQuarterNaN) return std::numeric_limits<double>::quiet_NaN();
  const Layout layout = layoutOf(metadata.getFormat());
  const int magnitude = code & 0x7f;
  const int exponent = magnitude >> layout.mantissaBits;
  const int mantissa = magnitude & ((1 << layout.mantissaBits) - 1);
  // Exponent 0 holds the subnormals: no leading one, the exponent of code 1.
  const double value = exponent == 0
      ? std::ldexp(mantissa, 1 - layout.bias - layout.mantissaBits)
      : std::ldexp(mantissa + (1 << layout.mantissaBits), exponent - layout.bias - layout.mantissaBits);
  return std::ldexp(code & 0x80 ? -value : value, metadata.getScale());
}

std::uint8_t doubleToQuarter(double value, const QuarterMetadata &metadata, bool nanOnOverflow) {
  if (!std::isfinite(value)) return kQuarterNaN;
  const Layout layout = layoutOf(metadata.getFormat());
  const double magnitude = std::fabs(std::ldexp(value, -metadata.getScale()));
  const std::uint8_t largest = value < 0 ? 0xff : 0x7f;
  // Unscaling can take the largest doubles past the largest double.
  if (std::isinf(magnitude)) return nanOnOverflow ? kQuarterNaN : largest;
  // The step between neighbours at this magnitude; subnormals share the smallest normal's.
  int exponent;
  std::frexp(magnitude, &exponent);
  const int stepExponent = std::max(exponent - 1, 1 - layout.bias) - layout.mantissaBits;
  // In units of the step, the code's mantissa (with its leading one) is exact and small,
  // so nearbyint rounds to nearest with ties to even; a carry into the next exponent is
  // the next code, as codes count up through exponents.
  const double steps = std::nearbyint(std::ldexp(magnitude, -stepExponent));
  const long long leading = 1LL << layout.mantissaBits;
  const long long code = steps < leading ? static_cast<long long>(steps)
                         : ((stepExponent + layout.mantissaBits + layout.bias) << layout.mantissaBits) +
                               static_cast<long long>(steps) - leading;
  if (code > 0x7f) return nanOnOverflow ? kQuarterNaN : largest;
  // No negative zero: its code is NaN.
  return static_cast<std::uint8_t>(value < 0 && code != 0 ? code | 0x80 : code);
}

std::uint8_t metadataByte(const QuarterMetadata &metadata) {
  const unsigned format = metadata.getFormat() == QuarterMetadata::Format::F152 ? 0x80u : 0u;
  return static_cast<std::uint8_t>(format | (static_cast<unsigned>(metadata.getScale()) & 0x3fu));
}

} // namespace detail

} // namespace poplar
