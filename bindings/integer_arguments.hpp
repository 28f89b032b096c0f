#pragma once
// Integer arguments out of their C++ type's range, named. pybind11 refuses such a
// Python int silently and, once every overload has refused the call, raises a TypeError
// that lists the signatures ("incompatible function arguments"). Here each C++ integer
// type's caster notes the int it refused for its range, and every function of the module
// is dispatched through a wrapper (nameRefusedIntegers) that turns that TypeError into a
// ValueError naming the function, the argument, the range and the value.
//
// Every translation unit of the module must see these casters (casters.hpp and
// backend.hpp include this header): they replace pybind11's for these types.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace popdsl_bindings {

// Remembers `value` (a Python int or integer-like object) as refused for not lying in
// [minimum, maximum], the range of C++ type `cType`, until the wrapper reads it.
void noteRefusedInteger(pybind11::handle value, const char *cType, long long minimum, unsigned long long maximum);

// Dispatches every pybind11 function and method reachable from `module` (submodules,
// classes and their nested classes) through the wrapper described above.
void nameRefusedIntegers(pybind11::module_ &module);

template <class T> constexpr const char *integerTypeName() {
  if constexpr (std::is_same_v<T, signed char>) return "signed char";
  else if constexpr (std::is_same_v<T, unsigned char>) return "unsigned char";
  else if constexpr (std::is_same_v<T, short>) return "short";
  else if constexpr (std::is_same_v<T, unsigned short>) return "unsigned short";
  else if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, unsigned>) return "unsigned int";
  else if constexpr (std::is_same_v<T, long>) return "long";
  else return "unsigned long";
}

// Loads T through pybind11's caster for the 64-bit type of T's signedness (so T accepts
// exactly what pybind11 accepts), then checks T's range; a refused int is noted.
template <class T> struct RangeCheckedIntegerCaster {
  using Wide = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
  static_assert(!std::is_same_v<T, Wide>, "the 64-bit types keep pybind11's own caster, which loads them");

  PYBIND11_TYPE_CASTER(T, pybind11::detail::make_caster<Wide>::name);

  bool load(pybind11::handle src, bool convert) {
    pybind11::detail::make_caster<Wide> wide;
    if (wide.load(src, convert)) {
      const Wide v = pybind11::detail::cast_op<Wide>(wide);
      if (v >= static_cast<Wide>(std::numeric_limits<T>::min()) && v <= static_cast<Wide>(std::numeric_limits<T>::max())) {
        value = static_cast<T>(v);
        return true;
      }
    } else if (!src || PyFloat_Check(src.ptr()) || !PyIndex_Check(src.ptr())) {
      return false; // not an integer: pybind11's usual "incompatible arguments"
    }
    noteRefusedInteger(src, integerTypeName<T>(), static_cast<long long>(std::numeric_limits<T>::min()),
                       static_cast<unsigned long long>(std::numeric_limits<T>::max()));
    return false;
  }

  static pybind11::handle cast(T src, pybind11::return_value_policy policy, pybind11::handle parent) {
    return pybind11::detail::make_caster<Wide>::cast(static_cast<Wide>(src), policy, parent);
  }
};

} // namespace popdsl_bindings

namespace pybind11::detail {

#define POPDSL_RANGE_CHECKED(T) \
  template <> struct type_caster<T> : popdsl_bindings::RangeCheckedIntegerCaster<T> {};
POPDSL_RANGE_CHECKED(signed char)
POPDSL_RANGE_CHECKED(unsigned char)
POPDSL_RANGE_CHECKED(short)
POPDSL_RANGE_CHECKED(unsigned short)
POPDSL_RANGE_CHECKED(int)
POPDSL_RANGE_CHECKED(unsigned)
POPDSL_RANGE_CHECKED(long)
POPDSL_RANGE_CHECKED(unsigned long)
#undef POPDSL_RANGE_CHECKED

} // namespace pybind11::detail
