#pragma once
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {

struct GatherParams {
  // A suggested bound on the elements of the gather on one tile (layout only).
  std::size_t maxElementsPerTile = 65535;

  GatherParams() = default;
  GatherParams(std::size_t maxElementsPerTile_) : maxElementsPerTile(maxElementsPerTile_) {}
};

// A new tensor of operandShape spread over the tiles, to be gathered from on `axis`.
poplar::Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &operandShape, unsigned axis,
                                 GatherParams params = {}, const poplar::DebugContext &debugContext = {});

// numpy's take along `axis`: input's shape with `axis` replaced by indices' shape.
// Indices (INT or UNSIGNED_INT) are clamped into the axis, as XLA's gather clamps. The
// options: remapOutOfBoundIndices (true, false; =false) gathers index 0 for an index out
// of bounds; paddingIndexUsed (true, false; =false) gathers zeros for an index equal to the
// size of its dimension.
poplar::Tensor gather(poplar::Graph &graph, const poplar::Tensor &input, const poplar::Tensor &indices,
                      unsigned axis, poplar::program::Sequence &prog, GatherParams params,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &optionFlags = {});

// A new tensor of inputShape spread over the tiles, for the gather below.
poplar::Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &inputShape,
                                 const std::vector<std::size_t> &sliceSizes, std::vector<unsigned> startIndexMap,
                                 const poplar::DebugContext &debugContext = {});

// XLA's gather: slices of sliceSizes of input, each starting where a vector of `indices`
// (along indexVectorDim; scalars when it equals indices' rank) says through
// startIndexMap, clamped to fit; collapsedSliceDims (of size 1) are dropped and the
// slices' other dimensions become the output's offsetDims. The options are those above:
// out of bounds means a slice that does not fit.
poplar::Tensor gather(poplar::Graph &graph, const poplar::Tensor &input, const poplar::Tensor &indices,
                      std::size_t indexVectorDim, const std::vector<std::size_t> &offsetDims,
                      const std::vector<std::size_t> &sliceSizes, const std::vector<std::size_t> &collapsedSliceDims,
                      const std::vector<unsigned> &startIndexMap, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &optionFlags = {});

} // namespace popops
