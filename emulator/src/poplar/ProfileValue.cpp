#include <poplar/ProfileValue.hpp>
#include <poplar/exceptions.hpp>

#include <cmath>
#include <iomanip>
#include <limits>

#include "JsonText.hpp"

namespace poplar {

struct ProfileValue::Storage {
  Type type;
  bool boolean = false;
  double number = 0;
  String string;
  Vector vector;
  Map map;
};

namespace {
const char *typeName(ProfileValue::Type t) {
  switch (t) {
  case ProfileValue::Type::BOOL_: return "a boolean";
  case ProfileValue::Type::STRING: return "a string";
  case ProfileValue::Type::NUMBER: return "a number";
  case ProfileValue::Type::VECTOR: return "a vector";
  case ProfileValue::Type::MAP: return "a map";
  }
  return "unknown";
}

std::unique_ptr<ProfileValue::Storage> storage(ProfileValue::Type t) {
  std::unique_ptr<ProfileValue::Storage> s(new ProfileValue::Storage);
  s->type = t;
  return s;
}

// An integer conversion of a number that must be whole and in T's range.
template <class T> T whole(double n) {
  if (std::floor(n) != n || n < static_cast<double>(std::numeric_limits<T>::lowest()) ||
      n > static_cast<double>(std::numeric_limits<T>::max()))
    throw poplar_error("ProfileValue: the number " + std::to_string(n) + " is not a whole number in range");
  return static_cast<T>(n);
}

} // namespace

ProfileValue::ProfileValue(String s) : storage_(storage(Type::STRING)) { storage_->string = std::move(s); }
ProfileValue::ProfileValue(Vector v) : storage_(storage(Type::VECTOR)) { storage_->vector = std::move(v); }
ProfileValue::ProfileValue(Map m) : storage_(storage(Type::MAP)) { storage_->map = std::move(m); }
ProfileValue::ProfileValue(Number n) : storage_(storage(Type::NUMBER)) { storage_->number = n; }
ProfileValue::ProfileValue(Boolean b) : storage_(storage(Type::BOOL_)) { storage_->boolean = b; }
ProfileValue::ProfileValue(const char *s) : ProfileValue(String(s ? s : "")) {}
ProfileValue::ProfileValue(const ProfileValue &other) : storage_(new Storage(*other.storage_)) {}
ProfileValue &ProfileValue::operator=(const ProfileValue &other) {
  if (this != &other) storage_.reset(new Storage(*other.storage_));
  return *this;
}
ProfileValue::~ProfileValue() = default;

ProfileValue::Type ProfileValue::type() const { return storage_->type; }

namespace {
void expect(const ProfileValue &v, ProfileValue::Type t, const char *what) {
  if (v.type() != t)
    throw poplar_error(std::string("ProfileValue::") + what + ": the value is " + typeName(v.type()) +
                       ", not " + typeName(t));
}
} // namespace

const ProfileValue::String &ProfileValue::asString() const {
  expect(*this, Type::STRING, "asString");
  return storage_->string;
}
bool ProfileValue::asBool() const {
  expect(*this, Type::BOOL_, "asBool");
  return storage_->boolean;
}
std::int64_t ProfileValue::asInt() const {
  expect(*this, Type::NUMBER, "asInt");
  return whole<std::int64_t>(storage_->number);
}
std::uint64_t ProfileValue::asUint() const {
  expect(*this, Type::NUMBER, "asUint");
  return whole<std::uint64_t>(storage_->number);
}
double ProfileValue::asDouble() const {
  expect(*this, Type::NUMBER, "asDouble");
  return storage_->number;
}
const ProfileValue::Map &ProfileValue::asMap() const {
  expect(*this, Type::MAP, "asMap");
  return storage_->map;
}
const ProfileValue::Vector &ProfileValue::asVector() const {
  expect(*this, Type::VECTOR, "asVector");
  return storage_->vector;
}

const ProfileValue *ProfileValue::getOrNull(StringRef key) const {
  const auto &m = asMap();
  const auto it = m.find(key.str());
  return it == m.end() ? nullptr : &it->second;
}

const ProfileValue &ProfileValue::operator[](StringRef key) const {
  if (const ProfileValue *v = getOrNull(key)) return *v;
  throw poplar_error("ProfileValue: the map has no member '" + key.str() + "'");
}

const ProfileValue &ProfileValue::operator[](std::size_t index) const {
  const auto &v = asVector();
  if (index >= v.size())
    throw index_error("ProfileValue: index " + std::to_string(index) + " is out of range: the vector has " +
                      std::to_string(v.size()) + " elements");
  return v[index];
}

std::vector<std::uint64_t> ProfileValue::toUintVector() const {
  std::vector<std::uint64_t> out;
  for (const auto &e : asVector()) out.push_back(e.asUint());
  return out;
}

std::size_t ProfileValue::size() const {
  switch (type()) {
  case Type::VECTOR: return storage_->vector.size();
  case Type::MAP: return storage_->map.size();
  case Type::STRING: return storage_->string.size();
  default: throw poplar_error(std::string("ProfileValue::size: the value is ") + typeName(type()));
  }
}

double ProfileValue::sumDouble() const {
  double total = 0;
  for (const auto &e : asVector()) total += e.asDouble();
  return total;
}
std::int64_t ProfileValue::sumInt() const {
  std::int64_t total = 0;
  for (const auto &e : asVector()) total += e.asInt();
  return total;
}
std::uint64_t ProfileValue::sumUint() const {
  std::uint64_t total = 0;
  for (const auto &e : asVector()) total += e.asUint();
  return total;
}
std::int64_t ProfileValue::sum2DInt() const {
  std::int64_t total = 0;
  for (const auto &row : asVector()) total += row.sumInt();
  return total;
}
std::uint64_t ProfileValue::sum2DUint() const {
  std::uint64_t total = 0;
  for (const auto &row : asVector()) total += row.sumUint();
  return total;
}

bool operator==(const ProfileValue &a, const ProfileValue &b) {
  if (a.type() != b.type()) return false;
  const auto &x = *a.storage_, &y = *b.storage_;
  switch (a.type()) {
  case ProfileValue::Type::BOOL_: return x.boolean == y.boolean;
  case ProfileValue::Type::STRING: return x.string == y.string;
  case ProfileValue::Type::NUMBER: return x.number == y.number;
  case ProfileValue::Type::VECTOR: return x.vector == y.vector;
  case ProfileValue::Type::MAP: return x.map == y.map;
  }
  return false;
}

std::ostream &operator<<(std::ostream &os, const ProfileValue &v) {
  const auto &s = *v.storage_;
  switch (v.type()) {
  case ProfileValue::Type::BOOL_: return os << (s.boolean ? "true" : "false");
  case ProfileValue::Type::STRING: detail::writeJsonString(os, s.string); return os;
  case ProfileValue::Type::NUMBER:
    if (std::floor(s.number) == s.number && std::fabs(s.number) < 9e15)
      return os << static_cast<long long>(s.number);
    return os << std::setprecision(17) << s.number;
  case ProfileValue::Type::VECTOR: {
    os << '[';
    for (std::size_t i = 0; i < s.vector.size(); ++i) os << (i ? "," : "") << s.vector[i];
    return os << ']';
  }
  case ProfileValue::Type::MAP: {
    os << '{';
    bool first = true;
    for (const auto &kv : s.map) {
      os << (first ? "" : ",");
      detail::writeJsonString(os, kv.first);
      os << ':' << kv.second;
      first = false;
    }
    return os << '}';
  }
  }
  return os;
}

} // namespace poplar
