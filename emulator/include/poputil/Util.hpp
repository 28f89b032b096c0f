#pragma once
#include <algorithm>
#include <cassert>
#include <climits>
#include <cstddef>
#include <vector>

#include <poplar/DebugContext.hpp>

#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Target.hpp>
#include <poplar/Program.hpp>
#include <poplar/Quarter.hpp>
#include <poplar/Tensor.hpp>

namespace poputil {

// Deprecated in the SDK for poplar's (MetadataCreation.hpp): a QUARTER_METADATA constant or
// variable holding this format and scale.
poplar::Tensor createConstantMetadataTensor(poplar::Graph &graph, poplar::QuarterMetadata::Format fp8Format,
                                            int fp8Scale);
poplar::Tensor createVariableMetadataTensor(poplar::Graph &graph, poplar::QuarterMetadata::Format fp8Format,
                                            int fp8Scale);

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

// `input` rounded to the nearest value the target's HALF type holds (through float, as
// the host converts it for the device).
double castToDeviceHalfValue(const poplar::Target &target, double input);

// Whether `input`, held as inputType, keeps its value to within a relative `tolerance`
// when cast to outputType, without overflowing. Both types must be HALF or FLOAT.
bool checkAccuracyWhenCast(const poplar::Target &target, double input, poplar::Type inputType,
                           poplar::Type outputType, double tolerance);

// Splits each dimension startDim + i of t into [size / factors[i], factors[i]] and moves
// every factor part inside all the factored dimensions: shape [4, 6, 4] with factors
// [1, 2] becomes [4, 3, 1, 2, 4]. Each factor must divide its dimension.
poplar::Tensor factorDims(const poplar::Tensor &t, const std::vector<std::size_t> &factors,
                          unsigned startDim = 0);
// The inverse of factorDims over numDims dimensions from startDim.
poplar::Tensor unfactorDims(const poplar::Tensor &t, unsigned numDims, unsigned startDim = 0);

// For intervals that cover [0, n) once each and shuffle a tensor as
// concat(t.slices(intervals)), the intervals that shuffle the result back.
std::vector<poplar::Interval> calculateUnshufflingIntervals(const std::vector<poplar::Interval> &intervals);

} // namespace poputil
