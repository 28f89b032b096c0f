#pragma once
// Non-owning array view accepting Poplar's call forms: {a, b}, std::vector,
// pointer + size, a single element.
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace poplar {

template <class T> class ArrayRef {
public:
  using value_type = T;
  // The element type without const: ArrayRef<const T> views a std::vector<T>.
  using Element = typename std::remove_const<T>::type;
  constexpr ArrayRef() = default;
  ArrayRef(const T &one) : data_(&one), size_(1) {}
  ArrayRef(const T *data, std::size_t size) : data_(data), size_(size) {}
  // Like gccs::ArrayRef, a braced list is viewed for the duration of the call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  ArrayRef(std::initializer_list<T> list) : data_(list.begin()), size_(list.size()) {}
#pragma GCC diagnostic pop
  template <class Alloc>
  ArrayRef(const std::vector<Element, Alloc> &v) : data_(v.data()), size_(v.size()) {}
  // A view of U elements seen as T (ArrayRef<float> as ArrayRef<const float>).
  template <class U, class = typename std::enable_if<std::is_convertible<const U *, const T *>::value &&
                                                     !std::is_same<U, T>::value>::type>
  ArrayRef(const ArrayRef<U> &other) : data_(other.data()), size_(other.size()) {}

  const T *data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  const T *cbegin() const { return data_; }
  const T *cend() const { return data_ + size_; }
  const T &operator[](std::size_t i) const { return data_[i]; }
  const T &front() const { return data_[0]; }
  const T &back() const { return data_[size_ - 1]; }
  std::vector<Element> vec() const { return std::vector<Element>(begin(), end()); }
  operator std::vector<Element>() const { return vec(); }

private:
  const T *data_ = nullptr;
  std::size_t size_ = 0;
};

} // namespace poplar
