#pragma once
// Groupings of a tensor's layout, and tensors whose partitions are each contiguous.
#include <unordered_set>
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poputil {

// The largest g dividing the innermost dimension such that, in every row of it, each
// run of g elements is contiguous in memory and on one tile (1 when there is no larger
// grouping or no element). Throws poplibs_error for a rank-0 tensor.
unsigned detectInnermostGrouping(const poplar::Graph &graph, const poplar::Tensor &t);

// (dimension, grouping) pairs.
using GroupingInfo = std::pair<unsigned, unsigned>;

// The groupings of t from the innermost outwards: repeatedly the dimension whose
// grouping, inside the groups already found, is largest; that group is then factored
// out of it (so a dimension may appear more than once). Throws for a rank-0 tensor.
std::vector<GroupingInfo> detectDimGroupings(const poplar::Graph &graph, const poplar::Tensor &t);

// A tensor of `shape` (unmapped) such that each of its partitions, nPartitions[d] in each
// dimension d as iterateTensorPartitions takes them, is one contiguous region.
poplar::Tensor createPartitionableTensor(poplar::Graph &graph, const poplar::Type &type,
                                         const std::vector<std::size_t> &shape,
                                         const std::vector<std::size_t> &nPartitions,
                                         const poplar::DebugContext &debugContext = {});

// Calls f(i, slice) for each partition index i (row-major): dimension d of size n is cut
// into pieces of ceil(n / nPartitions[d]) elements (the last ones shorter or empty).
// Throws poplibs_error unless t's rank is nPartitions.size().
void iterateTensorPartitions(const poplar::Tensor &t, const std::vector<std::size_t> &nPartitions,
                             const std::function<void(const std::vector<std::size_t> &i, const poplar::Tensor &s)> &f);

} // namespace poputil
