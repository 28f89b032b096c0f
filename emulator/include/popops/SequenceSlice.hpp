#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {

// For each entry j of the 1-D UNSIGNED_INT tN, tInOffset and tOutOffset (one size):
//   tOut[tOutOffset[j] : tOutOffset[j] + tN[j]] = tIn[tInOffset[j] : tInOffset[j] + tN[j]]
// along the outermost dimension (rank >= 2, the inner dimensions holding as many
// elements in both); rows past either end are not copied. With zeroUnused, the rows of
// tOut no entry writes become zero.
void sequenceSlice(poplar::Graph &graph, const poplar::Tensor &tIn, const poplar::Tensor &tOut,
                   const poplar::Tensor &tN, const poplar::Tensor &tInOffset, const poplar::Tensor &tOutOffset,
                   bool zeroUnused, poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops
