#pragma once
// Host-side IEEE 754 binary16 values: stored as their 16 bits, computed on as
// float (each operation converts to float, computes, and rounds back to half,
// to nearest with ties to even, as the device's conversions do).
#include <stdint.h>

namespace poplar {

class IeeeHalf {
public:
  // Uninitialised, like a built-in arithmetic type.
  IeeeHalf() = default;
  // `value` rounded to the nearest half (ties to even); beyond the largest half, infinity.
  IeeeHalf(float value);
  static IeeeHalf fromBits(uint16_t bitPattern);

  operator float() const;
  uint16_t bit16() const { return ihalf; }

  IeeeHalf &operator+=(float other);
  IeeeHalf &operator-=(float other);
  IeeeHalf &operator*=(float other);
  IeeeHalf &operator/=(float other);

  bool operator<(float other) const;
  bool operator>(float other) const;
  bool operator<=(float other) const;
  bool operator>=(float other) const;
  // By value, as IEEE compares: NaN equals nothing, +0 equals -0.
  bool operator==(IeeeHalf other) const;
  bool operator!=(IeeeHalf other) const;
  // Without these, `half == 1.0f` would be ambiguous (convert either side).
  bool operator==(float other) const;
  bool operator!=(float other) const;

  IeeeHalf operator-() const;
  IeeeHalf operator+(float other);
  IeeeHalf operator-(float other);
  IeeeHalf operator*(float other);
  IeeeHalf operator/(float other);

  // Quiet NaN (the top mantissa bit set), signalling NaN, either, infinity,
  // normal (neither zero, subnormal, infinite nor NaN), zero.
  bool isqNaN() const;
  bool issNaN() const;
  bool isNaN() const;
  bool isInf() const;
  bool isNorm() const;
  bool isZero() const;

private:
  uint16_t ihalf;
};

// The host half type by the name the SDK's conversions are used with (ArrayRef<Half>).
using Half = IeeeHalf;

} // namespace poplar
