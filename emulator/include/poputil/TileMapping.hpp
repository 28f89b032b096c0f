#pragma once
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Program.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/TensorCloneMethod.hpp>

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

// calcLinearTileMapping of t from `offset`, and the tile after the last one it uses
// (modulo the tile count): the offset for the next tensor.
std::pair<poplar::Graph::TileToTensorMapping, unsigned>
calcLinearTileMappingAndNewOffset(const poplar::Graph &graph, const poplar::Tensor &t, unsigned offset = 0);

// A start tile in [0, numTiles) from a hash of the shape (and seed), to spread small
// tensors over different tiles.
std::size_t chooseMappingOffset(std::size_t numTiles, const std::vector<std::size_t> &shape);
std::size_t chooseMappingOffset(std::size_t numTiles, const std::vector<std::size_t> &shape, std::size_t seed);

// How many more elements the fullest tile holds than a balanced mapping would give it
// (the total spread evenly over all tiles in whole grains, at least minElementsPerTile).
unsigned getTileImbalance(const poplar::Graph::TileToTensorMapping &mapping, unsigned minElementsPerTile = 0,
                          unsigned grainSize = 1);
unsigned getTileImbalance(const poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile = 0,
                          unsigned grainSize = 1);

class TensorUseTrackerState;

// Records which tiles use which elements, then maps each element to a tile that uses it,
// spreading elements used by several tiles evenly over those tiles.
class TensorUseTracker {
  std::unique_ptr<TensorUseTrackerState> st;

public:
  // Uses on tiles startTile.. (or, descending, numTiles - 1 - startTile..).
  TensorUseTracker(unsigned numTiles, unsigned startTile = 0, bool ascendingMappingOrder = true);
  TensorUseTracker(const TensorUseTracker &other);
  TensorUseTracker(TensorUseTracker &&other);
  TensorUseTracker &operator=(const TensorUseTracker &other);
  TensorUseTracker &operator=(TensorUseTracker &&other);
  ~TensorUseTracker();

  enum class MappingMethod {
    // Halo regions (used by several tiles, next to regions used by fewer) to single
    // tiles; the emulator maps them as None does.
    OptimizeHaloRegions,
    // Elements only on tiles that use them (the emulator always maps so).
    ConstrainMappingToUsedTiles,
    None
  };

  // Tile `tile` uses the elements of t.
  void add(const poplar::Graph &graph, unsigned tile, const poplar::Tensor &t);
  // The uses recorded by other, too.
  void add(TensorUseTracker other);
  // Decides a single using tile for every element: the elements used by the same tiles
  // are split over them in grains of grainSize, at least minElementsPerTile per tile.
  // extendPartialUsage (also map the unused elements of the variables used) is not
  // supported by the emulator.
  void resolve(const poplar::Graph &graph, unsigned grainSize, unsigned minElementsPerTile,
               bool extendPartialUsage = false,
               TensorUseTracker::MappingMethod mappingMethod = TensorUseTracker::MappingMethod::None);
  // resolve, then map every used element to its tile.
  void mapTensorsByUse(poplar::Graph &graph, unsigned grainSize, unsigned minElementsPerTile,
                       bool extendPartialUsage = false,
                       TensorUseTracker::MappingMethod mappingMethod = TensorUseTracker::MappingMethod::None);
  bool empty() const;
};

// A clone of t on IPU dstIPU, each element on the same tile of that IPU as the original.
poplar::Tensor cloneToIpu(poplar::Graph &graph, const poplar::Tensor &t, unsigned dstIPU,
                          const poplar::DebugContext &debugContext = {},
                          poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
// A new variable of dstGraph like t, each element on the tile (of dstGraph) that holds it
// in srcGraph. Elements t holds more than once are cloned once per occurrence (the only
// method the emulator supports across graphs is PRESERVE_ORDER_UNLESS_ALIASES).
poplar::Tensor cloneToGraph(poplar::Graph &srcGraph, poplar::Graph &dstGraph, const poplar::Tensor &t,
                            const poplar::DebugContext &debugContext = {},
                            poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
// A clone of t whose elements are all distinct: each element t holds once keeps its tile;
// the elements t holds more than once get one element per occurrence, mapped linearly
// from tile `offset`. Returns the clone and the tile after the last one that mapping used
// (offset when there were no aliases).
std::pair<poplar::Tensor, unsigned> cloneAndExpandAliasing(poplar::Graph &graph, const poplar::Tensor &t,
                                                           unsigned offset = 0,
                                                           const poplar::DebugContext &debugContext = {});

// cloneToIpu, then a Copy of t into the clone added to prog.
poplar::Tensor copyToIpu(poplar::Graph &masterGraph, const poplar::Tensor &t, poplar::program::Sequence &prog,
                         unsigned dstIPU, const poplar::DebugContext &debugContext = {},
                         poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
// cloneToIpu without the Copy: copySrc and copyDst are set to the tensors to copy.
poplar::Tensor createIpuCopy(poplar::Graph &graph, const poplar::Tensor &t, unsigned dstIpu,
                             poplar::Tensor &copySrc, poplar::Tensor &copyDst,
                             const poplar::DebugContext &debugContext = {},
                             poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES);

// Whether the elements along `dimension` lie on more than one tile (IPU).
bool dimIsSplitOverTiles(const poplar::Graph &graph, const poplar::Tensor &t, unsigned dimension);
bool dimIsSplitOverIPUs(const poplar::Graph &graph, const poplar::Tensor &t, unsigned dimension);

// A 1-D tensor of `type` with fullTensor.dim(dim) elements, element i on a tile that holds
// slice i of fullTensor along dim (the one holding most of it; with ditherMapping the
// holding tiles are taken in turn), so broadcasting it over fullTensor needs little exchange.
poplar::Tensor createBroadcastOperand(poplar::Graph &graph, const poplar::Tensor &fullTensor,
                                      const poplar::Type &type, unsigned dim, bool ditherMapping = false,
                                      const poplar::DebugContext &debugContext = {});

// The position of `tile` in the order a mapping from `offset` (ascending or
// descending) uses tiles, and back.
unsigned transformTileIndex(unsigned tile, unsigned numTiles, unsigned offset, bool ascending);
unsigned invTransformTileIndex(unsigned tile, unsigned numTiles, unsigned offset, bool ascending);

} // namespace poputil
