// Clones of tensors on another IPU of a multi-IPU target, tile for tile.
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

namespace poputil {

poplar::Tensor cloneToIpu(poplar::Graph &graph, const poplar::Tensor &t, unsigned dstIPU,
                          const poplar::DebugContext &debugContext, poplar::TensorCloneMethod method) {
  const poplar::Target &target = graph.getTarget();
  if (dstIPU >= target.getNumIPUs())
    throw poplibs_error("cloneToIpu: IPU " + std::to_string(dstIPU) + " is out of range: the target has " +
                        std::to_string(target.getNumIPUs()) + " IPU(s)");
  const poplar::Tensor clone = graph.clone(t, debugContext, method);
  const unsigned tilesPerIPU = target.getTilesPerIPU();
  const auto mapping = graph.getTileMapping(clone, false);
  poplar::Graph::TileToTensorMapping moved(target.getNumTiles());
  for (unsigned tile = 0; tile < mapping.size(); ++tile) {
    auto &regions = moved[dstIPU * tilesPerIPU + tile % tilesPerIPU];
    regions.insert(regions.end(), mapping[tile].begin(), mapping[tile].end());
  }
  graph.setTileMapping(clone, moved);
  return clone;
}

poplar::Tensor createIpuCopy(poplar::Graph &graph, const poplar::Tensor &t, unsigned dstIpu,
                             poplar::Tensor &copySrc, poplar::Tensor &copyDst,
                             const poplar::DebugContext &debugContext, poplar::TensorCloneMethod method) {
  const poplar::Tensor clone = cloneToIpu(graph, t, dstIpu, debugContext, method);
  copySrc = t;
  copyDst = clone;
  return clone;
}

poplar::Tensor copyToIpu(poplar::Graph &masterGraph, const poplar::Tensor &t, poplar::program::Sequence &prog,
                         unsigned dstIPU, const poplar::DebugContext &debugContext,
                         poplar::TensorCloneMethod method) {
  const poplar::Tensor clone = cloneToIpu(masterGraph, t, dstIPU, debugContext, method);
  prog.add(poplar::program::Copy(t, clone, false, debugContext));
  return clone;
}

} // namespace poputil
