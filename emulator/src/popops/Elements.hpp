#pragma once
// Typed element access for the popops kernels: the host type that holds each
// device type, value conversion with poplibs' cast rules, and dispatch from a
// poplar::Type to a template instantiation.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <poplar/Type.hpp>
#include <poputil/exceptions.hpp>

#include "poplar/TypeInfo.hpp"

namespace popops::detail {

// Device HALF: 16 bits in memory, computed as float.
struct Half {
  std::uint16_t bits;
};
// Device BOOL: one byte; any non-zero byte reads as true.
struct Bool {
  std::uint8_t byte;
};

// Element<T>::Value is what a kernel computes with for storage type T.
template <class T> struct Element {
  using Value = T;
  static T load(T x) { return x; }
  static T store(T v) { return v; }
};
template <> struct Element<Half> {
  using Value = float;
  static float load(Half x) { return poplar::detail::halfToFloat(x.bits); }
  static Half store(float v) { return Half{poplar::detail::floatToHalf(v)}; }
};
template <> struct Element<Bool> {
  using Value = bool;
  static bool load(Bool x) { return x.byte != 0; }
  static Bool store(bool v) { return Bool{static_cast<std::uint8_t>(v)}; }
};

// Converts between computed values: to bool is "not zero"; floating point to
// integer truncates toward zero and saturates, NaN giving 0 (where C++ would be
// undefined); integer to integer wraps; to floating point rounds to nearest.
template <class To, class From> To convertValue(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<From>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// A value converted and stored as storage type T (half rounds to nearest even).
template <class T, class V> T storeAs(V v) {
  return Element<T>::store(convertValue<typename Element<T>::Value>(v));
}

// Integer arithmetic that wraps like the device's (signed overflow is undefined
// in C++). For types of at least int's width, which do not promote to int.
template <class T> T wrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class T> T wrappingSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <class T> T wrappingMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    static_assert(sizeof(T) >= sizeof(int), "narrow types promote to int and may overflow");
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

// Whether device type `type` is stored as host type T.
template <class T> bool holds(const poplar::Type &type);
template <> inline bool holds<float>(const poplar::Type &t) { return t == poplar::FLOAT; }
template <> inline bool holds<Half>(const poplar::Type &t) { return t == poplar::HALF; }
template <> inline bool holds<std::int32_t>(const poplar::Type &t) { return t == poplar::INT; }
template <> inline bool holds<std::uint32_t>(const poplar::Type &t) { return t == poplar::UNSIGNED_INT; }
template <> inline bool holds<std::int16_t>(const poplar::Type &t) { return t == poplar::SHORT; }
template <> inline bool holds<std::uint16_t>(const poplar::Type &t) { return t == poplar::UNSIGNED_SHORT; }
template <> inline bool holds<std::int8_t>(const poplar::Type &t) {
  return t == poplar::CHAR || t == poplar::SIGNED_CHAR;
}
template <> inline bool holds<std::uint8_t>(const poplar::Type &t) { return t == poplar::UNSIGNED_CHAR; }
template <> inline bool holds<Bool>(const poplar::Type &t) { return t == poplar::BOOL; }
template <> inline bool holds<std::int64_t>(const poplar::Type &t) { return t == poplar::LONGLONG; }
template <> inline bool holds<std::uint64_t>(const poplar::Type &t) {
  return t == poplar::UNSIGNED_LONGLONG;
}

template <class T> struct TypeTag {
  using type = T;
};

// A set of storage types a kernel is instantiated for.
template <class... Ts> struct TypeList {
  static bool contains(const poplar::Type &type) { return (holds<Ts>(type) || ...); }
  // Calls fn(TypeTag<T>{}) for the T that holds `type`.
  template <class Fn> static void visit(const poplar::Type &type, Fn &&fn) {
    const bool found = ((holds<Ts>(type) ? (fn(TypeTag<Ts>{}), true) : false) || ...);
    if (!found)
      throw poputil::poplibs_error("Internal error: no kernel for element type " +
                                   type.toString().str());
  }
};

using FloatingTypes = TypeList<float, Half>;
// The numeric types popops::cast converts between.
using CastTypes = TypeList<float, Half, std::int32_t, std::uint32_t, std::int16_t, std::uint16_t,
                           std::int8_t, std::uint8_t, Bool>;

} // namespace popops::detail
