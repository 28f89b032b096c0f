#pragma once
// FLOAT or HALF operands staged as floats, for kernels that compute in float.
#include <cstdint>
#include <string>
#include <vector>

#include <poplar/exceptions.hpp>

#include "poplar/Access.hpp"
#include "poplar/HalfConversion.hpp"

namespace poplin::detail {

// The operand's elements as floats, in its flat order.
inline void loadAsFloat(const poplar::detail::Access &a, std::vector<float> &values) {
  values.resize(a.numElements);
  if (a.type == poplar::FLOAT) return a.gather(values.data());
  std::vector<std::uint16_t> halves(a.numElements);
  a.gather(halves.data());
  poplar::detail::halvesToFloats(halves.data(), values.data(), halves.size());
}

// Writes `values` to the operand, rounded once to its type.
inline void storeFromFloat(const poplar::detail::Access &a, const std::vector<float> &values) {
  if (values.size() != a.numElements)
    throw poplar::poplar_error("a kernel computed " + std::to_string(values.size()) + " values for an output of " +
                               std::to_string(a.numElements) + " elements (a damaged executable?)");
  if (a.type == poplar::FLOAT) return a.scatter(values.data());
  std::vector<std::uint16_t> halves(values.size());
  poplar::detail::floatsToHalves(values.data(), halves.data(), halves.size());
  a.scatter(halves.data());
}

} // namespace poplin::detail
