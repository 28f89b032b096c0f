#include <poplar/OptionFlags.hpp>
#include <poplar/exceptions.hpp>

#include <cstdlib>
#include <sstream>

#include "JsonText.hpp"

namespace poplar {

StringRef OptionFlags::at(StringRef option) const {
  auto it = values_.find(option.str());
  if (it == values_.end()) throw invalid_option("Option '" + option.str() + "' is not set");
  return it->second;
}

ProfileValue getAsProfileValue(const OptionFlags &flags) {
  ProfileValue::Map values;
  for (const auto &kv : flags) values.emplace(kv.first, ProfileValue(kv.second));
  return ProfileValue(std::move(values));
}

std::ostream &operator<<(std::ostream &os, const OptionFlags &flags) {
  os << '{';
  const char *sep = "";
  for (const auto &kv : flags) {
    os << sep << '"' << kv.first << "\": \"" << kv.second << '"';
    sep = ", ";
  }
  return os << '}';
}

namespace {

// Option names are a few levels deep; the limit keeps a hostile file from recursing
// until the stack overflows.
constexpr unsigned kMaxOptionDepth = 100;

// An object's members into `flags`, nested objects' keys joined with dots.
void readObjectInto(detail::JsonCursor &json, OptionFlags &flags, const std::string &prefix, unsigned depth) {
  if (depth > kMaxOptionDepth) json.fail("objects nest more than " + std::to_string(kMaxOptionDepth) + " deep");
  json.expect('{');
  if (json.consume('}')) return;
  do {
    const std::string key = prefix + json.readString();
    json.expect(':');
    if (json.peek() == '{') readObjectInto(json, flags, key + ".", depth + 1);
    else flags.set(key, json.peek() == '"' ? json.readString() : json.readLiteral());
  } while (json.consume(','));
  json.expect('}');
}

} // namespace

void readJSON(StringRef json, OptionFlags &flags) {
  detail::JsonCursor cursor(json.str(), "Invalid JSON options");
  readObjectInto(cursor, flags, "", 1);
  cursor.finish();
}

void readJSON(std::istream &in, OptionFlags &flags) {
  std::stringstream ss;
  ss << in.rdbuf();
  readJSON(ss.str(), flags);
}

bool readJSONFromEnv(StringRef envVar, OptionFlags &flags) {
  const char *value = std::getenv(envVar.str().c_str());
  if (!value) return false;
  try {
    readJSON(value, flags);
  } catch (const parse_error &e) {
    throw parse_error("the environment variable " + envVar.str() + " is not valid option JSON: " + e.what());
  }
  return true;
}

} // namespace poplar
