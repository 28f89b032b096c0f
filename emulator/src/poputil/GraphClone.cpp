// Clones that change where elements live: into another graph, or with aliased elements
// expanded into distinct ones.
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace poputil {

using poplar::Interval;

poplar::Tensor cloneToGraph(poplar::Graph &srcGraph, poplar::Graph &dstGraph, const poplar::Tensor &t,
                            const poplar::DebugContext &debugContext, poplar::TensorCloneMethod method) {
  if (method != poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES)
    throw poplibs_error("cloneToGraph: the emulator clones into another graph only with "
                        "TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES");
  const auto mapping = srcGraph.getTileMapping(t);
  const unsigned dstTiles = dstGraph.getTarget().getNumTiles();
  for (unsigned tile = dstTiles; tile < mapping.size(); ++tile)
    if (!mapping[tile].empty())
      throw poplibs_error("cloneToGraph: " + t.getVarStr() + " has elements on tile " + std::to_string(tile) +
                          "; the destination graph has " + std::to_string(dstTiles) + " tile(s)");
  const poplar::Tensor clone = dstGraph.addVariable(t.elementType(), t.shape(), debugContext);
  dstGraph.setTileMapping(clone, mapping);
  return clone;
}

namespace {

// The flat positions of t whose element also appears elsewhere in t, in order.
std::vector<Interval> aliasedPositions(const poplar::Tensor &t) {
  struct Piece {
    std::size_t begin, end, position;
  };
  typedef std::pair<const void *, unsigned> VarKey;
  std::map<VarKey, std::vector<Piece>> byVariable;
  std::size_t position = 0;
  for (const poplar::VariableInterval &r : t.getVarRegions()) {
    byVariable[VarKey(r.var.graph, r.var.id)].push_back({r.interval.begin(), r.interval.end(), position});
    position += r.interval.size();
  }
  std::vector<Interval> aliased;
  for (const auto &entry : byVariable) {
    // Sweep the pieces' ends: where two or more pieces cover an element, it is aliased.
    std::vector<std::pair<std::size_t, int>> events;
    for (const Piece &p : entry.second) {
      events.emplace_back(p.begin, +1);
      events.emplace_back(p.end, -1);
    }
    std::sort(events.begin(), events.end());
    std::vector<Interval> shared;
    int depth = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
      depth += events[i].second;
      const std::size_t next = i + 1 < events.size() ? events[i + 1].first : events[i].first;
      if (depth >= 2 && next > events[i].first) shared.emplace_back(events[i].first, next);
    }
    for (const Piece &p : entry.second)
      for (const Interval &s : shared) {
        const std::size_t b = std::max(p.begin, s.begin()), e = std::min(p.end, s.end());
        if (b < e) aliased.emplace_back(p.position + (b - p.begin), p.position + (e - p.begin));
      }
  }
  std::sort(aliased.begin(), aliased.end(),
            [](const Interval &a, const Interval &b) { return a.begin() < b.begin(); });
  return aliased;
}

} // namespace

std::pair<poplar::Tensor, unsigned> cloneAndExpandAliasing(poplar::Graph &graph, const poplar::Tensor &t,
                                                           unsigned offset,
                                                           const poplar::DebugContext &debugContext) {
  const poplar::Tensor clone = graph.addVariable(t.elementType(), t.shape(), debugContext);
  const poplar::Tensor flat = clone.flatten();
  const std::vector<Interval> aliased = aliasedPositions(t);
  // Every element first takes its original's tile; the aliased ones are then remapped.
  graph.setTileMapping(clone, graph.getTileMapping(t));
  if (aliased.empty()) return {clone, offset};
  const poplar::Tensor expanded = poplar::concat(flat.slices(aliased));
  const auto mappingAndOffset = calcLinearTileMappingAndNewOffset(graph, expanded, offset);
  graph.setTileMapping(expanded, mappingAndOffset.first);
  return {clone, mappingAndOffset.second};
}

} // namespace poputil
