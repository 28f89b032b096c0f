#pragma once
#include <initializer_list>
#include <istream>
#include <map>
#include <string>
#include <utility>

#include <poplar/ProfileValue.hpp>
#include <poplar/StringRef.hpp>

namespace poplar {

// String key/value options. Iteration yields pairs with .first/.second in key order.
class OptionFlags {
public:
  using initializer_list_t = std::initializer_list<std::pair<const std::string, std::string>>;
  using iterator = std::map<std::string, std::string>::const_iterator;
  using const_iterator = iterator;

  OptionFlags() = default;
  OptionFlags(initializer_list_t init) : values_(init) {}

  void set(StringRef option, StringRef value) { values_[option.str()] = value.str(); }
  void set(initializer_list_t init) {
    for (const auto &kv : init) values_[kv.first] = kv.second;
  }
  StringRef at(StringRef option) const;
  const_iterator find(StringRef option) const { return values_.find(option.str()); }
  std::size_t size() const { return values_.size(); }
  void clear() { values_.clear(); }
  const_iterator begin() const { return values_.begin(); }
  const_iterator end() const { return values_.end(); }

  friend bool operator==(const OptionFlags &a, const OptionFlags &b) { return a.values_ == b.values_; }
  friend std::ostream &operator<<(std::ostream &os, const OptionFlags &flags);

private:
  std::map<std::string, std::string> values_;
};

// The flags as a map of strings.
ProfileValue getAsProfileValue(const OptionFlags &flags);

// Reads a JSON object into flags: strings, numbers and booleans become values;
// nested objects become dotted keys ({"a":{"b":1}} sets "a.b" to "1").
void readJSON(StringRef json, OptionFlags &flags);
void readJSON(std::istream &in, OptionFlags &flags);
// Reads JSON from an environment variable if it is set; returns false otherwise.
bool readJSONFromEnv(StringRef envVar, OptionFlags &flags);

} // namespace poplar
