// Virtual graphs (Graph::createVirtualGraph): a graph's state seen through some of its
// tiles, numbered from 0. The Graph object carries the tiles (VirtualTiles); everything
// else is the top-level graph's, so programs built on either run in one Engine.
#include <string>
#include <vector>

#include <poplar/Graph.hpp>

#include "GraphState.hpp"

namespace poplar {

using detail::GraphState;

Graph::Graph(std::shared_ptr<GraphState> state, std::shared_ptr<const detail::VirtualTiles> view)
    : state_(std::move(state)), view_(std::move(view)) {}

Graph &Graph::getTopLevelGraph() {
  if (!view_) return *this;
  if (!state_->topLevel)
    throw poplar_error("Graph::getTopLevelGraph: the graph this virtual graph was made from no longer exists");
  return *state_->topLevel;
}

unsigned Graph::topLevelTile(unsigned tile) const { return view_ ? view_->tiles[tile] : tile; }

unsigned Graph::convertVirtualTileToPhysicalTile(unsigned virtualTileId) const {
  if (virtualTileId >= getTarget().getNumTiles())
    throw invalid_tile_mapping("Graph::convertVirtualTileToPhysicalTile: tile " + std::to_string(virtualTileId) +
                               " does not exist (the graph has " + std::to_string(getTarget().getNumTiles()) +
                               " tiles)");
  return topLevelTile(virtualTileId);
}

unsigned Graph::convertPhysicalTileToVirtualTile(unsigned physicalTileId) const {
  const unsigned tiles = state_->target.getNumTiles();
  if (physicalTileId >= tiles)
    throw invalid_tile_mapping("Graph::convertPhysicalTileToVirtualTile: tile " + std::to_string(physicalTileId) +
                               " does not exist (the top-level graph has " + std::to_string(tiles) + " tiles)");
  if (!view_) return physicalTileId;
  const unsigned tile = view_->virtualTile[physicalTileId];
  if (tile == detail::VirtualTiles::kNotHere)
    throw invalid_tile_mapping("Graph::convertPhysicalTileToVirtualTile: tile " + std::to_string(physicalTileId) +
                               " is not one of this virtual graph's tiles");
  return tile;
}

Graph Graph::virtualGraph(const Target &target, std::vector<unsigned> tiles, const std::string &what) {
  auto view = std::make_shared<detail::VirtualTiles>();
  view->target = target;
  view->virtualTile.assign(state_->target.getNumTiles(), detail::VirtualTiles::kNotHere);
  for (unsigned i = 0; i < tiles.size(); ++i) {
    tiles[i] = topLevelTile(tiles[i]);
    if (view->virtualTile[tiles[i]] != detail::VirtualTiles::kNotHere)
      throw invalid_tile_mapping(what + ": tile " + std::to_string(tiles[i]) + " is named twice");
    view->virtualTile[tiles[i]] = i;
  }
  view->tiles = std::move(tiles);
  return Graph(state_, std::move(view));
}

Graph Graph::createVirtualGraph(unsigned numTilesPerIPU) {
  const Target &t = getTarget();
  if (numTilesPerIPU == 0 || numTilesPerIPU > t.getTilesPerIPU())
    throw invalid_tile_mapping("Graph::createVirtualGraph: " + std::to_string(numTilesPerIPU) +
                               " tiles per IPU is not between 1 and the graph's " +
                               std::to_string(t.getTilesPerIPU()));
  std::vector<unsigned> tiles;
  for (unsigned ipu = 0; ipu < t.getNumIPUs(); ++ipu)
    for (unsigned k = 0; k < numTilesPerIPU; ++k) tiles.push_back(ipu * t.getTilesPerIPU() + k);
  return virtualGraph(t.createVirtualTarget(t.getNumIPUs(), numTilesPerIPU), std::move(tiles),
                      "Graph::createVirtualGraph");
}

Graph Graph::createVirtualGraph(unsigned lowerTile, unsigned upperTile) {
  const Target &t = getTarget();
  const unsigned perIpu = t.getTilesPerIPU();
  const std::string what = "Graph::createVirtualGraph(" + std::to_string(lowerTile) + ", " +
                           std::to_string(upperTile) + ")";
  if (lowerTile >= upperTile || upperTile > t.getNumTiles())
    throw invalid_tile_mapping(what + ": needs 0 <= lowerTile < upperTile <= " + std::to_string(t.getNumTiles()) +
                               " (the graph's tiles)");
  const bool oneIpu = lowerTile / perIpu == (upperTile - 1) / perIpu;
  if (!oneIpu && (lowerTile % perIpu || upperTile % perIpu))
    throw invalid_tile_mapping(what + ": the range must lie within one IPU or cover whole IPUs of " +
                               std::to_string(perIpu) + " tiles");
  std::vector<unsigned> tiles;
  for (unsigned tile = lowerTile; tile < upperTile; ++tile) tiles.push_back(tile);
  const Target target = oneIpu ? t.createVirtualTarget(1, upperTile - lowerTile)
                               : t.createVirtualTarget((upperTile - lowerTile) / perIpu, perIpu);
  return virtualGraph(target, std::move(tiles), what);
}

Graph Graph::createVirtualGraph(const std::vector<unsigned> &perIpuTiles) {
  const Target &t = getTarget();
  if (perIpuTiles.empty()) throw invalid_tile_mapping("Graph::createVirtualGraph: perIpuTiles is empty");
  std::vector<unsigned> tiles;
  for (unsigned ipu = 0; ipu < t.getNumIPUs(); ++ipu)
    for (unsigned k : perIpuTiles) {
      if (k >= t.getTilesPerIPU())
        throw invalid_tile_mapping("Graph::createVirtualGraph: tile " + std::to_string(k) +
                                   " of perIpuTiles is not below the graph's " +
                                   std::to_string(t.getTilesPerIPU()) + " tiles per IPU");
      tiles.push_back(ipu * t.getTilesPerIPU() + k);
    }
  return virtualGraph(t.createVirtualTarget(t.getNumIPUs(), static_cast<unsigned>(perIpuTiles.size())),
                      std::move(tiles), "Graph::createVirtualGraph");
}

} // namespace poplar
