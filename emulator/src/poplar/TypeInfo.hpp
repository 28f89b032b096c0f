#pragma once
// Per-type facts and host conversions of device element values.
#include <cstdint>
#include <cstring>

#include <poplar/Type.hpp>

namespace poplar::detail {

enum class TypeKind { Invalid, Bool, Signed, Unsigned, Float, Half, Quarter };

struct TypeInfo {
  const char *name;
  unsigned size; // bytes on the device
  TypeKind kind;
  bool supportedOnDevice;
};

const TypeInfo &typeInfo(const Type &t);
inline unsigned typeSize(const Type &t) { return typeInfo(t).size; }

std::uint16_t floatToHalf(float f);
// Rounded once, to nearest with ties to even, as floatToHalf does for floats.
std::uint16_t doubleToHalf(double d);
float halfToFloat(std::uint16_t h);

// Loads one element as long double (exact for every integer type up to 64 bits).
long double loadElement(const Type &t, const void *p);
// Stores a value with C++ conversion rules (truncation for integers, rounding to
// nearest even for half).
void storeElement(const Type &t, void *p, long double v);

} // namespace poplar::detail
