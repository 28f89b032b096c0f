#pragma once
// log(softmax(t)) over the innermost dimension: t - max - log(sum(exp(t - max))), per row.
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {

void logSoftmaxInPlace(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});
poplar::Tensor logSoftmax(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {});

} // namespace popnn
