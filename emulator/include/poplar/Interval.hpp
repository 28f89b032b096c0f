#pragma once
#include <cstddef>
#include <ostream>
#include <tuple>

namespace poplar {

// A half-open range [begin, end).
template <class T> class GenericInterval {
public:
  GenericInterval() = default;
  GenericInterval(T begin, T end) : begin_(begin), end_(end) {}
  T begin() const { return begin_; }
  T end() const { return end_; }
  T size() const { return end_ - begin_; }

  friend bool operator==(const GenericInterval &a, const GenericInterval &b) {
    return a.begin_ == b.begin_ && a.end_ == b.end_;
  }
  friend bool operator!=(const GenericInterval &a, const GenericInterval &b) { return !(a == b); }
  friend bool operator<(const GenericInterval &a, const GenericInterval &b) {
    return std::tie(a.begin_, a.end_) < std::tie(b.begin_, b.end_);
  }
  friend bool operator>(const GenericInterval &a, const GenericInterval &b) { return b < a; }
  friend bool operator<=(const GenericInterval &a, const GenericInterval &b) { return !(b < a); }
  friend bool operator>=(const GenericInterval &a, const GenericInterval &b) { return !(a < b); }
  friend std::ostream &operator<<(std::ostream &os, const GenericInterval &i) {
    return os << '[' << i.begin_ << ", " << i.end_ << ')';
  }

private:
  T begin_{};
  T end_{};
};

using Interval = GenericInterval<std::size_t>;

} // namespace poplar
