#pragma once
// Non-owning string view with Poplar's call forms: built from literals and
// std::string, converts back to std::string.
#include <cstring>
#include <ostream>
#include <string>

namespace poplar {

class StringRef {
public:
  StringRef() = default;
  StringRef(const char *s) : data_(s), size_(s ? std::strlen(s) : 0) {}
  StringRef(const std::string &s) : data_(s.data()), size_(s.size()) {}
  StringRef(const char *s, std::size_t n) : data_(s), size_(n) {}

  const char *data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const char *begin() const { return data_; }
  const char *end() const { return data_ + size_; }
  std::string str() const { return std::string(data_, size_); }
  std::string cloneAsString() const { return str(); }
  operator std::string() const { return str(); }

  friend bool operator==(StringRef a, StringRef b) {
    return a.size_ == b.size_ && std::memcmp(a.data_, b.data_, a.size_) == 0;
  }
  friend bool operator!=(StringRef a, StringRef b) { return !(a == b); }
  friend std::ostream &operator<<(std::ostream &os, StringRef s) {
    return os.write(s.data_, static_cast<std::streamsize>(s.size_));
  }

private:
  const char *data_ = "";
  std::size_t size_ = 0;
};

} // namespace poplar
