#pragma once
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

struct IndicesAndTensor {
  poplar::Tensor indices;
  poplar::Tensor tensor;
};

// A 2-D tensor of `shape` ([slices][elements of one stream or remote-buffer row]) laid
// out for host copies, and an UNSIGNED_INT index per slice (shape[0] of them).
IndicesAndTensor createHostSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                           const std::vector<size_t> &shape, const bool isRead,
                                           const poplar::DebugContext &debugContext = {});

// A tensor of `shape` laid out for host copies (read by the host when isRead).
poplar::Tensor createHostTransferableTensor(poplar::Graph &graph, const poplar::Type &type,
                                            const std::vector<size_t> &shape, bool isRead,
                                            const poplar::DebugContext &debugContext = {});

} // namespace popops
