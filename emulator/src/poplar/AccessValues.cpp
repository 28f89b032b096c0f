#include "AccessValues.hpp"

#include "TypeInfo.hpp"

namespace poplar::detail {

void readValues(const Access &access, std::vector<double> &values) {
  std::vector<std::uint8_t> raw(access.numElements * access.elemSize);
  access.gather(raw.data());
  values.resize(access.numElements);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<double>(loadElement(access.type, raw.data() + i * access.elemSize));
}

void writeValues(const Access &access, const std::vector<double> &values) {
  std::vector<std::uint8_t> raw(access.numElements * access.elemSize);
  for (std::size_t i = 0; i < access.numElements; ++i)
    storeElement(access.type, raw.data() + i * access.elemSize, values[i]);
  access.scatter(raw.data());
}

} // namespace poplar::detail
