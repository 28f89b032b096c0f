// The Engine's profile: data and Poplar's printProfileSummary text.
#include <poplar/Engine.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <numeric>
#include <set>
#include <ostream>
#include <sstream>
#include <unordered_map>

#include "EngineState.hpp"
#include "Liveness.hpp"
#include "TypeInfo.hpp"

namespace poplar {

namespace detail {

std::string withCommas(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

} // namespace detail

namespace {

using detail::withCommas;

// 1330.04 -> "1,330.0"
std::string oneDecimal(double x) {
  const auto tenths = static_cast<std::uint64_t>(std::llround(x * 10));
  return withCommas(tenths / 10) + "." + std::to_string(tenths % 10);
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  return whole ? oneDecimal(100.0 * static_cast<double>(part) / static_cast<double>(whole)) + "%" : "-";
}

// "1,234 (12.3%)"
std::string share(std::uint64_t part, std::uint64_t whole) {
  return withCommas(part) + " (" + percent(part, whole) + ")";
}

std::string duration(double seconds) {
  std::ostringstream os;
  os << std::setprecision(4);
  if (seconds >= 1) os << seconds << " s";
  else if (seconds >= 1e-3) os << seconds * 1e3 << " ms";
  else os << seconds * 1e6 << " us";
  return os.str();
}

// "  label:   value" with values right-aligned in one column.
class Section {
public:
  explicit Section(std::ostream &out) : out_(out) {}
  void line(unsigned indent, const std::string &label, const std::string &value = "") {
    const std::string left = std::string(indent, ' ') + label + ":";
    out_ << left;
    if (!value.empty())
      out_ << std::string(left.size() < 36 ? 36 - left.size() : 1, ' ') << std::setw(18) << value;
    out_ << "\n";
  }

private:
  std::ostream &out_;
};

void printTarget(std::ostream &out, const ProfileData &p) {
  const Target &t = p.target;
  Section s(out);
  out << "Target:\n";
  s.line(2, "Number of IPUs", withCommas(t.getNumIPUs()));
  s.line(2, "Tiles per IPU", withCommas(t.getTilesPerIPU()));
  s.line(2, "Total Tiles", withCommas(t.getNumTiles()));
  s.line(2, "Memory Per-Tile", oneDecimal(t.getBytesPerTile() / 1024.0) + " kB");
  s.line(2, "Total Memory", oneDecimal(static_cast<double>(t.getMemoryBytes()) / (1024.0 * 1024.0)) + " MB");
  s.line(2, "Clock Speed (approx)", oneDecimal(t.getTileClockFrequency() / 1e6) + " MHz");
  s.line(2, "Architecture", t.getTargetArchString().str());
  s.line(2, "Device", "IPU model (popdsl emulator)");
  out << "\n";
}

// Printed for replicated graphs and multi-instance runs only.
void printReplicas(std::ostream &out, const ProfileData &p) {
  if (p.totalReplicas == 1 && p.instances == 1) return;
  Section s(out);
  out << "Replicas:\n";
  s.line(2, "Replication factor (global)", withCommas(p.totalReplicas));
  s.line(2, "Replicas run here",
         std::to_string(p.firstReplica) + " to " + std::to_string(p.firstReplica + p.numReplicas - 1));
  s.line(2, "Instance", std::to_string(p.instance) + " of " + std::to_string(p.instances));
  out << "\n";
}

void printGraph(std::ostream &out, const ProfileData &p) {
  Section s(out);
  out << "Graph:\n";
  s.line(2, "Number of variables", withCommas(p.numVariables));
  s.line(2, "Number of constants", withCommas(p.numConstants));
  s.line(2, "Number of compute sets", withCommas(p.numComputeSets));
  s.line(2, "Number of programs", withCommas(p.numPrograms));
  s.line(2, "Number of program steps", withCommas(p.steps.size()));
  out << "\n";
}

void printHistogram(std::ostream &out, const std::vector<std::size_t> &bytes) {
  const auto [lo, hi] = std::minmax_element(bytes.begin(), bytes.end());
  const std::size_t minKB = *lo / 1024, maxKB = *hi / 1024;
  const std::size_t width = std::max<std::size_t>(1, (maxKB - minKB + 10) / 10);
  const std::size_t first = minKB / width * width;
  std::vector<std::size_t> counts((maxKB - first) / width + 1, 0);
  for (std::size_t b : bytes) ++counts[(b / 1024 - first) / width];
  const std::size_t most = *std::max_element(counts.begin(), counts.end());
  out << "    Range (KB) Histogram (Excluding Gaps)               Count (tiles)\n";
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::size_t begin = first + i * width;
    const std::size_t stars = counts[i] ? std::max<std::size_t>(1, counts[i] * 40 / most) : 0;
    out << "    " << std::setw(6) << begin << " - " << std::left << std::setw(4) << begin + width
        << std::setw(40) << std::string(stars, '*') << std::right << std::setw(7) << withCommas(counts[i])
        << "\n";
  }
}

// Bytes each tile needs: its constants, its always-live variables and the most its other
// variables hold at one step (all allocated bytes when the data has no liveness).
std::vector<std::size_t> liveBytesPerTile(const ProfileData &p, bool withHostHandles = true) {
  std::vector<std::size_t> need(p.constantBytesPerTile);
  if (p.alwaysLiveBytesPerTile.empty()) {
    for (std::size_t t = 0; t < need.size(); ++t) need[t] += p.variableBytesPerTile[t];
    return need;
  }
  for (std::size_t t = 0; t < need.size(); ++t)
    need[t] += withHostHandles ? p.alwaysLiveBytesPerTile[t] + p.peakNotAlwaysLiveBytesPerTile[t]
                               : p.alwaysLiveBytesPerTile[t] - p.keptByHostHandlesBytesPerTile[t] +
                                     p.peakWithoutHandlesBytesPerTile[t];
  return need;
}

std::size_t tilesOver(const std::vector<std::size_t> &bytes, std::size_t limit) {
  return static_cast<std::size_t>(std::count_if(bytes.begin(), bytes.end(), [&](std::size_t b) { return b > limit; }));
}

void printMemory(std::ostream &out, const ProfileData &p) {
  Section s(out);
  const auto &constants = p.constantBytesPerTile;
  const std::vector<std::size_t> total = liveBytesPerTile(p);
  const std::size_t all = std::accumulate(total.begin(), total.end(), std::size_t(0));
  const std::size_t constantBytes = std::accumulate(constants.begin(), constants.end(), std::size_t(0));
  const auto sum = [](const std::vector<std::uint64_t> &v) { return std::accumulate(v.begin(), v.end(), std::uint64_t(0)); };
  const std::uint64_t kept = sum(p.keptByHostHandlesBytesPerTile);
  out << "Memory Usage:\n";
  s.line(2, "Total");
  s.line(4, "Including Gaps", withCommas(all) + " B");
  s.line(4, "Excluding Gaps");
  s.line(6, "By Data Type");
  s.line(10, "Variables", withCommas(all - constantBytes) + " B");
  s.line(10, "Constants", withCommas(constantBytes) + " B");
  s.line(6, "By Liveness (not-always-live: each tile's peak over the program)");
  s.line(10, "Always-live", withCommas(constantBytes + sum(p.alwaysLiveBytesPerTile)) + " B");
  s.line(10, "Not-always-live", withCommas(sum(p.peakNotAlwaysLiveBytesPerTile)) + " B");
  if (kept) {
    // pd.Session reads back every tensor it tracks, which keeps them all live; say what a
    // program reading back only its weights and streams would need.
    const std::vector<std::size_t> without = liveBytesPerTile(p, false);
    s.line(10, "Host handles only", withCommas(kept) + " B");
    s.line(6, "Without host-handle-only variables");
    s.line(10, "Total", withCommas(std::accumulate(without.begin(), without.end(), std::size_t(0))) + " B");
    s.line(10, "Tiles out of memory", std::to_string(tilesOver(without, p.target.getBytesPerTile())));
  }
  const unsigned ipus = p.target.getNumIPUs(), perIpu = p.target.getTilesPerIPU();
  if (ipus > 1) {
    out << "  By IPU (Excluding Gaps):\n";
    for (unsigned ipu = 0; ipu < ipus; ++ipu) {
      const auto first = total.begin() + static_cast<std::ptrdiff_t>(ipu) * perIpu;
      const std::size_t bytes = std::accumulate(first, first + perIpu, std::size_t(0));
      out << "    IPU " << std::left << std::setw(4) << ipu << std::right << std::setw(14) << withCommas(bytes)
          << " B  (" << percent(bytes, static_cast<std::size_t>(perIpu) * p.target.getBytesPerTile())
          << " of the IPU)\n";
    }
  }
  out << "  By Tile (Excluding Gaps):\n";
  printHistogram(out, total);
  const auto fullest = static_cast<std::size_t>(std::max_element(total.begin(), total.end()) - total.begin());
  out << "    Maximum (Excluding Gaps): " << withCommas(total[fullest]) << " ("
      << oneDecimal(total[fullest] / 1024.0) << " K) on tile " << fullest << "\n";
  const std::size_t limit = p.target.getBytesPerTile();
  out << "    " << tilesOver(total, limit) << " tile(s) out of memory\n";
  std::vector<std::size_t> order(total.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  const std::size_t used = static_cast<std::size_t>(std::count_if(total.begin(), total.end(), [](std::size_t b) { return b > 0; }));
  const std::size_t shown = std::min<std::size_t>(5, used);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](std::size_t a, std::size_t b) { return total[a] != total[b] ? total[a] > total[b] : a < b; });
  out << "  Largest tiles:\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const std::size_t t = order[i];
    out << "    Tile # " << std::left << std::setw(6) << t << std::right << std::setw(12)
        << withCommas(total[t]) << " B  (variables " << withCommas(total[t] - constants[t])
        << " B, constants " << withCommas(constants[t]) << " B, " << percent(total[t], limit)
        << " of the tile)";
    if (t < p.peakStepPerTile.size() && p.peakStepPerTile[t] >= 0) {
      const ProfileStep &step = p.steps[static_cast<std::size_t>(p.peakStepPerTile[t])];
      out << ", peak at step " << p.peakStepPerTile[t] << " (" << step.kind << " " << step.name << ")";
    }
    out << "\n";
  }
  out << "\n";
}

void printSteps(std::ostream &out, const ProfileData &p, bool all) {
  std::vector<std::size_t> order(p.steps.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  const std::size_t shown = all ? order.size() : std::min<std::size_t>(10, order.size());
  if (!all)
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                      [&](std::size_t a, std::size_t b) {
                        return p.steps[a].totalCycles() > p.steps[b].totalCycles();
                      });
  const std::uint64_t total = p.totalCycles();
  out << (all ? "  Execution steps" : "  Costliest steps") << " (cycles estimated):\n"
      << "        #  " << std::setw(14) << "Total cycles" << std::setw(8) << "%" << std::setw(12)
      << "Executions" << std::setw(12) << "Cycles/exec" << "  Kind: name\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const ProfileStep &st = p.steps[order[i]];
    out << "    " << std::setw(5) << order[i] << "  " << std::setw(14) << withCommas(st.totalCycles())
        << std::setw(8) << percent(st.totalCycles(), total) << std::setw(12) << withCommas(st.executions)
        << std::setw(12) << withCommas(st.cyclesPerExecution()) << "  " << st.kind << ": " << st.name
        << "\n";
  }
}

void printExecution(std::ostream &out, const ProfileData &p, bool allSteps) {
  Section s(out);
  const std::uint64_t total = p.totalCycles();
  std::uint64_t sync = 0, exchange = 0, compute = 0;
  double host = 0;
  std::map<std::string, std::uint64_t> byKind;
  std::uint64_t linkBytes = 0;
  for (const ProfileStep &st : p.steps) {
    linkBytes += st.executions * st.ipuLinkBytes;
    sync += st.executions * st.syncCycles;
    exchange += st.executions * st.exchangeCycles;
    compute += st.executions * st.computeCycles;
    host += st.hostSeconds;
    byKind[st.kind] += st.totalCycles();
  }
  out << "Execution:\n";
  s.line(2, "Programs run", withCommas(p.runs));
  s.line(2, "Total cycles (estimated)", withCommas(total));
  s.line(2, "Total time (estimated)",
         duration(static_cast<double>(total) / p.target.getTileClockFrequency()));
  if (p.target.getNumIPUs() > 1) {
    // The total adds up every IPU's work; the IPUs run in parallel (IpuTimeline.hpp).
    s.line(2, "Elapsed cycles (estimated)", withCommas(p.elapsedCycles));
    s.line(2, "Elapsed time (estimated)",
           duration(static_cast<double>(p.elapsedCycles) / p.target.getTileClockFrequency()));
    out << "    (the IPUs run in parallel, waiting for each other only in steps that involve several)\n";
  }
  s.line(2, "Host time (measured)", p.hostTimed ? duration(host) : "not measured");
  if (!p.hostTimed) out << "    (set the engine option debug.instrument to time every step on the host)\n";
  s.line(2, "Cycles by phase (estimated)");
  s.line(4, "Sync", share(sync, total));
  s.line(4, "Exchange", share(exchange, total));
  s.line(4, "Compute", share(compute, total));
  if (linkBytes) s.line(2, "IPU-Link traffic", withCommas(linkBytes) + " B");
  s.line(2, "Cycles by step kind (estimated)");
  for (const auto &kv : byKind) s.line(4, kv.first, share(kv.second, total));
  printSteps(out, p, allSteps);
}

} // namespace

std::uint64_t ProfileData::totalCycles() const {
  std::uint64_t total = 0;
  for (const ProfileStep &s : steps) total += s.totalCycles();
  return total;
}

namespace detail {
ProfileData getProfileData(const Engine &engine) {
  EngineState &s = engineState(engine);
  s.estimateCycles();
  ProfileData p;
  p.target = s.graph->target;
  std::unordered_map<std::string, std::size_t> byName; // variables sharing a name add up
  for (unsigned id : s.usedVars) {
    const Variable &v = s.graph->vars->vars[id];
    ++(v.isConstant ? p.numConstants : p.numVariables);
    if (v.isConstant) continue;
    const auto found = byName.emplace(v.name, p.variableBytes.size());
    if (found.second) p.variableBytes.emplace_back(v.name, 0);
    p.variableBytes[found.first->second].second += v.numElements * typeSize(v.type);
  }
  p.numComputeSets = static_cast<unsigned>(s.graph->computeSets.size());
  p.numPrograms = static_cast<unsigned>(s.entries.size());
  p.constantBytesPerTile = s.constantTileBytes;
  p.variableBytesPerTile = s.tileBytes;
  for (std::size_t t = 0; t < s.tileBytes.size(); ++t) p.variableBytesPerTile[t] -= s.constantTileBytes[t];
  TileLiveness live = tileLiveness(s);
  p.alwaysLiveBytesPerTile = std::move(live.alwaysLive);
  p.keptByHostHandlesBytesPerTile = std::move(live.keptByHostHandles);
  p.peakNotAlwaysLiveBytesPerTile = std::move(live.peakNotAlwaysLive);
  p.peakWithoutHandlesBytesPerTile = std::move(live.peakWithoutHandles);
  p.peakStepPerTile = std::move(live.peakStep);
  p.peakStepWithoutHandlesPerTile = std::move(live.peakStepWithoutHandles);
  for (const auto &step : s.steps) {
    ProfileStep ps;
    ps.kind = step->kind;
    ps.name = step->name;
    ps.executions = step->executions;
    ps.hostSeconds = step->seconds;
    ps.syncCycles = step->cost.sync;
    ps.exchangeCycles = step->cost.exchange;
    ps.computeCycles = step->cost.compute;
    ps.exchangeBytes = step->cost.exchangeBytes;
    ps.ipuLinkBytes = step->cost.ipuLinkBytes;
    p.steps.push_back(std::move(ps));
  }
  p.runs = s.runs;
  p.elapsedCycles = s.timeline.active() ? s.timeline.elapsed() : p.totalCycles();
  p.hostTimed = s.timeSteps;
  p.firstReplica = s.slice.first;
  p.numReplicas = s.slice.count;
  p.totalReplicas = s.slice.total;
  if (s.slice.exchange) {
    p.instance = s.slice.exchange->index();
    p.instances = s.slice.exchange->instances();
  }
  return p;
}
} // namespace detail

void Engine::printProfileSummary(std::ostream &out, const OptionFlags &opt) const {
  bool showSteps = false;
  for (const auto &kv : opt) {
    static const std::set<std::string> accepted = {"showExecutionSteps", "showVarStorage", "showOptimizations",
                                                   "showPerIpuMemoryUsage", "colours"};
    if (!accepted.count(kv.first))
      throw invalid_option("printProfileSummary: unrecognised option '" + kv.first + "'");
    if (kv.first == "showExecutionSteps") showSteps = kv.second == "true";
  }
  // SDK programs profile a window of runs (enable, run, disable) and print afterwards: only
  // an engine with no profiled run while profiling is off has nothing to print.
  if (!state_->profiling && state_->runs == 0)
    throw profiling_disabled("Engine::printProfileSummary: execution profiling is disabled and no run was "
                             "profiled; call Engine::enableExecutionProfiling() before the runs to profile");
  const ProfileData p = detail::getProfileData(*this);
  printTarget(out, p);
  printReplicas(out, p);
  printGraph(out, p);
  printMemory(out, p);
  printExecution(out, p, showSteps);
}

void Engine::resetExecutionProfile() {
  for (auto &step : state_->steps) {
    step->executions = 0;
    step->seconds = 0;
  }
  state_->runs = 0;
  state_->trace.configure(state_->options);
  state_->forEachReplica([](detail::EngineState &r) { r.timeline.reset(); });
}

void Engine::disableExecutionProfiling() { state_->profiling = false; }

void Engine::enableExecutionProfiling() { state_->profiling = true; }

} // namespace poplar
