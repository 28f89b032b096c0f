#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poputil {

// A new variable mapped like `in`, filled from it by a Copy added to `prog`.
poplar::Tensor duplicate(poplar::Graph &graph, const poplar::Tensor &in,
                         poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {},
                         poplar::TensorCloneMethod method =
                             poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);

poplar::Tensor cloneN(poplar::Graph &graph, const poplar::Tensor &t, unsigned N,
                      const poplar::DebugContext &debugContext = {},
                      poplar::TensorCloneMethod method =
                          poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);

} // namespace poputil
