#pragma once
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>

namespace poputil {

// Splits the flattened shape into runs of whole grains spread over the tiles in
// order, at least minElementsPerTile per used tile, starting at tile `offset`.
std::vector<std::vector<poplar::Interval>>
calcLinearTileMapping(const poplar::Target &target, std::vector<std::size_t> shape,
                      unsigned minElementsPerTile, unsigned grainSize, unsigned offset = 0,
                      bool ascendingOrder = true);
std::vector<std::vector<poplar::Interval>>
calcLinearTileMapping(const poplar::Graph &graph, std::vector<std::size_t> shape,
                      unsigned minElementsPerTile, unsigned grainSize, unsigned offset = 0,
                      bool ascendingOrder = true);
// Grain: the type's vector width; at least 128 bytes per used tile.
std::vector<std::vector<poplar::Interval>>
calcLinearTileMapping(const poplar::Target &target, const std::vector<std::size_t> shape,
                      poplar::Type elementType, unsigned offset = 0, bool ascendingOrder = true);
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Graph &graph,
                                                                 const poplar::Tensor &t,
                                                                 unsigned offset = 0,
                                                                 bool ascendingOrder = true);

void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile,
                       unsigned grainSize);
void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t);
void mapTensorLinearlyWithOffset(poplar::Graph &graph, const poplar::Tensor &t,
                                 unsigned minElementsPerTile, unsigned grainSize, unsigned offset,
                                 bool ascendingOrder = true);
void mapTensorLinearlyWithOffset(poplar::Graph &graph, const poplar::Tensor &t,
                                 unsigned offset = 0, bool ascendingOrder = true);

} // namespace poputil
