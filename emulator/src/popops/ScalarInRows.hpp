#pragma once
// What selectScalarFromRows and updateScalarInRows check of their operands.
#include <poplar/Tensor.hpp>

namespace popops::detail {

// params 2-D FLOAT or HALF, indices 1-D UNSIGNED_INT with one element per row.
void checkScalarInRows(const char *fn, const poplar::Tensor &params, const poplar::Tensor &indices);

} // namespace popops::detail
