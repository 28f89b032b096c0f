// Interval helpers: merging, flattening, splitting regions into balanced partitions and
// undoing a shuffle by intervals.
#include <poputil/Util.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <string>

namespace poputil {

using poplar::Interval;

void mergeAdjacentRegions(std::vector<Interval> &regions) {
  std::sort(regions.begin(), regions.end());
  std::vector<Interval> merged;
  for (const Interval &r : regions) {
    if (r.size() == 0) continue;
    if (!merged.empty() && merged.back().end() == r.begin()) merged.back() = Interval(merged.back().begin(), r.end());
    else merged.push_back(r);
  }
  regions.swap(merged);
}

void mergeAdjacentRegions(std::vector<std::vector<Interval>> &mapping) {
  for (auto &regions : mapping) mergeAdjacentRegions(regions);
}

std::vector<Interval> flattenIntervals(const std::vector<std::vector<Interval>> &intervals) {
  std::vector<Interval> flat;
  for (const auto &inner : intervals) flat.insert(flat.end(), inner.begin(), inner.end());
  return flat;
}

std::size_t intervalSequenceNumElements(const std::vector<std::vector<Interval>> &seq) {
  std::size_t n = 0;
  for (const auto &inner : seq)
    for (const Interval &i : inner) n += i.size();
  return n;
}

std::vector<std::vector<std::vector<Interval>>>
splitRegions(const std::vector<std::vector<Interval>> &sequences, unsigned grainSize, unsigned maxPartitions,
             unsigned minElementsPerPartition, unsigned maxElementsPerPartition, unsigned maxElementsPerRegion) {
  if (grainSize == 0 || maxPartitions == 0)
    throw poplibs_error("splitRegions: grainSize (" + std::to_string(grainSize) + ") and maxPartitions (" +
                        std::to_string(maxPartitions) + ") must be at least 1");
  std::size_t totalGrains = 0;
  for (const auto &seq : sequences) {
    std::size_t n = 0;
    for (const Interval &i : seq) n += i.size();
    totalGrains += (n + grainSize - 1) / grainSize;
  }
  std::vector<std::vector<std::vector<Interval>>> partitions;
  if (totalGrains == 0) return partitions;
  const std::size_t minGrains = std::max<std::size_t>(1, (minElementsPerPartition + grainSize - 1) / grainSize);
  const std::size_t grainsPerPartition = std::max((totalGrains + maxPartitions - 1) / maxPartitions, minGrains);
  const std::size_t maxGrains = std::max<std::size_t>(1, maxElementsPerPartition / grainSize);
  if (grainsPerPartition > maxGrains)
    throw poplibs_error("splitRegions: " + std::to_string(totalGrains) + " grains of " + std::to_string(grainSize) +
                        " elements do not fit " + std::to_string(maxPartitions) + " partitions of at most " +
                        std::to_string(maxElementsPerPartition) + " elements (and at least " +
                        std::to_string(minElementsPerPartition) + ")");
  // The longest interval: whole grains unless a grain itself is longer.
  const std::size_t pieceLimit =
      maxElementsPerRegion >= grainSize ? maxElementsPerRegion / grainSize * grainSize : grainSize;

  std::size_t grainsLeft = 0; // in the current partition
  for (const auto &seq : sequences) {
    std::size_t seqGrainsTaken = 0, seqElements = 0;
    for (const Interval &i : seq) seqElements += i.size();
    std::size_t position = 0; // elements of the sequence already placed
    std::size_t region = 0, offsetInRegion = 0;
    while (position < seqElements) {
      if (grainsLeft == 0) {
        partitions.emplace_back();
        grainsLeft = grainsPerPartition;
      }
      const std::size_t seqGrains = (seqElements + grainSize - 1) / grainSize;
      const std::size_t grains = std::min(grainsLeft, seqGrains - seqGrainsTaken);
      std::size_t elements = std::min(grains * grainSize, seqElements - position);
      grainsLeft -= grains;
      seqGrainsTaken += grains;
      position += elements;
      std::vector<Interval> piece;
      while (elements > 0) {
        const Interval &r = seq[region];
        const std::size_t take = std::min({elements, r.size() - offsetInRegion, pieceLimit});
        if (take > 0) piece.emplace_back(r.begin() + offsetInRegion, r.begin() + offsetInRegion + take);
        offsetInRegion += take;
        elements -= take;
        if (offsetInRegion == r.size()) {
          ++region;
          offsetInRegion = 0;
        }
      }
      partitions.back().push_back(std::move(piece));
    }
  }
  return partitions;
}

std::vector<std::vector<Interval>> splitRegions(const std::vector<Interval> &regions, unsigned grainSize,
                                                unsigned maxPartitions, unsigned minElementsPerPartition,
                                                unsigned maxElementsPerPartition, unsigned maxElementsPerRegion) {
  std::vector<std::vector<Interval>> sequences;
  for (const Interval &r : regions) sequences.push_back({r});
  std::vector<std::vector<Interval>> partitions;
  for (const auto &p : splitRegions(sequences, grainSize, maxPartitions, minElementsPerPartition,
                                    maxElementsPerPartition, maxElementsPerRegion))
    partitions.push_back(flattenIntervals(p));
  return partitions;
}

std::vector<std::vector<Interval>> splitRegionsBetweenWorkers(const poplar::Target &target,
                                                              const std::vector<Interval> &regions, unsigned grainSize,
                                                              unsigned minElementsPerPartition,
                                                              unsigned maxElementsPerPartition,
                                                              unsigned maxElementsPerRegion) {
  return splitRegions(regions, grainSize, target.getNumWorkerContexts(), minElementsPerPartition,
                      maxElementsPerPartition, maxElementsPerRegion);
}

std::vector<std::vector<std::vector<Interval>>>
splitRegionsBetweenWorkers(const poplar::Target &target, const std::vector<std::vector<Interval>> &regions,
                           unsigned grainSize, unsigned minElementsPerPartition, unsigned maxElementsPerPartition,
                           unsigned maxElementsPerRegion) {
  return splitRegions(regions, grainSize, target.getNumWorkerContexts(), minElementsPerPartition,
                      maxElementsPerPartition, maxElementsPerRegion);
}

std::vector<int> balancedPartition(int rangeUpperBound, int splitCount) {
  if (splitCount <= 0 || rangeUpperBound < 0)
    throw poplibs_error("balancedPartition: cannot split " + std::to_string(rangeUpperBound) + " into " +
                        std::to_string(splitCount) + " parts");
  std::vector<int> sizes(static_cast<std::size_t>(splitCount), rangeUpperBound / splitCount);
  for (int i = 0; i < rangeUpperBound % splitCount; ++i) ++sizes[static_cast<std::size_t>(i)];
  return sizes;
}

std::vector<Interval> calculateUnshufflingIntervals(const std::vector<Interval> &intervals) {
  // Interval i sits at position offset[i] of the shuffled tensor; in begin order those
  // positions, taken with each interval's size, rebuild the original order.
  std::vector<std::size_t> offset(intervals.size()), order(intervals.size());
  std::size_t position = 0;
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    offset[i] = position;
    position += intervals[i].size();
    order[i] = i;
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return intervals[a].begin() < intervals[b].begin(); });
  std::vector<Interval> unshuffle;
  std::size_t expected = 0;
  for (std::size_t i : order) {
    if (intervals[i].begin() != expected)
      throw poplibs_error("calculateUnshufflingIntervals: the intervals must cover [0, " + std::to_string(position) +
                          ") once each; none starts at " + std::to_string(expected));
    expected = intervals[i].end();
    unshuffle.emplace_back(offset[i], offset[i] + intervals[i].size());
  }
  return unshuffle;
}

} // namespace poputil
