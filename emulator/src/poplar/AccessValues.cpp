#include "AccessValues.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include <poplar/exceptions.hpp>

#include "ThreadPool.hpp"
#include "TypeInfo.hpp"

namespace poplar::detail {

namespace {

// n dense elements of `type` at `raw` as doubles. FLOAT and HALF, the common cases,
// convert in tight loops; other types go through loadElement one element at a time.
void widen(const Type &type, const std::uint8_t *raw, std::size_t n, double *values) {
  if (type == FLOAT) {
    for (std::size_t i = 0; i < n; ++i) {
      float f;
      std::memcpy(&f, raw + i * sizeof f, sizeof f);
      values[i] = f;
    }
  } else if (type == HALF) {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t h;
      std::memcpy(&h, raw + i * sizeof h, sizeof h);
      values[i] = halfToFloat(h);
    }
  } else {
    const std::size_t size = typeSize(type);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<double>(loadElement(type, raw + i * size));
  }
}

// 32-bit integers from doubles as storeElement makes them (saturating, NaN to 0): a double
// holds their limits exactly, so this needs none of storeElement's long double arithmetic.
template <class Int> void storeIntegers(const std::vector<double> &values, std::uint8_t *raw) {
  constexpr double lowest = std::numeric_limits<Int>::lowest(), highest = std::numeric_limits<Int>::max();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    const Int x = v != v ? Int(0) : v <= lowest ? Int(lowest) : v >= highest ? Int(highest) : static_cast<Int>(v);
    std::memcpy(raw + i * sizeof x, &x, sizeof x);
  }
}

// Rows a block of ValueRows::forEachRow takes: about this many elements.
constexpr std::size_t kRowBlockElements = 16384;

} // namespace

void readValues(const Access &access, std::vector<double> &values) {
  std::vector<std::uint8_t> raw(access.numElements * access.elemSize);
  access.gather(raw.data());
  values.resize(access.numElements);
  widen(access.type, raw.data(), values.size(), values.data());
}

ValueRows::ValueRows(const Access &access, std::size_t length)
    : access_(access), length_(length), rows_(length ? access.numElements / length : 0) {}

void ValueRows::forEachRow(const std::function<void(std::size_t row, const double *values)> &fn) {
  const std::uint8_t *raw = access_.data();
  if (!access_.contiguous()) {
    gathered_.resize(access_.numElements * access_.elemSize);
    access_.gather(gathered_.data());
    raw = gathered_.data();
  }
  const std::size_t rowBytes = length_ * access_.elemSize;
  parallelBlocks(rows_, std::max<std::size_t>(1, kRowBlockElements / std::max<std::size_t>(length_, 1)),
                 [&](std::size_t begin, std::size_t end, unsigned) {
                   thread_local std::vector<double> values;
                   values.resize(length_);
                   for (std::size_t r = begin; r < end; ++r) {
                     widen(access_.type, raw + r * rowBytes, length_, values.data());
                     fn(r, values.data());
                   }
                 });
}

void writeValues(const Access &access, const std::vector<double> &values) {
  if (values.size() != access.numElements)
    throw poplar_error("a kernel computed " + std::to_string(values.size()) + " values for an output of " +
                       std::to_string(access.numElements) + " elements (a damaged executable?)");
  std::vector<std::uint8_t> raw(access.numElements * access.elemSize);
  if (access.type == FLOAT) {
    std::vector<float> f(access.numElements);
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(values[i]);
    std::memcpy(raw.data(), f.data(), raw.size());
  } else if (access.type == HALF) {
    std::vector<std::uint16_t> h(access.numElements);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = doubleToHalf(static_cast<double>(values[i]));
    std::memcpy(raw.data(), h.data(), raw.size());
  } else if (access.type == INT) {
    storeIntegers<std::int32_t>(values, raw.data());
  } else if (access.type == UNSIGNED_INT) {
    storeIntegers<std::uint32_t>(values, raw.data());
  } else {
    for (std::size_t i = 0; i < access.numElements; ++i)
      storeElement(access.type, raw.data() + i * access.elemSize, values[i]);
  }
  access.scatter(raw.data());
}

} // namespace poplar::detail
