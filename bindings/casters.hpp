#pragma once
// Conversions between Python values and Poplar's argument types: sequences to
// ArrayRef, str to StringRef/DebugContext, dict to OptionFlags.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/StringRef.hpp>

#include "integer_arguments.hpp"

namespace pybind11::detail {

template <class T> struct type_caster<poplar::ArrayRef<T>> {
  PYBIND11_TYPE_CASTER(poplar::ArrayRef<T>, const_name("Sequence[") + make_caster<T>::name + const_name("]"));
  std::vector<T> storage;

  bool load(handle src, bool convert) {
    if (!src || src.is_none()) return false;
    if (isinstance<sequence>(src) && !isinstance<str>(src)) {
      make_caster<std::vector<T>> items;
      if (!items.load(src, convert)) return false;
      storage = cast_op<std::vector<T> &&>(std::move(items));
    } else { // a single value stands for a one-element list
      make_caster<T> one;
      if (!one.load(src, convert)) return false;
      storage = {cast_op<T &&>(std::move(one))};
    }
    value = poplar::ArrayRef<T>(storage);
    return true;
  }
  static handle cast(poplar::ArrayRef<T> src, return_value_policy policy, handle parent) {
    return make_caster<std::vector<T>>::cast(src.vec(), policy, parent);
  }
};

template <> struct type_caster<poplar::StringRef> {
  PYBIND11_TYPE_CASTER(poplar::StringRef, const_name("str"));
  std::string storage;
  bool load(handle src, bool) {
    if (!isinstance<str>(src)) return false;
    storage = src.cast<std::string>();
    value = poplar::StringRef(storage);
    return true;
  }
  static handle cast(poplar::StringRef src, return_value_policy, handle) {
    return str(src.str()).release();
  }
};

template <> struct type_caster<poplar::DebugContext> {
  PYBIND11_TYPE_CASTER(poplar::DebugContext, const_name("str | None"));
  bool load(handle src, bool) {
    // No source location: the caller is Python, whose popdsl names carry its file and line.
    if (src.is_none()) { value = poplar::DebugContext(poplar::SourceLocation()); return true; }
    if (!isinstance<str>(src)) return false;
    value = poplar::DebugContext(src.cast<std::string>(), poplar::SourceLocation());
    return true;
  }
  static handle cast(const poplar::DebugContext &src, return_value_policy, handle) {
    return str(src.getPathName()).release();
  }
};

template <> struct type_caster<poplar::OptionFlags> {
  PYBIND11_TYPE_CASTER(poplar::OptionFlags, const_name("dict[str, str | int | float | bool] | None"));
  bool load(handle src, bool) {
    value = poplar::OptionFlags();
    if (src.is_none()) return true;
    if (!isinstance<dict>(src)) return false;
    for (auto item : reinterpret_borrow<dict>(src)) {
      const std::string key = str(item.first);
      handle v = item.second;
      std::string text = isinstance<bool_>(v) ? (v.cast<bool>() ? "true" : "false") : std::string(str(v));
      value.set(key, text);
    }
    return true;
  }
  static handle cast(const poplar::OptionFlags &src, return_value_policy, handle) {
    dict d;
    for (const auto &kv : src) d[str(kv.first)] = str(kv.second);
    return d.release();
  }
};

} // namespace pybind11::detail
