// Queries about tile mappings: balance, split dimensions, mapping offsets.
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <set>

namespace poputil {

using poplar::Interval;

std::pair<poplar::Graph::TileToTensorMapping, unsigned>
calcLinearTileMappingAndNewOffset(const poplar::Graph &graph, const poplar::Tensor &t, unsigned offset) {
  auto mapping = calcLinearTileMapping(graph, t, offset);
  const unsigned numTiles = graph.getTarget().getNumTiles();
  const auto used = std::count_if(mapping.begin(), mapping.end(), [](const std::vector<Interval> &regions) {
    return !regions.empty();
  });
  return {std::move(mapping), static_cast<unsigned>((offset + used) % numTiles)};
}

std::size_t chooseMappingOffset(std::size_t numTiles, const std::vector<std::size_t> &shape) {
  return chooseMappingOffset(numTiles, shape, 0);
}

std::size_t chooseMappingOffset(std::size_t numTiles, const std::vector<std::size_t> &shape, std::size_t seed) {
  if (numTiles == 0) throw poplibs_error("chooseMappingOffset: numTiles must be at least 1");
  // FNV-1a over the dimensions, then the seed: stable across runs and platforms.
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](std::uint64_t v) {
    for (int byte = 0; byte < 8; ++byte, v >>= 8) h = (h ^ (v & 0xff)) * 0x100000001b3ull;
  };
  for (std::size_t d : shape) mix(d);
  mix(seed);
  return static_cast<std::size_t>(h % numTiles);
}

unsigned getTileImbalance(const poplar::Graph::TileToTensorMapping &mapping, unsigned minElementsPerTile,
                          unsigned grainSize) {
  if (grainSize == 0) throw poplibs_error("getTileImbalance: grainSize must be at least 1");
  if (mapping.empty()) return 0;
  std::size_t total = 0, fullest = 0;
  for (const auto &regions : mapping) {
    std::size_t n = 0;
    for (const Interval &i : regions) n += i.size();
    total += n;
    fullest = std::max(fullest, n);
  }
  const std::size_t evenShare = (total + mapping.size() - 1) / mapping.size();
  const std::size_t balanced = std::max<std::size_t>((evenShare + grainSize - 1) / grainSize * grainSize,
                                                     minElementsPerTile);
  return static_cast<unsigned>(fullest > balanced ? fullest - balanced : 0);
}

unsigned getTileImbalance(const poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile,
                          unsigned grainSize) {
  return getTileImbalance(graph.getTileMapping(t), minElementsPerTile, grainSize);
}

namespace {

// The set of tiles (divided by `tilesPerGroup`) holding each index of `dimension`
// differs from one index to the next, or some index spans more than one.
bool dimIsSplit(const poplar::Graph &graph, const poplar::Tensor &t, unsigned dimension, unsigned tilesPerGroup,
                const char *fn) {
  if (dimension >= t.rank())
    throw poplibs_error(std::string(fn) + ": dimension " + std::to_string(dimension) + " is out of range for " +
                        t.getVarStr() + " of rank " + std::to_string(t.rank()));
  if (t.dim(dimension) < 2) return false;
  // Moving `dimension` innermost makes each run of dim(dimension) flat indices one
  // line along it; the dimension is split when any line touches two groups.
  std::vector<unsigned> order;
  for (unsigned d = 0; d < t.rank(); ++d)
    if (d != dimension) order.push_back(d);
  order.push_back(dimension);
  const poplar::Tensor lines = t.dimShuffle(order);
  const auto mapping = graph.getTileMapping(lines);
  const std::size_t line = t.dim(dimension);
  std::vector<unsigned> groupOf(lines.numElements());
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const Interval &i : mapping[tile])
      for (std::size_t e = i.begin(); e < i.end(); ++e) groupOf[e] = tile / tilesPerGroup;
  for (std::size_t begin = 0; begin < groupOf.size(); begin += line)
    for (std::size_t e = begin + 1; e < begin + line; ++e)
      if (groupOf[e] != groupOf[begin]) return true;
  return false;
}

} // namespace

bool dimIsSplitOverTiles(const poplar::Graph &graph, const poplar::Tensor &t, unsigned dimension) {
  return dimIsSplit(graph, t, dimension, 1, "dimIsSplitOverTiles");
}

bool dimIsSplitOverIPUs(const poplar::Graph &graph, const poplar::Tensor &t, unsigned dimension) {
  return dimIsSplit(graph, t, dimension, graph.getTarget().getTilesPerIPU(), "dimIsSplitOverIPUs");
}

unsigned transformTileIndex(unsigned tile, unsigned numTiles, unsigned offset, bool ascending) {
  const unsigned position = ascending ? tile : numTiles - 1 - tile;
  return (position + numTiles - offset % numTiles) % numTiles;
}

unsigned invTransformTileIndex(unsigned tile, unsigned numTiles, unsigned offset, bool ascending) {
  const unsigned position = (tile + offset) % numTiles;
  return ascending ? position : numTiles - 1 - position;
}

} // namespace poputil
