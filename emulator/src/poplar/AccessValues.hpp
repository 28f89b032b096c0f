#pragma once
// Whole-operand value access for kernels that are not on a hot path (losses, random
// generation): every element of an Access as a double, in the tensor's flat order.
#include <vector>

#include "Access.hpp"

namespace poplar::detail {

// Reads every element (integers up to 2^53 exactly, half widened).
void readValues(const Access &access, std::vector<double> &values);
// Stores every element with C++ conversion rules (integers truncate, half rounds).
void writeValues(const Access &access, const std::vector<double> &values);

} // namespace poplar::detail
