#pragma once
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace popops {

// A mapped tensor of outputType, shaped like the inputs (which must all have one shape),
// for an element-wise operation: laid out like the input that spreads its elements best
// (complete mapping, no aliases or constants, the fewest elements on its fullest tile),
// else mapped linearly.
poplar::Tensor createOutputForElementWiseOp(poplar::Graph &graph, const std::vector<poplar::Tensor> &inputs,
                                            const poplar::Type &outputType,
                                            const poplar::DebugContext &debugContext = {});

} // namespace popops
