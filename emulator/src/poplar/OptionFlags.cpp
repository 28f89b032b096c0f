#include <poplar/OptionFlags.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

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

// A small JSON reader for option files: objects, strings, numbers, booleans, null.
class JsonReader {
public:
  explicit JsonReader(std::string text) : s_(std::move(text)) {}

  // Option names are a few levels deep; the limit keeps a hostile file from
  // recursing until the stack overflows.
  static constexpr unsigned kMaxDepth = 100;

  void readObjectInto(OptionFlags &flags, const std::string &prefix, unsigned depth = 1) {
    skipSpace(); // JSON allows whitespace before the opening brace
    if (depth > kMaxDepth) fail("objects nest more than " + std::to_string(kMaxDepth) + " deep");
    expect('{');
    skipSpace();
    if (peek() == '}') { ++pos_; return; }
    for (;;) {
      skipSpace();
      const std::string key = prefix + readString();
      skipSpace();
      expect(':');
      skipSpace();
      if (peek() == '{') readObjectInto(flags, key + ".", depth + 1);
      else flags.set(key, readScalar());
      skipSpace();
      if (peek() == ',') { ++pos_; continue; }
      expect('}');
      return;
    }
  }
  void finish() {
    skipSpace();
    if (pos_ != s_.size()) fail("unexpected text after the JSON object");
  }

private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  [[noreturn]] void fail(const std::string &what) const {
    throw parse_error("Invalid JSON options at character " + std::to_string(pos_) + ": " + what);
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string readString() {
    expect('"');
    std::string out;
    while (peek() != '"') {
      if (pos_ >= s_.size()) fail("unterminated string");
      const char c = s_[pos_++];
      if (c == '\\') readEscape(out);
      else out += c;
    }
    ++pos_;
    return out;
  }
  // After a backslash: one JSON escape, \uXXXX written out as UTF-8.
  void readEscape(std::string &out) {
    if (pos_ >= s_.size()) fail("unterminated string");
    const char e = s_[pos_++];
    switch (e) {
    case 'n': out += '\n'; return;
    case 't': out += '\t'; return;
    case 'r': out += '\r'; return;
    case 'b': out += '\b'; return;
    case 'f': out += '\f'; return;
    case '"': case '\\': case '/': out += e; return;
    case 'u': break;
    default: fail(std::string("invalid escape '\\") + e + "'");
    }
    unsigned code = readHex4();
    // UTF-16 surrogates come in pairs that make one code point; alone they are
    // no character, and as UTF-8 bytes they made an invalid Python str.
    if (code >= 0xdc00 && code < 0xe000) fail("invalid \\u escape: unpaired surrogate");
    if (code >= 0xd800 && code < 0xdc00) {
      if (s_.compare(pos_, 2, "\\u") != 0) fail("invalid \\u escape: unpaired surrogate");
      pos_ += 2;
      const unsigned low = readHex4();
      if (low < 0xdc00 || low >= 0xe000) fail("invalid \\u escape: unpaired surrogate");
      code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
    }
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }
  // The four hex digits of a \u escape.
  unsigned readHex4() {
    const std::string hex = s_.substr(pos_, 4);
    if (hex.size() != 4 || !std::all_of(hex.begin(), hex.end(), [](unsigned char h) { return std::isxdigit(h); }))
      fail("invalid \\u escape");
    pos_ += 4;
    return static_cast<unsigned>(std::stoul(hex, nullptr, 16));
  }
  std::string readScalar() {
    if (peek() == '"') return readString();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '.' || s_[pos_] == '-' || s_[pos_] == '+'))
      ++pos_;
    if (start == pos_) fail("expected a value");
    return s_.substr(start, pos_ - start);
  }

  std::string s_;
  std::size_t pos_ = 0;
};

} // namespace

void readJSON(StringRef json, OptionFlags &flags) {
  JsonReader reader(json.str());
  reader.readObjectInto(flags, "");
  reader.finish();
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
