#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>

namespace poputil {

using poplar::Interval;

std::vector<std::vector<Interval>> calcLinearTileMapping(const poplar::Target &target,
                                                         std::vector<std::size_t> shape,
                                                         unsigned minElementsPerTile,
                                                         unsigned grainSize, unsigned offset,
                                                         bool ascendingOrder) {
  if (grainSize == 0) throw poplibs_error("calcLinearTileMapping: grainSize must be at least 1");
  const unsigned numTiles = target.getNumTiles();
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  const std::size_t grains = (n + grainSize - 1) / grainSize;
  const std::size_t minGrains = (minElementsPerTile + grainSize - 1) / grainSize;
  const std::size_t grainsPerTile = std::max<std::size_t>({(grains + numTiles - 1) / numTiles, minGrains, 1});
  std::vector<std::vector<Interval>> mapping(numTiles);
  for (std::size_t i = 0, begin = 0; begin < n; ++i, begin += grainsPerTile * grainSize) {
    const std::size_t step = (offset + i) % numTiles;
    const unsigned tile = static_cast<unsigned>(ascendingOrder ? step : numTiles - 1 - step);
    mapping[tile].emplace_back(begin, std::min(n, begin + grainsPerTile * grainSize));
  }
  return mapping;
}

std::vector<std::vector<Interval>> calcLinearTileMapping(const poplar::Graph &graph,
                                                         std::vector<std::size_t> shape,
                                                         unsigned minElementsPerTile,
                                                         unsigned grainSize, unsigned offset,
                                                         bool ascendingOrder) {
  return calcLinearTileMapping(graph.getTarget(), std::move(shape), minElementsPerTile, grainSize,
                               offset, ascendingOrder);
}

std::vector<std::vector<Interval>> calcLinearTileMapping(const poplar::Target &target,
                                                         const std::vector<std::size_t> shape,
                                                         poplar::Type elementType, unsigned offset,
                                                         bool ascendingOrder) {
  const unsigned grain = target.getVectorWidth(elementType);
  const unsigned minElements = (128 + target.getTypeSize(elementType) - 1) / target.getTypeSize(elementType);
  return calcLinearTileMapping(target, shape, minElements, grain, offset, ascendingOrder);
}

std::vector<std::vector<Interval>> calcLinearTileMapping(const poplar::Graph &graph,
                                                         const poplar::Tensor &t, unsigned offset,
                                                         bool ascendingOrder) {
  return calcLinearTileMapping(graph.getTarget(), t.shape(), t.elementType(), offset, ascendingOrder);
}

void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile,
                       unsigned grainSize) {
  mapTensorLinearlyWithOffset(graph, t, minElementsPerTile, grainSize, 0);
}

void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t) {
  mapTensorLinearlyWithOffset(graph, t, 0);
}

void mapTensorLinearlyWithOffset(poplar::Graph &graph, const poplar::Tensor &t,
                                 unsigned minElementsPerTile, unsigned grainSize, unsigned offset,
                                 bool ascendingOrder) {
  graph.setTileMapping(t, calcLinearTileMapping(graph, t.shape(), minElementsPerTile, grainSize,
                                                offset, ascendingOrder));
}

void mapTensorLinearlyWithOffset(poplar::Graph &graph, const poplar::Tensor &t, unsigned offset,
                                 bool ascendingOrder) {
  graph.setTileMapping(t, calcLinearTileMapping(graph, t, offset, ascendingOrder));
}

} // namespace poputil
