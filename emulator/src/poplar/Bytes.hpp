#pragma once
// A small portable byte format for executables and kernel parameters: integers
// little-endian, field by field (never whole structs, whose padding would make
// equal graphs serialize differently and defeat the executable cache's hash).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <poplar/Internals.hpp>
#include <poplar/Type.hpp>
#include <poplar/exceptions.hpp>

namespace poplar::detail {

class ByteWriter {
public:
  ByteWriter &u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  ByteWriter &i64(std::int64_t v) { return u64(static_cast<std::uint64_t>(v)); }
  ByteWriter &boolean(bool v) { return u64(v); }
  ByteWriter &f64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return u64(bits);
  }
  ByteWriter &type(const Type &t) { return u64(typeId(t)); }
  ByteWriter &raw(const std::uint8_t *p, std::size_t n) {
    u64(n);
    bytes_.insert(bytes_.end(), p, p + n);
    return *this;
  }
  ByteWriter &raw(const std::vector<std::uint8_t> &v) { return raw(v.data(), v.size()); }
  ByteWriter &str(const std::string &s) {
    return raw(reinterpret_cast<const std::uint8_t *>(s.data()), s.size());
  }
  ByteWriter &sizes(const std::vector<std::size_t> &v) {
    u64(v.size());
    for (std::size_t x : v) u64(x);
    return *this;
  }
  const std::vector<std::uint8_t> &bytes() const { return bytes_; }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

private:
  std::vector<std::uint8_t> bytes_;
};

// Reads what a ByteWriter wrote; running past the end is a poplar_error naming `what`.
class ByteReader {
public:
  ByteReader(const std::uint8_t *p, std::size_t n, std::string what)
      : p_(p), end_(p + n), what_(std::move(what)) {}
  explicit ByteReader(const std::vector<std::uint8_t> &v, std::string what)
      : ByteReader(v.data(), v.size(), std::move(what)) {}

  std::uint64_t u64() {
    need(8);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(p_[i]) << (8 * i);
    p_ += 8;
    return v;
  }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  bool boolean() { return u64() != 0; }
  double f64() {
    const std::uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, 8);
    return v;
  }
  Type type() { return typeFromId(static_cast<unsigned>(u64())); }
  std::vector<std::uint8_t> raw() {
    const std::size_t n = count(1);
    std::vector<std::uint8_t> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  std::string str() {
    const std::size_t n = count(1);
    std::string s(reinterpret_cast<const char *>(p_), n);
    p_ += n;
    return s;
  }
  std::vector<std::size_t> sizes() {
    std::vector<std::size_t> v(count(8));
    for (auto &x : v) x = u64();
    return v;
  }
  // A count of items of at least `itemBytes` each, checked against what is left.
  std::size_t count(std::size_t itemBytes) {
    const std::uint64_t n = u64();
    if (itemBytes && n > static_cast<std::uint64_t>(end_ - p_) / itemBytes) corrupt();
    return static_cast<std::size_t>(n);
  }
  bool atEnd() const { return p_ == end_; }
  [[noreturn]] void corrupt() const {
    throw poplar_error("Cannot read " + what_ + ": the data is truncated or corrupt");
  }

private:
  void need(std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) corrupt();
  }
  const std::uint8_t *p_, *end_;
  std::string what_;
};

} // namespace poplar::detail
