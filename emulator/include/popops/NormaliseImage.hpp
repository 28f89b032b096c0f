#pragma once
#include <poplar/ArrayRef.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {

// A new tensor of `shape` (innermost dimension 3 channels; UNSIGNED_CHAR, HALF or FLOAT)
// spread over the tiles, to be the input of normaliseImage.
poplar::Tensor createNormaliseImageInput(poplar::Graph &graph, const poplar::Type &type,
                                         const poplar::ArrayRef<std::size_t> shape,
                                         const poplar::DebugContext &debugContext = {});

// The image tIn padded to 4 channels, channel c < 3 being (tIn[c] * inScale - offsets[c])
// * scales[c] and channel 3 zero. UNSIGNED_CHAR images give HALF, others keep their type;
// offsets and scales are [3] of the output's type.
poplar::Tensor normaliseImage(poplar::Graph &graph, poplar::program::Sequence &seq, poplar::Tensor tIn,
                              float inScale, poplar::Tensor offsets, poplar::Tensor scales,
                              const poplar::DebugContext &debugContext = {});

} // namespace popops
