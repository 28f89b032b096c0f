#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include <poplar/StringRef.hpp>

namespace poplar {

// A JSON-like value: a boolean, string, number, vector or map of values. Debug
// information (DebugInfo::setValue) and options (getAsProfileValue) are kept so.
class ProfileValue {
public:
  enum class Type { BOOL_, STRING, NUMBER, VECTOR, MAP };
  using String = std::string;
  using Vector = std::vector<ProfileValue>;
  using Map = std::map<std::string, ProfileValue>;
  using Number = double;
  using Boolean = bool;
  struct Storage;

  ProfileValue(String s);
  ProfileValue(Vector v);
  ProfileValue(Map m);
  ProfileValue(Number n);
  ProfileValue(Boolean b);
  ProfileValue(const char *s);
  // Integers are numbers (without this, an int would be as near a bool as a double).
  template <class T, typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value,
                                             int>::type = 0>
  ProfileValue(T n) : ProfileValue(static_cast<Number>(n)) {}
  ProfileValue(const ProfileValue &other);
  ProfileValue &operator=(const ProfileValue &other);
  ~ProfileValue();

  Type type() const;
  // Each accessor raises poplar_error when the value is of another type.
  const String &asString() const;
  bool asBool() const;
  std::int64_t asInt() const;
  std::uint64_t asUint() const;
  double asDouble() const;
  const Map &asMap() const;
  const Vector &asVector() const;
  // The member `key` of a map, or null when it has none.
  const ProfileValue *getOrNull(StringRef key) const;
  const ProfileValue &operator[](StringRef key) const;
  const ProfileValue &operator[](std::size_t index) const;
  // The elements of a vector of numbers, as unsigned integers.
  std::vector<std::uint64_t> toUintVector() const;
  // Elements of a vector, members of a map, characters of a string.
  std::size_t size() const;
  // The sum of a vector of numbers; sum2D* of a vector of vectors of numbers.
  double sumDouble() const;
  std::int64_t sumInt() const;
  std::uint64_t sumUint() const;
  std::int64_t sum2DInt() const;
  std::uint64_t sum2DUint() const;

  friend bool operator==(const ProfileValue &a, const ProfileValue &b);
  friend bool operator!=(const ProfileValue &a, const ProfileValue &b) { return !(a == b); }
  // As JSON.
  friend std::ostream &operator<<(std::ostream &os, const ProfileValue &v);

private:
  std::unique_ptr<Storage> storage_;
};

} // namespace poplar
