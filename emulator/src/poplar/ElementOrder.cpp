// Graph's queries of where a tensor's elements lie in memory: contiguous regions,
// the reordering into memory order, and broadcast dimensions.
#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <numeric>

#include "GraphState.hpp"
#include "TensorImpl.hpp"

namespace poplar {

namespace {

// Where one element lives: its variable and its index there.
struct Address {
  unsigned var;
  std::int64_t offset;
  bool operator<(const Address &o) const { return var != o.var ? var < o.var : offset < o.offset; }
  bool operator==(const Address &o) const { return var == o.var && offset == o.offset; }
  bool follows(const Address &o) const { return var == o.var && offset == o.offset + 1; }
};

std::vector<Address> addressesOf(const detail::GraphState &g, const Tensor &t, const char *op) {
  const detail::TensorImpl &impl = detail::tensorImpl(t);
  if (impl.vars != g.vars)
    throw poplar_error(std::string("Graph::") + op + ": tensor " + impl.describe() + " belongs to a different graph");
  std::vector<Address> out;
  out.reserve(impl.numElements());
  impl.forEachRun([&](const detail::Run &r) {
    for (std::size_t k = 0; k < r.count; ++k)
      out.push_back({r.var, r.start + static_cast<std::int64_t>(k) * r.stride});
  });
  return out;
}

// The positions given, in memory order (ties, which alias, in position order).
std::vector<std::size_t> inMemoryOrder(const std::vector<Address> &addresses, std::vector<std::size_t> positions) {
  std::stable_sort(positions.begin(), positions.end(),
                   [&](std::size_t a, std::size_t b) { return addresses[a] < addresses[b]; });
  return positions;
}

void appendPosition(std::vector<Interval> &intervals, std::size_t position) {
  if (!intervals.empty() && intervals.back().end() == position)
    intervals.back() = Interval(intervals.back().begin(), position + 1);
  else
    intervals.emplace_back(position, position + 1);
}

} // namespace

std::vector<std::vector<Interval>> Graph::getSortedContiguousRegions(const Tensor &t, ArrayRef<Interval> regions,
                                                                     bool removeAliasedIntervals,
                                                                     std::vector<std::size_t> *aliases) const {
  const std::vector<Address> addresses = addressesOf(*state_, t, "getSortedContiguousRegions");
  std::vector<std::size_t> positions;
  for (const Interval &region : regions) {
    if (region.begin() > region.end() || region.end() > addresses.size())
      throw poplar_error("Graph::getSortedContiguousRegions: region " + std::to_string(region.begin()) + ".." +
                         std::to_string(region.end()) + " is outside tensor " + detail::tensorImpl(t).describe() +
                         " of " + std::to_string(addresses.size()) + " elements");
    for (std::size_t p = region.begin(); p < region.end(); ++p) positions.push_back(p);
  }
  std::vector<std::vector<Interval>> out;
  const Address *previous = nullptr;
  for (std::size_t p : inMemoryOrder(addresses, positions)) {
    if (removeAliasedIntervals && previous && addresses[p] == *previous) {
      if (aliases) aliases->push_back(p);
      continue;
    }
    if (!previous || !addresses[p].follows(*previous)) out.emplace_back();
    appendPosition(out.back(), p);
    previous = &addresses[p];
  }
  return out;
}

TensorRearranger Graph::getSimplifyingRearranger(const Tensor &t) const {
  const std::vector<Address> addresses = addressesOf(*state_, t, "getSimplifyingRearranger");
  std::vector<std::size_t> all(addresses.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  std::vector<std::pair<std::size_t, std::size_t>> order; // (original begin, length)
  for (std::size_t p : inMemoryOrder(addresses, all)) {
    if (!order.empty() && order.back().first + order.back().second == p) ++order.back().second;
    else order.emplace_back(p, 1);
  }
  return TensorRearranger(std::move(order));
}

void Graph::reorderToSimplify(Tensor *t, ArrayRef<Tensor *> others, bool) const {
  if (!t) throw poplar_error("Graph::reorderToSimplify: the tensor to reorder is null");
  const TensorRearranger rearranger = getSimplifyingRearranger(*t);
  for (Tensor *other : others) {
    if (!other) throw poplar_error("Graph::reorderToSimplify: one of the other tensors is null");
    if (other->numElements() != t->numElements())
      throw poplar_error("Graph::reorderToSimplify: tensor " + detail::tensorImpl(*other).describe() + " has " +
                         std::to_string(other->numElements()) + " elements but the tensor reordered has " +
                         std::to_string(t->numElements()));
  }
  for (Tensor *other : others) *other = rearranger.rearrange(*other);
  *t = rearranger.rearrange(*t);
}

Tensor Graph::findUnbroadcastTensor(const Tensor &t) const {
  const std::vector<Address> addresses = addressesOf(*state_, t, "findUnbroadcastTensor");
  const std::vector<std::size_t> shape = t.shape();
  Tensor out = t;
  std::size_t stride = 1; // elements between neighbours along dimension d
  for (std::size_t d = shape.size(); d-- > 0; stride *= shape[d]) {
    if (shape[d] < 2) continue;
    bool broadcast = true;
    for (std::size_t e = 0; e < addresses.size() && broadcast; ++e) {
      const std::size_t index = e / stride % shape[d];
      broadcast = index == 0 || addresses[e] == addresses[e - index * stride];
    }
    if (broadcast) out = out.slice(0, 1, static_cast<unsigned>(d));
  }
  return out;
}

} // namespace poplar
