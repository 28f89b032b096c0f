#include "Liveness.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>
#include <utility>

#include "EngineState.hpp"
#include "TypeInfo.hpp"

namespace poplar::detail {

namespace {

constexpr std::uint32_t kNoStep = std::numeric_limits<std::uint32_t>::max();
// The region of the code a step is in: an engine program's index, or this for function bodies.
constexpr unsigned kFunctionRegion = std::numeric_limits<unsigned>::max();

struct StepRange {
  std::uint32_t from, to;
};

struct CodeShape {
  std::vector<unsigned> regionOfStep;
  std::vector<StepRange> loops; // the steps of each loop body (a backward jump's span)
};

CodeShape codeShape(const EngineState &s) {
  CodeShape shape;
  shape.regionOfStep.assign(s.steps.size(), kFunctionRegion);
  // Instruction i's first step at or after it, to turn a jump's span into steps.
  std::vector<std::uint32_t> stepFrom(s.code.size() + 1, kNoStep);
  for (std::size_t i = s.code.size(); i-- > 0;)
    stepFrom[i] = s.code[i].op == Op::Run ? s.code[i].arg : stepFrom[i + 1];
  unsigned region = kFunctionRegion;
  std::size_t nextEntry = 0;
  bool inProgram = false;
  for (std::uint32_t i = 0; i < s.code.size(); ++i) {
    if (nextEntry < s.entries.size() && s.entries[nextEntry] == i) {
      region = static_cast<unsigned>(nextEntry++);
      inProgram = true;
    }
    const Instr &in = s.code[i];
    if (in.op == Op::Run) shape.regionOfStep[in.arg] = inProgram ? region : kFunctionRegion;
    if (in.op == Op::Halt) inProgram = false;
    const bool backward = (in.op == Op::Jump || in.op == Op::LoopNext) && in.target <= i;
    if (backward && stepFrom[in.target] != kNoStep && stepFrom[in.target] < stepFrom[i + 1]) {
      const std::uint32_t last = stepFrom[i + 1] == kNoStep ? static_cast<std::uint32_t>(s.steps.size() - 1)
                                                            : stepFrom[i + 1] - 1;
      shape.loops.push_back({stepFrom[in.target], last});
    }
  }
  return shape;
}

void widenOverLoops(VariableLiveness &v, const std::vector<StepRange> &loops) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const StepRange &loop : loops) {
      const bool overlaps = v.from <= loop.to && loop.from <= v.to;
      const bool inside = loop.from <= v.from && v.to <= loop.to;
      if (overlaps && !inside && (loop.from < v.from || v.to < loop.to)) {
        v.from = std::min(v.from, loop.from);
        v.to = std::max(v.to, loop.to);
        changed = true;
      }
    }
  }
}

} // namespace

std::vector<VariableLiveness> variableLiveness(const EngineState &s) {
  const auto &vars = s.graph->vars->vars;
  const CodeShape shape = codeShape(s);
  std::set<unsigned> hostUsed;
  for (const auto *handles : {&s.hostWrites, &s.hostReads})
    for (const auto &kv : *handles) hostUsed.insert(kv.second.vars.begin(), kv.second.vars.end());

  struct Uses {
    std::uint32_t first = kNoStep, last = 0;
    bool readFirst = false, shared = false;
    unsigned region = 0;
  };
  std::vector<Uses> uses(vars.size());
  for (std::uint32_t step = 0; step < s.stepUses.size(); ++step) {
    const unsigned region = shape.regionOfStep[step];
    for (const StepUse &use : s.stepUses[step]) {
      Uses &u = uses[use.var];
      if (u.first == kNoStep) {
        u.first = step;
        u.readFirst = use.reads;
        u.region = region;
      }
      u.last = step;
      u.shared = u.shared || region != u.region || region == kFunctionRegion;
    }
  }

  std::vector<VariableLiveness> out;
  for (unsigned id : s.usedVars) {
    const Variable &v = vars[id];
    if (v.isConstant) continue;
    VariableLiveness live;
    live.var = id;
    const Uses &u = uses[id];
    const bool pinnedByUse = u.first == kNoStep || u.readFirst || u.shared || !v.data.empty();
    live.keptByHostHandles = !pinnedByUse && hostUsed.count(id);
    live.alwaysLive = pinnedByUse || live.keptByHostHandles;
    if (!pinnedByUse) {
      live.from = u.first;
      live.to = u.last;
      widenOverLoops(live, shape.loops);
    }
    out.push_back(live);
  }
  return out;
}

namespace {

// The most bytes each tile holds at one step of the ranged variables, and the first step
// holding that many (a sweep over the steps where ranges begin and end).
void peakBytesByTile(const EngineState &s, const std::vector<const VariableLiveness *> &ranged, std::size_t tiles,
                     std::vector<std::uint64_t> &peak, std::vector<std::int64_t> &peakStep) {
  struct Change {
    std::uint32_t step;
    bool ends;
    unsigned tile;
    std::uint64_t bytes;
  };
  std::vector<Change> changes;
  for (const VariableLiveness *live : ranged) {
    const Variable &v = s.graph->vars->vars[live->var];
    const std::uint64_t size = typeSize(v.type);
    for (const auto &range : v.mapping) {
      const std::uint64_t bytes = (range.second.first - range.first) * size;
      changes.push_back({live->from, false, range.second.second, bytes});
      changes.push_back({live->to, true, range.second.second, bytes});
    }
  }
  // At one step, every range that begins is live before any that ends there is freed.
  std::sort(changes.begin(), changes.end(),
            [](const Change &a, const Change &b) { return std::tie(a.step, a.ends) < std::tie(b.step, b.ends); });
  std::vector<std::uint64_t> now(tiles, 0);
  peak.assign(tiles, 0);
  peakStep.assign(tiles, -1);
  for (const Change &c : changes) {
    if (c.ends) {
      now[c.tile] -= c.bytes;
    } else if ((now[c.tile] += c.bytes) > peak[c.tile]) {
      peak[c.tile] = now[c.tile];
      peakStep[c.tile] = c.step;
    }
  }
}

} // namespace

TileLiveness tileLiveness(const EngineState &s) {
  const std::size_t tiles = s.graph->target.getNumTiles();
  TileLiveness out;
  out.alwaysLive.assign(tiles, 0);
  out.keptByHostHandles.assign(tiles, 0);
  const std::vector<VariableLiveness> all = variableLiveness(s);
  std::vector<const VariableLiveness *> ranged, rangedWithoutHandles;
  for (const VariableLiveness &live : all) {
    if (!live.alwaysLive || live.keptByHostHandles) rangedWithoutHandles.push_back(&live);
    if (!live.alwaysLive) {
      ranged.push_back(&live);
      continue;
    }
    const Variable &v = s.graph->vars->vars[live.var];
    const std::uint64_t size = typeSize(v.type);
    for (const auto &range : v.mapping) {
      const std::uint64_t bytes = (range.second.first - range.first) * size;
      out.alwaysLive[range.second.second] += bytes;
      if (live.keptByHostHandles) out.keptByHostHandles[range.second.second] += bytes;
    }
  }
  peakBytesByTile(s, ranged, tiles, out.peakNotAlwaysLive, out.peakStep);
  peakBytesByTile(s, rangedWithoutHandles, tiles, out.peakWithoutHandles, out.peakStepWithoutHandles);
  return out;
}

} // namespace poplar::detail
