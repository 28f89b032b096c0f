#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {

// out[i] = params[i][indices[i]] for the 2-D FLOAT or HALF params and the 1-D
// UNSIGNED_INT indices (one per row): NaN for an index past the row, 0 for
// MASKED_LABEL_CODE.
poplar::Tensor selectScalarFromRows(poplar::Graph &graph, const poplar::Tensor &params,
                                    const poplar::Tensor &indices, poplar::program::Sequence &prog,
                                    const poplar::DebugContext &debugContext = {});

} // namespace popops
