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
template <class Int> void storeIntegers(const double *values, std::size_t n, std::uint8_t *raw) {
  constexpr double lowest = std::numeric_limits<Int>::lowest(), highest = std::numeric_limits<Int>::max();
  for (std::size_t i = 0; i < n; ++i) {
    const double v = values[i];
    const Int x = v != v ? Int(0) : v <= lowest ? Int(lowest) : v >= highest ? Int(highest) : static_cast<Int>(v);
    std::memcpy(raw + i * sizeof x, &x, sizeof x);
  }
}

// n doubles stored densely as `type` at raw, with storeElement's conversions.
void narrow(const Type &type, const double *values, std::size_t n, std::uint8_t *raw) {
  if (type == FLOAT) {
    for (std::size_t i = 0; i < n; ++i) {
      const float f = static_cast<float>(values[i]);
      std::memcpy(raw + i * sizeof f, &f, sizeof f);
    }
  } else if (type == HALF) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint16_t h = doubleToHalf(values[i]);
      std::memcpy(raw + i * sizeof h, &h, sizeof h);
    }
  } else if (type == INT) {
    storeIntegers<std::int32_t>(values, n, raw);
  } else if (type == UNSIGNED_INT) {
    storeIntegers<std::uint32_t>(values, n, raw);
  } else {
    const std::size_t size = typeSize(type);
    for (std::size_t i = 0; i < n; ++i) storeElement(type, raw + i * size, values[i]);
  }
}

// Rows a block of ValueRows::forEachRow takes: about this many elements.
constexpr std::size_t kRowBlockElements = 16384;

} // namespace

// Dense operands are read and written where they lie: a buffer of a large operand's size
// costs its page faults at every run.
void readValues(const Access &access, std::vector<double> &values) {
  values.resize(access.numElements);
  if (access.contiguous()) return widen(access.type, access.data(), values.size(), values.data());
  std::vector<std::uint8_t> raw(access.numElements * access.elemSize);
  access.gather(raw.data());
  widen(access.type, raw.data(), values.size(), values.data());
}

void writeValues(const Access &access, const std::vector<double> &values) {
  if (values.size() != access.numElements)
    throw poplar_error("a kernel computed " + std::to_string(values.size()) + " values for an output of " +
                       std::to_string(access.numElements) + " elements (a damaged executable?)");
  if (access.contiguous()) return narrow(access.type, values.data(), values.size(), access.data());
  std::vector<std::uint8_t> raw(access.numElements * access.elemSize);
  narrow(access.type, values.data(), values.size(), raw.data());
  access.scatter(raw.data());
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

} // namespace poplar::detail
