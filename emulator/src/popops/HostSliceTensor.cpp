#include <popops/HostSliceTensor.hpp>

#include <poputil/exceptions.hpp>

#include "KernelSupport.hpp"

namespace popops {

using poplar::Tensor;

// The emulator's host copies cost the same whatever the layout: both spread the
// elements over the tiles.
Tensor createHostTransferableTensor(poplar::Graph &graph, const poplar::Type &type,
                                    const std::vector<size_t> &shape, bool,
                                    const poplar::DebugContext &debugContext) {
  return detail::createLinearOutput(graph, type, shape, debugContext);
}

IndicesAndTensor createHostSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                           const std::vector<size_t> &shape, const bool isRead,
                                           const poplar::DebugContext &debugContext) {
  if (shape.size() != 2)
    throw poputil::poplibs_error("createHostSliceableTensor: shape " + detail::bracketed(shape) +
                                 " must have two dimensions, [slices][elements per slice]");
  IndicesAndTensor made;
  made.indices = detail::createLinearOutput(graph, poplar::UNSIGNED_INT, {shape[0]}, {debugContext, "indices"});
  made.tensor = createHostTransferableTensor(graph, type, shape, isRead, debugContext);
  return made;
}

} // namespace popops
