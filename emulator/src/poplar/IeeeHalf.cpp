#include <poplar/IeeeHalf.hpp>

#include "TypeInfo.hpp"

namespace poplar {

namespace {

constexpr uint16_t kExponentMask = 0x7c00, kMantissaMask = 0x03ff, kQuietBit = 0x0200;

} // namespace

IeeeHalf::IeeeHalf(float value) : ihalf(detail::floatToHalf(value)) {}

IeeeHalf IeeeHalf::fromBits(uint16_t bitPattern) {
  IeeeHalf h;
  h.ihalf = bitPattern;
  return h;
}

IeeeHalf::operator float() const { return detail::halfToFloat(ihalf); }

IeeeHalf &IeeeHalf::operator+=(float other) { return *this = IeeeHalf(float(*this) + other); }
IeeeHalf &IeeeHalf::operator-=(float other) { return *this = IeeeHalf(float(*this) - other); }
IeeeHalf &IeeeHalf::operator*=(float other) { return *this = IeeeHalf(float(*this) * other); }
IeeeHalf &IeeeHalf::operator/=(float other) { return *this = IeeeHalf(float(*this) / other); }

bool IeeeHalf::operator<(float other) const { return float(*this) < other; }
bool IeeeHalf::operator>(float other) const { return float(*this) > other; }
bool IeeeHalf::operator<=(float other) const { return float(*this) <= other; }
bool IeeeHalf::operator>=(float other) const { return float(*this) >= other; }
bool IeeeHalf::operator==(IeeeHalf other) const { return float(*this) == float(other); }
bool IeeeHalf::operator!=(IeeeHalf other) const { return !(*this == other); }
bool IeeeHalf::operator==(float other) const { return float(*this) == other; }
bool IeeeHalf::operator!=(float other) const { return !(*this == other); }

IeeeHalf IeeeHalf::operator-() const { return fromBits(uint16_t(ihalf ^ 0x8000)); }
IeeeHalf IeeeHalf::operator+(float other) { return IeeeHalf(float(*this) + other); }
IeeeHalf IeeeHalf::operator-(float other) { return IeeeHalf(float(*this) - other); }
IeeeHalf IeeeHalf::operator*(float other) { return IeeeHalf(float(*this) * other); }
IeeeHalf IeeeHalf::operator/(float other) { return IeeeHalf(float(*this) / other); }

bool IeeeHalf::isNaN() const { return (ihalf & kExponentMask) == kExponentMask && (ihalf & kMantissaMask); }
bool IeeeHalf::isqNaN() const { return isNaN() && (ihalf & kQuietBit); }
bool IeeeHalf::issNaN() const { return isNaN() && !(ihalf & kQuietBit); }
bool IeeeHalf::isInf() const { return (ihalf & kExponentMask) == kExponentMask && !(ihalf & kMantissaMask); }
bool IeeeHalf::isNorm() const {
  const uint16_t exponent = ihalf & kExponentMask;
  return exponent != 0 && exponent != kExponentMask;
}
bool IeeeHalf::isZero() const { return (ihalf & 0x7fff) == 0; }

} // namespace poplar
