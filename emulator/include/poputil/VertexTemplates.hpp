#pragma once
// Vertex type names as poplibs spells them: templateVertex("popops::Fill", FLOAT, 4u)
// is "popops::Fill<float,4>" (no spaces). Types print as Type::toString(), bools as
// true/false, strings as they are, integers with std::to_string; other argument types
// (enums) print through a VertexTemplateToString<T> specialisation, as the SDK does.
#include <string>
#include <type_traits>
#include <utility>

#include <poplar/Type.hpp>

namespace poputil {

// Specialise for an enum (or any other type) to name it in vertex templates; the
// primary template prints integers.
template <class T> struct VertexTemplateToString {
  static std::string to_string(const T &value) {
    static_assert(std::is_integral<T>::value,
                  "templateVertex: specialise poputil::VertexTemplateToString for this type");
    return std::to_string(value);
  }
};

template <> struct VertexTemplateToString<bool> {
  static std::string to_string(bool value) { return value ? "true" : "false"; }
};

template <> struct VertexTemplateToString<poplar::Type> {
  static std::string to_string(const poplar::Type &type) { return type.toString(); }
};

template <> struct VertexTemplateToString<std::string> {
  static std::string to_string(const std::string &value) { return value; }
};

template <> struct VertexTemplateToString<const char *> {
  static std::string to_string(const char *value) { return value; }
};

// The parameter list after the first `first ? "" : ","`, closed with '>'; with no
// parameters at all it is empty.
inline std::string templateVertexParams(bool first) { return first ? "" : ">"; }

template <class T, class... Args>
inline std::string templateVertexParams(bool first, const T &value, Args &&...args) {
  typedef typename std::decay<T>::type Decayed;
  typedef typename std::conditional<std::is_same<Decayed, char *>::value, const char *, Decayed>::type Printed;
  return std::string(first ? "<" : ",") + VertexTemplateToString<Printed>::to_string(value) +
         templateVertexParams(false, std::forward<Args>(args)...);
}

template <class... Args> inline std::string templateVertex(const std::string &name, Args &&...args) {
  return name + templateVertexParams(true, std::forward<Args>(args)...);
}

} // namespace poputil
