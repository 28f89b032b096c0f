#include <popops/ElementWiseUtil.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <limits>

#include "KernelSupport.hpp"

namespace popops {

poplar::Tensor createOutputForElementWiseOp(poplar::Graph &graph, const std::vector<poplar::Tensor> &inputs,
                                            const poplar::Type &outputType,
                                            const poplar::DebugContext &debugContext) {
  if (inputs.empty())
    throw poputil::poplibs_error("createOutputForElementWiseOp: needs at least one input tensor as a reference");
  for (const poplar::Tensor &t : inputs)
    if (t.shape() != inputs[0].shape())
      throw poputil::poplibs_error("createOutputForElementWiseOp: the inputs " + detail::describe(inputs[0]) +
                                   " and " + detail::describe(t) + " differ in shape");
  const poplar::Tensor *best = nullptr;
  std::size_t bestFullest = std::numeric_limits<std::size_t>::max();
  for (const poplar::Tensor &t : inputs) {
    if (t.containsAliases() || t.containsConstant()) continue;
    bool complete = false;
    const auto mapping = graph.getTileMapping(t, &complete);
    if (!complete) continue;
    std::size_t fullest = 0;
    for (const auto &regions : mapping) {
      std::size_t n = 0;
      for (const auto &interval : regions) n += interval.size();
      fullest = std::max(fullest, n);
    }
    if (fullest < bestFullest) {
      best = &t;
      bestFullest = fullest;
    }
  }
  if (best) return graph.clone(outputType, *best, debugContext);
  return detail::createLinearOutput(graph, outputType, inputs[0].shape(), debugContext);
}

} // namespace popops
