#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {

// A new BOOL scalar: the logical AND of every element of the BOOL tensor A.
poplar::Tensor allTrue(poplar::Graph &graph, poplar::Tensor A, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});

} // namespace popops
