#pragma once
// JSON text as the emulator writes and reads it: profile values and serialized tensors
// (written), option files and serialized tensors (read).
#include <cstddef>
#include <ostream>
#include <string>
#include <utility>

namespace poplar::detail {

// `s` as a JSON string, quotes included; control characters escaped.
void writeJsonString(std::ostream &out, const std::string &s);

// Reads JSON tokens from a text, skipping whitespace between them. Every error is a
// parse_error "<context> at character <n>: <what>".
class JsonCursor {
public:
  JsonCursor(std::string text, std::string context) : text_(std::move(text)), context_(std::move(context)) {}

  // The next character after whitespace; '\0' at the end.
  char peek();
  // Skips `c` if it comes next; says whether it did.
  bool consume(char c);
  void expect(char c);
  // A string, its escapes decoded (\uXXXX, surrogate pairs included, as UTF-8).
  std::string readString();
  // The characters of a number, true, false or null, as written.
  std::string readLiteral();
  // A non-negative integer that fits in std::size_t.
  std::size_t readSize();
  // Fails unless only whitespace is left.
  void finish();
  [[noreturn]] void fail(const std::string &what) const;

private:
  void skipSpace();
  void readEscape(std::string &out);
  unsigned readHex4();

  std::string text_;
  std::string context_;
  std::size_t pos_ = 0;
};

} // namespace poplar::detail
