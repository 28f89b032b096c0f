// Groupings of a tensor's layout (contiguity and tile boundaries within rows), and
// tensors laid out so that each partition is contiguous.
#include <poputil/VarStructure.hpp>
#include <poputil/exceptions.hpp>

#include <numeric>
#include <string>

namespace poputil {

using poplar::Interval;

unsigned detectInnermostGrouping(const poplar::Graph &graph, const poplar::Tensor &t) {
  if (t.rank() == 0) throw poplibs_error("detectInnermostGrouping: a rank-0 tensor has no innermost dimension");
  const std::size_t inner = t.dim(t.rank() - 1);
  if (t.numElements() == 0) return 1;
  // Groups end where memory contiguity or the tile changes; the grouping is the gcd of
  // the row length and every such break's position within its row.
  std::size_t grouping = inner;
  std::size_t position = 0;
  const poplar::VariableInterval *previous = nullptr;
  const std::vector<poplar::VariableInterval> regions = t.getVarRegions();
  for (const poplar::VariableInterval &r : regions) {
    const bool continues = previous && previous->var == r.var && previous->interval.end() == r.interval.begin();
    if (!continues) grouping = std::gcd(grouping, position % inner);
    position += r.interval.size();
    previous = &r;
  }
  for (const std::vector<Interval> &onTile : graph.getTileMapping(t, false))
    for (const Interval &i : onTile) grouping = std::gcd(grouping, std::gcd(i.begin() % inner, i.end() % inner));
  return static_cast<unsigned>(grouping);
}

std::vector<GroupingInfo> detectDimGroupings(const poplar::Graph &graph, const poplar::Tensor &t) {
  if (t.rank() == 0) throw poplibs_error("detectDimGroupings: a rank-0 tensor has no dimensions to group");
  const unsigned rank = t.rank();
  // rest: t's dimensions (with the groups found factored out) and, innermost, one
  // dimension holding those groups, grouped elements together.
  poplar::Tensor rest = t.expand({rank});
  std::size_t grouped = 1;
  std::vector<GroupingInfo> found;
  for (;;) {
    unsigned bestDim = 0, best = 1;
    for (unsigned d = 0; d < rank; ++d) {
      const poplar::Tensor candidate = rest.dimRoll(d, rank - 1).flatten(rank - 1, rank + 1);
      const unsigned g = detectInnermostGrouping(graph, candidate);
      if (g % grouped == 0 && g / grouped > best) {
        best = static_cast<unsigned>(g / grouped);
        bestDim = d;
      }
    }
    if (best == 1) return found;
    found.emplace_back(bestDim, best);
    const std::size_t size = rest.dim(bestDim);
    // [.., size, .., grouped] -> [.., size / best, .., best * grouped]
    rest = rest.reshapePartial(bestDim, bestDim + 1, {size / best, best})
               .dimRoll(bestDim + 1, rank)
               .flatten(rank, rank + 2);
    grouped *= best;
  }
}

namespace {

// Dimension d of size n cut into nPartitions pieces of ceil(n / nPartitions) elements.
Interval partitionOf(std::size_t n, std::size_t nPartitions, std::size_t i) {
  const std::size_t chunk = (n + nPartitions - 1) / nPartitions;
  return {std::min(i * chunk, n), std::min((i + 1) * chunk, n)};
}

void checkPartitions(const char *function, std::size_t rank, const std::vector<std::size_t> &nPartitions) {
  if (rank != nPartitions.size())
    throw poplibs_error(std::string(function) + ": the tensor has rank " + std::to_string(rank) + " but " +
                        std::to_string(nPartitions.size()) + " partition count(s) were given");
  for (std::size_t n : nPartitions)
    if (n == 0) throw poplibs_error(std::string(function) + ": every dimension needs at least one partition");
}

// Visits every partition index in row-major order.
template <class Visit> void forEachPartition(const std::vector<std::size_t> &nPartitions, Visit visit) {
  std::vector<std::size_t> i(nPartitions.size(), 0);
  for (;;) {
    visit(i);
    std::size_t d = nPartitions.size();
    while (d > 0 && ++i[d - 1] == nPartitions[d - 1]) i[--d] = 0;
    if (d == 0) return;
  }
}

// The tensor made of the partitions with index prefix i[0..d), taken from `pieces` in
// row-major order and concatenated dimension by dimension. Partition 0 of a non-empty
// dimension is never empty, so each concatenation has a part.
poplar::Tensor assemble(const std::vector<std::size_t> &shape, const std::vector<std::size_t> &nPartitions,
                        std::vector<std::size_t> &i, std::size_t d, std::vector<poplar::Tensor>::const_iterator &pieces) {
  if (d == shape.size()) return *pieces++;
  std::vector<poplar::Tensor> parts;
  for (i[d] = 0; i[d] < nPartitions[d]; ++i[d]) {
    poplar::Tensor part = assemble(shape, nPartitions, i, d + 1, pieces);
    if (part.dim(d) != 0) parts.push_back(part);
  }
  return poplar::concat(parts, d);
}

} // namespace

poplar::Tensor createPartitionableTensor(poplar::Graph &graph, const poplar::Type &type,
                                         const std::vector<std::size_t> &shape,
                                         const std::vector<std::size_t> &nPartitions,
                                         const poplar::DebugContext &debugContext) {
  checkPartitions("createPartitionableTensor", shape.size(), nPartitions);
  std::size_t total = 1;
  for (std::size_t n : shape) total *= n;
  const poplar::Tensor storage = graph.addVariable(type, {total}, debugContext);
  if (total == 0) return storage.reshape(shape);
  // Each partition takes the next contiguous run of storage.
  std::vector<poplar::Tensor> pieces;
  std::size_t used = 0;
  forEachPartition(nPartitions, [&](const std::vector<std::size_t> &i) {
    std::vector<std::size_t> pieceShape(shape.size());
    std::size_t size = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) size *= pieceShape[d] = partitionOf(shape[d], nPartitions[d], i[d]).size();
    pieces.push_back(storage.slice(used, used + size).reshape(pieceShape));
    used += size;
  });
  std::vector<std::size_t> i(shape.size(), 0);
  auto next = pieces.cbegin();
  return assemble(shape, nPartitions, i, 0, next);
}

void iterateTensorPartitions(const poplar::Tensor &t, const std::vector<std::size_t> &nPartitions,
                             const std::function<void(const std::vector<std::size_t> &i, const poplar::Tensor &s)> &f) {
  checkPartitions("iterateTensorPartitions", t.rank(), nPartitions);
  forEachPartition(nPartitions, [&](const std::vector<std::size_t> &i) {
    poplar::Tensor s = t;
    for (std::size_t d = 0; d < i.size(); ++d) s = s.slice(partitionOf(t.dim(d), nPartitions[d], i[d]), d);
    f(i, s);
  });
}

} // namespace poputil
