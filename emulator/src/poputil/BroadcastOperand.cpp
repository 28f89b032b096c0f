#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <map>

namespace poputil {

poplar::Tensor createBroadcastOperand(poplar::Graph &graph, const poplar::Tensor &fullTensor,
                                      const poplar::Type &type, unsigned dim, bool ditherMapping,
                                      const poplar::DebugContext &debugContext) {
  if (dim >= fullTensor.rank())
    throw poplibs_error("createBroadcastOperand: dimension " + std::to_string(dim) + " is out of range for " +
                        fullTensor.getVarStr() + " of rank " + std::to_string(fullTensor.rank()));
  const std::size_t n = fullTensor.dim(dim);
  const poplar::Tensor operand = graph.addVariable(type, {n}, debugContext);
  for (std::size_t i = 0; i < n; ++i) {
    const auto mapping = graph.getTileMapping(fullTensor.slice(i, i + 1, dim));
    std::map<unsigned, std::size_t> held; // tile -> elements of slice i, in tile order
    for (unsigned tile = 0; tile < mapping.size(); ++tile)
      for (const auto &interval : mapping[tile]) held[tile] += interval.size();
    unsigned chosen = 0;
    if (ditherMapping) {
      auto it = held.begin();
      std::advance(it, static_cast<long>(i % held.size()));
      chosen = it->first;
    } else {
      std::size_t most = 0;
      for (const auto &kv : held)
        if (kv.second > most) {
          most = kv.second;
          chosen = kv.first;
        }
    }
    graph.setTileMapping(operand[i], chosen);
  }
  return operand;
}

} // namespace poputil
