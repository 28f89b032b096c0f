#pragma once
#include <cstdint>
#include <functional>
#include <ostream>

#include <poplar/StringRef.hpp>

namespace poplar {

namespace detail {
struct Internals;
} // namespace detail

// An element type of device tensors. Each constant below is a distinct type.
class Type {
public:
  Type();
  StringRef toString() const;
  bool isFloatingPoint() const;
  bool requiresMetadata() const;
  std::size_t hash() const { return id_; }

  friend bool operator==(const Type &a, const Type &b) { return a.id_ == b.id_; }
  friend bool operator!=(const Type &a, const Type &b) { return a.id_ != b.id_; }
  friend bool operator<(const Type &a, const Type &b) { return a.id_ < b.id_; }
  friend std::ostream &operator<<(std::ostream &os, const Type &t) { return os << t.toString(); }

private:
  friend struct detail::Internals;
  explicit Type(unsigned id) : id_(id) {}
  unsigned id_;
};

extern const Type BOOL, CHAR, UNSIGNED_CHAR, SIGNED_CHAR, UNSIGNED_SHORT, SHORT,
    SIGNED_SHORT, UNSIGNED_INT, INT, SIGNED_INT, UNSIGNED, SIGNED, UNSIGNED_LONG, LONG,
    UNSIGNED_LONGLONG, LONGLONG, QUARTER, QUARTER_METADATA, HALF, FLOAT, DOUBLE;

template <class T> struct equivalent_device_type {};
#define POPLAR_DECLARE_EQUIV_TYPE(T1, T2)                                              \
  template <> struct equivalent_device_type<T1> {                                      \
    const Type &value = T2;                                                            \
  };
POPLAR_DECLARE_EQUIV_TYPE(bool, BOOL)
POPLAR_DECLARE_EQUIV_TYPE(char, CHAR)
POPLAR_DECLARE_EQUIV_TYPE(signed char, SIGNED_CHAR)
POPLAR_DECLARE_EQUIV_TYPE(unsigned char, UNSIGNED_CHAR)
POPLAR_DECLARE_EQUIV_TYPE(short, SHORT)
POPLAR_DECLARE_EQUIV_TYPE(unsigned short, UNSIGNED_SHORT)
POPLAR_DECLARE_EQUIV_TYPE(int, INT)
POPLAR_DECLARE_EQUIV_TYPE(unsigned, UNSIGNED_INT)
POPLAR_DECLARE_EQUIV_TYPE(long, LONG)
POPLAR_DECLARE_EQUIV_TYPE(unsigned long, UNSIGNED_LONG)
POPLAR_DECLARE_EQUIV_TYPE(long long, LONGLONG)
POPLAR_DECLARE_EQUIV_TYPE(unsigned long long, UNSIGNED_LONGLONG)
POPLAR_DECLARE_EQUIV_TYPE(float, FLOAT)

} // namespace poplar

template <> struct std::hash<poplar::Type> {
  std::size_t operator()(const poplar::Type &t) const { return t.hash(); }
};
