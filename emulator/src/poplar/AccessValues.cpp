#include "AccessValues.hpp"

#include <cstring>
#include <string>

#include <poplar/exceptions.hpp>

#include "TypeInfo.hpp"

namespace poplar::detail {

// FLOAT and HALF, the common cases, convert in tight loops; other types go through
// loadElement/storeElement one element at a time.
void readValues(const Access &access, std::vector<double> &values) {
  std::vector<std::uint8_t> raw(access.numElements * access.elemSize);
  access.gather(raw.data());
  values.resize(access.numElements);
  if (access.type == FLOAT) {
    std::vector<float> f(values.size());
    std::memcpy(f.data(), raw.data(), raw.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = f[i];
  } else if (access.type == HALF) {
    std::vector<std::uint16_t> h(values.size());
    std::memcpy(h.data(), raw.data(), raw.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = halfToFloat(h[i]);
  } else {
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<double>(loadElement(access.type, raw.data() + i * access.elemSize));
  }
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
  } else {
    for (std::size_t i = 0; i < access.numElements; ++i)
      storeElement(access.type, raw.data() + i * access.elemSize, values[i]);
  }
  access.scatter(raw.data());
}

} // namespace poplar::detail
