#pragma once
#include <cstddef>
#include <type_traits>

namespace poplar {

// What Graph::addConstant needs to know about a host element type it is given
// through a `const void *`: its size and alignment and whether it is an integer or
// floating-point type, and if so, signed.
struct TypeTraits {
  std::size_t size = 0;
  std::size_t align = 0;
  bool isIntegral = false;
  bool isFloat = false;
  bool isSigned = false;

  // The traits of host type T.
  template <class T> static TypeTraits make() {
    TypeTraits t;
    t.size = sizeof(T);
    t.align = alignof(T);
    t.isIntegral = std::is_integral<T>::value;
    t.isFloat = std::is_floating_point<T>::value;
    t.isSigned = std::is_signed<T>::value;
    return t;
  }
  // Whether T is a type whose values Graph can take (a bool, integer or floating-point type).
  template <class T> static constexpr bool isSimpleType() {
    return std::is_integral<T>::value || std::is_floating_point<T>::value;
  }
  // Whether device elements made from T need metadata (as QUARTER's do); no host type does.
  template <class T> static constexpr bool requiresMetadata() { return false; }
  // Whether these traits describe such a type: an integer of 1, 2, 4 or 8 bytes, or a
  // float or double.
  bool isSimpleType() const;
};

} // namespace poplar
