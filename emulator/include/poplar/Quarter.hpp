#pragma once
// Host-side facts of quarter (fp8) elements: their format and scale.
#include <cstdint>
#include <ostream>
#include <string>

namespace poplar {

// A quarter tensor's elements are values of its format times 2^scale. Both formats
// use every code for a number but 0x80 (negative zero), which is NaN; neither has
// infinities.
class QuarterMetadata {
public:
  // F143: a sign, 4 exponent bits (bias 8) and 3 mantissa bits, magnitudes 2^-10 to 240;
  // F152: a sign, 5 exponent bits (bias 16) and 2 mantissa bits, 2^-17 to 57344.
  enum class Format { F143, F152 };

  // F143, scale 0.
  QuarterMetadata();
  // Throws poplar_error unless scale is in [-32, 31] (the device keeps 6 bits).
  QuarterMetadata(Format format, std::int8_t scale);
  // From the byte a QUARTER_METADATA element holds: the format in bit 7 (F152 when set),
  // the scale in bits 0-5 (two's complement).
  explicit QuarterMetadata(std::uint8_t binary);

  Format getFormat() const { return format_; }
  std::int8_t getScale() const { return scale_; }
  // "F143 scale -3".
  std::string toString() const;

  friend bool operator==(const QuarterMetadata &a, const QuarterMetadata &b) {
    return a.format_ == b.format_ && a.scale_ == b.scale_;
  }
  friend bool operator!=(const QuarterMetadata &a, const QuarterMetadata &b) { return !(a == b); }
  friend std::ostream &operator<<(std::ostream &os, const QuarterMetadata &m) { return os << m.toString(); }

private:
  Format format_;
  std::int8_t scale_;
};

} // namespace poplar
