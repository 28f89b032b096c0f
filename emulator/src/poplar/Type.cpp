#include <poplar/Internals.hpp>
#include <poplar/Type.hpp>
#include <poplar/exceptions.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "TypeInfo.hpp"

namespace poplar {
namespace detail {
namespace {
enum Id : unsigned {
  INVALID_ID, BOOL_ID, CHAR_ID, UCHAR_ID, SCHAR_ID, SHORT_ID, USHORT_ID, INT_ID, UINT_ID,
  LONG_ID, ULONG_ID, LONGLONG_ID, ULONGLONG_ID, QUARTER_ID, QUARTER_METADATA_ID, HALF_ID,
  FLOAT_ID, DOUBLE_ID, NUM_IDS
};
const TypeInfo kTypes[NUM_IDS] = {
    {"undefined", 0, TypeKind::Invalid, false},
    {"bool", 1, TypeKind::Bool, true},
    {"char", 1, TypeKind::Signed, true},
    {"unsigned char", 1, TypeKind::Unsigned, true},
    {"signed char", 1, TypeKind::Signed, true},
    {"short", 2, TypeKind::Signed, true},
    {"unsigned short", 2, TypeKind::Unsigned, true},
    {"int", 4, TypeKind::Signed, true},
    {"unsigned int", 4, TypeKind::Unsigned, true},
    {"long", 8, TypeKind::Signed, false},
    {"unsigned long", 8, TypeKind::Unsigned, false},
    {"long long", 8, TypeKind::Signed, true},
    {"unsigned long long", 8, TypeKind::Unsigned, true},
    {"quarter", 1, TypeKind::Quarter, true},
    {"quarter_metadata", 1, TypeKind::Unsigned, true},
    {"half", 2, TypeKind::Half, true},
    {"float", 4, TypeKind::Float, true},
    {"double", 8, TypeKind::Float, false},
};
} // namespace

const TypeInfo &typeInfo(const Type &t) { return kTypes[typeId(t) < NUM_IDS ? typeId(t) : 0]; }

std::uint16_t floatToHalf(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // inf or nan; keep nan quiet and non-zero
    return static_cast<std::uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  if (absx >= 0x477ff000u) // rounds to >= 65520: overflow to inf
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (absx < 0x38800000u) { // below the smallest normal half: subnormal or zero
    if (absx < 0x33000000u) return static_cast<std::uint16_t>(sign); // < half of min subnormal
    const std::uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(absx >> 23); // 14..24 extra bits to drop
    const std::uint32_t kept = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    const std::uint32_t rounded = kept + (rem > halfway || (rem == halfway && (kept & 1u)));
    return static_cast<std::uint16_t>(sign | rounded);
  }
  const std::uint32_t rebased = absx - 0x38000000u; // exponent bias 127 -> 15
  const std::uint32_t kept = rebased >> 13;
  const std::uint32_t rem = rebased & 0x1fffu;
  const std::uint32_t rounded = kept + (rem > 0x1000u || (rem == 0x1000u && (kept & 1u)));
  return static_cast<std::uint16_t>(sign | rounded);
}

std::uint16_t doubleToHalf(double d) {
  float f = static_cast<float>(d);
  // Rounding twice (to float, then to half) can turn a value just off a half-way
  // point into a tie. Rounding to float towards zero and setting the lowest bit when
  // inexact ("round to odd") keeps that information: float's 24 bits are more than
  // half's 11 plus 2, so the rounding to half is then as if from d.
  if (std::isfinite(f) && static_cast<double>(f) != d) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) --bits; // the neighbour towards zero
    bits |= 1u;
    std::memcpy(&f, &bits, 4);
  }
  return floatToHalf(f);
}

float halfToFloat(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else { // subnormal: normalise
    int e = -1;
    std::uint32_t m = mant;
    do { m <<= 1; ++e; } while (!(m & 0x400u));
    bits = sign | static_cast<std::uint32_t>(112 - e) << 23 | ((m & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

namespace {
template <class T> long double load(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<long double>(v);
}
template <class T> void store(void *p, long double v) {
  const T t = static_cast<T>(v);
  std::memcpy(p, &t, sizeof(T));
}
} // namespace

long double loadElement(const Type &t, const void *p) {
  switch (typeId(t)) {
  case BOOL_ID: return *static_cast<const std::uint8_t *>(p) != 0;
  case CHAR_ID: case SCHAR_ID: return load<std::int8_t>(p);
  case UCHAR_ID: case QUARTER_METADATA_ID: return load<std::uint8_t>(p);
  case SHORT_ID: return load<std::int16_t>(p);
  case USHORT_ID: return load<std::uint16_t>(p);
  case INT_ID: return load<std::int32_t>(p);
  case UINT_ID: return load<std::uint32_t>(p);
  case LONG_ID: case LONGLONG_ID: return load<std::int64_t>(p);
  case ULONG_ID: case ULONGLONG_ID: return load<std::uint64_t>(p);
  case HALF_ID: {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloat(h);
  }
  case FLOAT_ID: return load<float>(p);
  case DOUBLE_ID: return load<double>(p);
  default: throw poplar_error("type '" + t.toString().str() + "' has no host representation");
  }
}

namespace {
// Float to integer conversion where C++ would be undefined: saturate, NaN -> 0.
template <class T> T toInteger(long double v) {
  if (v != v) return 0;
  if (v <= static_cast<long double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (v >= static_cast<long double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}
template <class T> void storeInt(void *p, long double v) {
  const T t = toInteger<T>(v);
  std::memcpy(p, &t, sizeof(T));
}
} // namespace

void storeElement(const Type &t, void *p, long double v) {
  switch (typeId(t)) {
  case BOOL_ID: *static_cast<std::uint8_t *>(p) = v != 0; return;
  case CHAR_ID: case SCHAR_ID: storeInt<std::int8_t>(p, v); return;
  case UCHAR_ID: case QUARTER_METADATA_ID: storeInt<std::uint8_t>(p, v); return;
  case SHORT_ID: storeInt<std::int16_t>(p, v); return;
  case USHORT_ID: storeInt<std::uint16_t>(p, v); return;
  case INT_ID: storeInt<std::int32_t>(p, v); return;
  case UINT_ID: storeInt<std::uint32_t>(p, v); return;
  case LONG_ID: case LONGLONG_ID: storeInt<std::int64_t>(p, v); return;
  case ULONG_ID: case ULONGLONG_ID: storeInt<std::uint64_t>(p, v); return;
  case HALF_ID: {
    const std::uint16_t h = doubleToHalf(static_cast<double>(v));
    std::memcpy(p, &h, 2);
    return;
  }
  case FLOAT_ID: store<float>(p, v); return;
  case DOUBLE_ID: store<double>(p, v); return;
  default: throw poplar_error("type '" + t.toString().str() + "' has no host representation");
  }
}

} // namespace detail

namespace detail {
Type typeFromId(unsigned id) { return Internals::type(id < NUM_IDS ? id : INVALID_ID); }
} // namespace detail

Type::Type() : id_(detail::INVALID_ID) {}
StringRef Type::toString() const { return detail::typeInfo(*this).name; }
bool Type::isFloatingPoint() const {
  const auto kind = detail::typeInfo(*this).kind;
  return kind == detail::TypeKind::Float || kind == detail::TypeKind::Half ||
         kind == detail::TypeKind::Quarter;
}

// Quarter (fp8) tensors carry their format and scale in a metadata tensor.
bool Type::requiresMetadata() const { return detail::typeInfo(*this).kind == detail::TypeKind::Quarter; }

const Type BOOL = detail::typeFromId(detail::BOOL_ID);
const Type CHAR = detail::typeFromId(detail::CHAR_ID);
const Type UNSIGNED_CHAR = detail::typeFromId(detail::UCHAR_ID);
const Type SIGNED_CHAR = detail::typeFromId(detail::SCHAR_ID);
const Type SHORT = detail::typeFromId(detail::SHORT_ID);
const Type SIGNED_SHORT = SHORT;
const Type UNSIGNED_SHORT = detail::typeFromId(detail::USHORT_ID);
const Type INT = detail::typeFromId(detail::INT_ID);
const Type SIGNED_INT = INT;
const Type SIGNED = INT;
const Type UNSIGNED_INT = detail::typeFromId(detail::UINT_ID);
const Type UNSIGNED = UNSIGNED_INT;
const Type LONG = detail::typeFromId(detail::LONG_ID);
const Type UNSIGNED_LONG = detail::typeFromId(detail::ULONG_ID);
const Type LONGLONG = detail::typeFromId(detail::LONGLONG_ID);
const Type UNSIGNED_LONGLONG = detail::typeFromId(detail::ULONGLONG_ID);
const Type QUARTER = detail::typeFromId(detail::QUARTER_ID);
const Type QUARTER_METADATA = detail::typeFromId(detail::QUARTER_METADATA_ID);
const Type HALF = detail::typeFromId(detail::HALF_ID);
const Type FLOAT = detail::typeFromId(detail::FLOAT_ID);
const Type DOUBLE = detail::typeFromId(detail::DOUBLE_ID);

} // namespace poplar
