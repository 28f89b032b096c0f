#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {

// params[r][indices[r]] -= 1 for each row r of the 2-D FLOAT or HALF params, the 1-D
// UNSIGNED_INT indices holding one per row: MASKED_LABEL_CODE leaves the row as it is,
// an index past the row sets the whole row to NaN.
void updateScalarInRows(poplar::Graph &graph, const poplar::Tensor &params, const poplar::Tensor &indices,
                        poplar::program::Sequence &program, const poplar::DebugContext &debugContext = {});

} // namespace popops
