#pragma once
#include <cassert>
#include <climits>
#include <cstddef>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Target.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poputil {

// A new variable mapped like `in`, filled from it by a Copy added to `prog`.
poplar::Tensor duplicate(poplar::Graph &graph, const poplar::Tensor &in,
                         poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {},
                         poplar::TensorCloneMethod method =
                             poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);

poplar::Tensor cloneN(poplar::Graph &graph, const poplar::Tensor &t, unsigned N,
                      const poplar::DebugContext &debugContext = {},
                      poplar::TensorCloneMethod method =
                          poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);

// Sorts the regions, drops empty ones and merges those that touch.
void mergeAdjacentRegions(std::vector<poplar::Interval> &regions);
void mergeAdjacentRegions(std::vector<std::vector<poplar::Interval>> &mapping);

// The intervals of every inner vector, in order.
std::vector<poplar::Interval> flattenIntervals(const std::vector<std::vector<poplar::Interval>> &intervals);

// Splits the regions, in order, into at most maxPartitions partitions of balanced size:
// whole grains of grainSize elements counted from the start of each region, at least
// minElementsPerPartition (rounded up to grains) per partition, no interval longer than
// maxElementsPerRegion. Throws poplibs_error when maxElementsPerPartition cannot be met.
std::vector<std::vector<poplar::Interval>> splitRegions(const std::vector<poplar::Interval> &regions,
                                                        unsigned grainSize, unsigned maxPartitions,
                                                        unsigned minElementsPerPartition = 0,
                                                        unsigned maxElementsPerPartition = UINT_MAX,
                                                        unsigned maxElementsPerRegion = UINT_MAX);
// The same for sequences of regions (each a contiguous stream whose grains are counted
// from its start); a partition is a list of (pieces of) sequences.
std::vector<std::vector<std::vector<poplar::Interval>>>
splitRegions(const std::vector<std::vector<poplar::Interval>> &regions, unsigned grainSize, unsigned maxPartitions,
             unsigned minElementsPerPartition = 0, unsigned maxElementsPerPartition = UINT_MAX,
             unsigned maxElementsPerRegion = UINT_MAX);
// splitRegions into one partition per worker context of the target's tiles.
std::vector<std::vector<poplar::Interval>>
splitRegionsBetweenWorkers(const poplar::Target &target, const std::vector<poplar::Interval> &regions,
                           unsigned grainSize, unsigned minElementsPerPartition = 0,
                           unsigned maxElementsPerPartition = UINT_MAX, unsigned maxElementsPerRegion = UINT_MAX);
std::vector<std::vector<std::vector<poplar::Interval>>>
splitRegionsBetweenWorkers(const poplar::Target &target, const std::vector<std::vector<poplar::Interval>> &regions,
                           unsigned grainSize, unsigned minElementsPerPartition = 0,
                           unsigned maxElementsPerPartition = UINT_MAX, unsigned maxElementsPerRegion = UINT_MAX);

// The number of elements in all the intervals.
std::size_t intervalSequenceNumElements(const std::vector<std::vector<poplar::Interval>> &seq);

// The coordinates of flat (row-major) element `index` of `shape`, and back.
template <class T> std::vector<T> unflattenIndex(const std::vector<T> &shape, std::size_t index) {
  std::vector<T> coordinates(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    coordinates[d] = static_cast<T>(index % shape[d]);
    index /= shape[d];
  }
  assert(index == 0 && "unflattenIndex: index past the end of the shape");
  return coordinates;
}
template <class T> std::size_t flattenIndex(const std::vector<T> &shape, const std::vector<T> &indices) {
  assert(indices.size() == shape.size() && "flattenIndex: one index per dimension");
  std::size_t index = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) index = index * shape[d] + indices[d];
  return index;
}

// splitCount sizes adding up to rangeUpperBound, as equal as they can be (the first
// rangeUpperBound % splitCount get one more).
std::vector<int> balancedPartition(int rangeUpperBound, int splitCount);

} // namespace poputil
