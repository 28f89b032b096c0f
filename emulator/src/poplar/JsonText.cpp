#include "JsonText.hpp"

#include <poplar/exceptions.hpp>

#include <cctype>

namespace poplar::detail {

void writeJsonString(std::ostream &out, const std::string &s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out << '"';
  for (const char c : s) {
    switch (c) {
    case '"': out << "\\\""; break;
    case '\\': out << "\\\\"; break;
    case '\n': out << "\\n"; break;
    case '\t': out << "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) out << "\\u00" << kHex[(c >> 4) & 0xf] << kHex[c & 0xf];
      else out << c;
    }
  }
  out << '"';
}

void JsonCursor::skipSpace() {
  while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
}

char JsonCursor::peek() {
  skipSpace();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool JsonCursor::consume(char c) {
  if (peek() != c) return false;
  ++pos_;
  return true;
}

void JsonCursor::expect(char c) {
  if (!consume(c)) fail(std::string("expected '") + c + "'");
}

void JsonCursor::finish() {
  skipSpace();
  if (pos_ != text_.size()) fail("unexpected text after the JSON value");
}

void JsonCursor::fail(const std::string &what) const {
  throw parse_error(context_ + " at character " + std::to_string(pos_) + ": " + what);
}

std::string JsonCursor::readString() {
  expect('"');
  std::string out;
  for (;;) {
    if (pos_ >= text_.size()) fail("unterminated string");
    const char c = text_[pos_++];
    if (c == '"') return out;
    if (c == '\\') readEscape(out);
    else out += c;
  }
}

void JsonCursor::readEscape(std::string &out) {
  if (pos_ >= text_.size()) fail("unterminated string");
  const char e = text_[pos_++];
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
  // UTF-16 surrogates come in pairs that make one code point; alone they are no
  // character, and as UTF-8 bytes they would make an invalid Python str.
  if (code >= 0xdc00 && code < 0xe000) fail("invalid \\u escape: unpaired surrogate");
  if (code >= 0xd800 && code < 0xdc00) {
    if (text_.compare(pos_, 2, "\\u") != 0) fail("invalid \\u escape: unpaired surrogate");
    pos_ += 2;
    const unsigned low = readHex4();
    if (low < 0xdc00 || low >= 0xe000) fail("invalid \\u escape: unpaired surrogate");
    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
  }
  // UTF-8: the leading byte marks how many continuation bytes (6 bits each) follow.
  const unsigned continuations = code < 0x80 ? 0 : code < 0x800 ? 1 : code < 0x10000 ? 2 : 3;
  static constexpr unsigned kLeadingMark[] = {0x00, 0xc0, 0xe0, 0xf0};
  out += static_cast<char>(kLeadingMark[continuations] | (code >> (6 * continuations)));
  for (unsigned k = continuations; k-- > 0;) out += static_cast<char>(0x80 | ((code >> (6 * k)) & 0x3f));
}

unsigned JsonCursor::readHex4() {
  unsigned code = 0;
  for (int k = 0; k < 4; ++k, ++pos_) {
    const char h = pos_ < text_.size() ? text_[pos_] : '\0';
    if (!std::isxdigit(static_cast<unsigned char>(h))) fail("invalid \\u escape: not hexadecimal");
    code = code * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (h | 0x20) - 'a' + 10);
  }
  return code;
}

std::string JsonCursor::readLiteral() {
  skipSpace();
  const std::size_t start = pos_;
  while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
                                 text_[pos_] == '-' || text_[pos_] == '+'))
    ++pos_;
  if (start == pos_) fail("expected a value");
  return text_.substr(start, pos_ - start);
}

std::size_t JsonCursor::readSize() {
  skipSpace();
  const std::size_t start = pos_;
  while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  if (start == pos_) fail("expected a number");
  if (pos_ - start > 18) fail("a number too large for a size"); // 18 digits always fit
  return std::stoull(text_.substr(start, pos_ - start));
}

} // namespace poplar::detail
