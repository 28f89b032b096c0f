// TensorUseTracker: tiles' uses of elements, resolved to one using tile per element.
#include <poputil/TileMapping.hpp>
#include <poputil/Util.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace poputil {

using poplar::Interval;

class TensorUseTrackerState {
public:
  struct Use {
    unsigned tile;
    poplar::Tensor elements; // flat
  };
  unsigned numTiles, startTile;
  bool ascending;
  std::vector<Use> uses;
};

TensorUseTracker::TensorUseTracker(unsigned numTiles, unsigned startTile, bool ascendingMappingOrder)
    : st(new TensorUseTrackerState{numTiles, startTile, ascendingMappingOrder, {}}) {
  if (numTiles == 0) throw poplibs_error("TensorUseTracker: numTiles must be at least 1");
}
TensorUseTracker::TensorUseTracker(const TensorUseTracker &other) : st(new TensorUseTrackerState(*other.st)) {}
TensorUseTracker::TensorUseTracker(TensorUseTracker &&other) = default;
TensorUseTracker &TensorUseTracker::operator=(const TensorUseTracker &other) {
  st.reset(new TensorUseTrackerState(*other.st));
  return *this;
}
TensorUseTracker &TensorUseTracker::operator=(TensorUseTracker &&other) = default;
TensorUseTracker::~TensorUseTracker() = default;

void TensorUseTracker::add(const poplar::Graph &, unsigned tile, const poplar::Tensor &t) {
  if (tile >= st->numTiles)
    throw poplibs_error("TensorUseTracker::add: tile " + std::to_string(tile) + " is out of range: the tracker has " +
                        std::to_string(st->numTiles) + " tile(s)");
  if (t.numElements() != 0) st->uses.push_back({tile, t.flatten()});
}

void TensorUseTracker::add(TensorUseTracker other) {
  if (!other.st) return;
  st->uses.insert(st->uses.end(), other.st->uses.begin(), other.st->uses.end());
}

bool TensorUseTracker::empty() const { return st->uses.empty(); }

namespace {

// Runs of consecutive positions as intervals.
std::vector<Interval> runs(const std::vector<std::size_t> &positions) {
  std::vector<Interval> out;
  for (std::size_t p : positions) {
    if (!out.empty() && out.back().end() == p)
      out.back() = Interval(out.back().begin(), p + 1);
    else
      out.emplace_back(p, p + 1);
  }
  return out;
}

} // namespace

void TensorUseTracker::resolve(const poplar::Graph &, unsigned grainSize, unsigned minElementsPerTile,
                               bool extendPartialUsage, TensorUseTracker::MappingMethod) {
  if (extendPartialUsage)
    throw poplibs_error("TensorUseTracker::resolve: extendPartialUsage is not supported by the emulator");
  if (st->uses.empty()) return;
  std::vector<poplar::Tensor> flats;
  for (const auto &use : st->uses) flats.push_back(use.elements);
  const poplar::Tensor all = poplar::concat(flats);
  // Every element: the tiles that use it, and its first position in `all`.
  typedef std::tuple<const void *, unsigned, std::size_t> ElementKey;
  struct Users {
    std::size_t position;
    std::vector<unsigned> tiles;
  };
  std::map<ElementKey, Users> elements;
  std::size_t position = 0, use = 0, useEnd = st->uses[0].elements.numElements();
  for (const poplar::VariableInterval &r : all.getVarRegions()) {
    for (std::size_t k = r.interval.begin(); k < r.interval.end(); ++k, ++position) {
      while (position >= useEnd) useEnd += st->uses[++use].elements.numElements();
      Users &users = elements.emplace(ElementKey(r.var.graph, r.var.id, k), Users{position, {}}).first->second;
      if (std::find(users.tiles.begin(), users.tiles.end(), st->uses[use].tile) == users.tiles.end())
        users.tiles.push_back(st->uses[use].tile);
    }
  }
  // Elements with the same users are split over those users, in the tracker's tile order.
  std::map<std::vector<unsigned>, std::vector<std::size_t>> byUsers;
  for (auto &entry : elements) {
    std::vector<unsigned> &tiles = entry.second.tiles;
    std::sort(tiles.begin(), tiles.end(), [this](unsigned a, unsigned b) {
      return transformTileIndex(a, st->numTiles, st->startTile, st->ascending) <
             transformTileIndex(b, st->numTiles, st->startTile, st->ascending);
    });
    byUsers[tiles].push_back(entry.second.position);
  }
  std::vector<TensorUseTrackerState::Use> resolved;
  for (auto &group : byUsers) {
    std::sort(group.second.begin(), group.second.end());
    const auto partitions = splitRegions(runs(group.second), std::max(grainSize, 1u),
                                         static_cast<unsigned>(group.first.size()), minElementsPerTile);
    for (std::size_t j = 0; j < partitions.size(); ++j)
      for (const Interval &i : partitions[j]) resolved.push_back({group.first[j], all.slice(i)});
  }
  st->uses = std::move(resolved);
}

void TensorUseTracker::mapTensorsByUse(poplar::Graph &graph, unsigned grainSize, unsigned minElementsPerTile,
                                       bool extendPartialUsage, TensorUseTracker::MappingMethod mappingMethod) {
  resolve(graph, grainSize, minElementsPerTile, extendPartialUsage, mappingMethod);
  for (const auto &use : st->uses) graph.setTileMapping(use.elements, use.tile);
}

} // namespace poputil
