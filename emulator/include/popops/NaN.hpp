#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

// A new BOOL scalar: whether any element of the FLOAT or HALF src is NaN.
poplar::Tensor hasNaN(poplar::Graph &graph, const poplar::Tensor &src, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});
// A new BOOL scalar: whether any element of the FLOAT or HALF src is NaN or infinite.
poplar::Tensor hasNaNOrInf(poplar::Graph &graph, const poplar::Tensor &src, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {});

} // namespace popops
