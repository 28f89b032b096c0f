// libpva's report of an engine (profile.pop): the text libpva reads (src/pva) and
// autoReport writes. JSON, tagged with kReportFormat; docs/profiling_pva.rst lists
// what libpva makes of each field. Every cycle figure is the cost model's estimate.
#include <poplar/EmulatorExtensions.hpp>
#include <poplar/Internals.hpp>
#include <poplar/ProfileData.hpp>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "EngineState.hpp"
#include "JsonText.hpp"
#include "VertexKernel.hpp"

namespace poplar::detail {

namespace {

const char *reportType(const ReportProgram &p) {
  using K = ProgramNode::Kind;
  if (p.block) return "Block";
  switch (p.kind) {
  case K::Sequence: return "Sequence";
  case K::Execute: return "OnTileExecute";
  case K::Repeat:
  case K::Loop: return "Repeat";
  case K::RepeatWhileTrue: return "RepeatWhileTrue";
  case K::RepeatWhileFalse: return "RepeatWhileFalse";
  case K::If: return "If";
  case K::Switch: return "Switch";
  case K::Copy: return "DoExchange";
  case K::StreamToTensor:
  case K::TensorToStream:
  case K::RemoteToTensor:
  case K::TensorToRemote:
  case K::PrintTensor:
  case K::HostCall:
  case K::FunctionLoad: return "StreamCopyMid";
  case K::CrossReplica: return "GlobalExchange";
  case K::Sync:
  case K::CycleStamp:
  case K::CycleCount: return "Sync";
  case K::Call: return "Call";
  case K::WriteUndef:
  case K::Abort:
  case K::AbortOnCondition: return "Unknown";
  }
  return "Unknown";
}

class Writer {
public:
  explicit Writer(std::ostream &out) : out_(out) {}
  void key(const char *k) {
    out_ << (first_ ? "" : ", ");
    writeJsonString(out_, k);
    out_ << ": ";
    first_ = false;
  }
  void open(char c) {
    out_ << c;
    first_ = true;
  }
  void close(char c) {
    out_ << c;
    first_ = false;
  }
  void item() {
    if (!first_) out_ << ", ";
    first_ = false;
  }
  template <class T> void field(const char *k, const T &v) {
    key(k);
    out_ << v;
  }
  void text(const char *k, const std::string &v) {
    key(k);
    writeJsonString(out_, v);
  }
  template <class T> void list(const char *k, const std::vector<T> &values) {
    key(k);
    open('[');
    for (const T &v : values) {
      item();
      out_ << v;
    }
    close(']');
  }
  std::ostream &out() { return out_; }

private:
  std::ostream &out_;
  bool first_ = true;
};

// The executions of the profiled blocks: from the cycle at which the first step inside
// began to the one at which the last ended, on the instrumented tile of every IPU the
// block's steps compute on (of every IPU when they compute on none).
void writeBlocks(Writer &w, const EngineState &s) {
  const Target &t = s.graph->target;
  const unsigned tilesPerIpu = t.getTilesPerIPU(), ipus = t.getNumIPUs();
  const auto it = s.options.find("profiler.blocks.tile");
  const unsigned instrumented = it == s.options.end() ? 0 : static_cast<unsigned>(std::stoul(it->second, nullptr, 0));
  struct Open {
    std::uint32_t program;
    std::uint64_t from;
    std::vector<bool> ipus; // those its steps compute on
  };
  struct Timed {
    std::uint32_t program;
    unsigned tile;
    std::uint64_t from, to;
  };
  std::vector<Open> open;
  std::vector<Timed> timed;
  std::uint64_t clock = 0;
  for (const std::uint32_t index : s.trace.steps) {
    const Step &step = *s.steps[index];
    if (step.kind == kBlockBeginKind) {
      open.push_back({step.program, clock, std::vector<bool>(ipus, false)});
      continue;
    }
    if (step.kind == kBlockEndKind) {
      if (open.empty()) continue; // a run stopped inside it: Engine::stop
      Open b = open.back();
      open.pop_back();
      const bool any = std::find(b.ipus.begin(), b.ipus.end(), true) != b.ipus.end();
      for (unsigned ipu = 0; ipu < ipus; ++ipu) {
        if (any && !b.ipus[ipu]) continue;
        timed.push_back({b.program, ipu * tilesPerIpu + std::min(instrumented, tilesPerIpu - 1), b.from, clock});
      }
      if (!open.empty())
        for (unsigned ipu = 0; ipu < ipus; ++ipu) open.back().ipus[ipu] = open.back().ipus[ipu] || b.ipus[ipu];
      continue;
    }
    const auto &byTile = step.cost.computeByTile;
    if (!open.empty())
      for (std::size_t tile = 0; tile < byTile.size(); ++tile)
        if (byTile[tile]) open.back().ipus[tile / tilesPerIpu] = true;
    clock += step.cost.total();
  }
  // In the order the blocks began, an enclosing block before those it holds (as the SDK's
  // lightweight-profiling tutorial lists a stage before its operations).
  std::stable_sort(timed.begin(), timed.end(),
                   [](const Timed &a, const Timed &b) { return a.from != b.from ? a.from < b.from : a.to > b.to; });
  w.key("blocks");
  w.open('[');
  for (const Timed &b : timed) {
    w.item();
    w.open('{');
    w.field("program", b.program);
    w.field("tile", b.tile);
    w.field("cyclesFrom", b.from);
    w.field("cyclesTo", b.to);
    w.close('}');
  }
  w.close(']');
}

void writeReport(std::ostream &out, EngineState &s, const ProfileData &p) {
  s.estimateCycles();
  const GraphState &g = *s.graph;
  const Target &t = g.target;
  Writer w(out);
  w.open('{');
  w.text("format", kReportFormat);
  w.field("formatVersion", 1);
  w.key("poplarVersion");
  w.open('{');
  w.field("major", 3);
  w.field("minor", 3);
  w.field("point", 0);
  w.text("string", "3.3.0 (popdsl emulator)");
  w.close('}');
  w.key("target");
  w.open('{');
  w.text("type", "IPU_MODEL");
  w.text("architecture", t.getTargetArchString());
  w.field("numIPUs", t.getNumIPUs());
  w.field("tilesPerIPU", t.getTilesPerIPU());
  w.field("bytesPerTile", t.getBytesPerTile());
  w.field("clockFrequency", t.getTileClockFrequency());
  w.field("numReplicas", g.replicationFactor);
  w.field("numWorkerContexts", t.getNumWorkerContexts());
  w.close('}');
  w.key("computeSets");
  w.open('[');
  std::size_t numVertices = 0;
  for (unsigned cs = 0; cs < g.computeSets.size(); ++cs) {
    const ComputeSetInfo &info = g.computeSets[cs];
    // One entry per vertex type, in first-use order; a kernel is one vertex (an op's worth).
    std::vector<std::pair<std::string, std::size_t>> counts;
    for (const Kernel &k : info.kernels) {
      const std::string &type = k.vertexType.empty() ? k.kind : k.vertexType;
      auto found = std::find_if(counts.begin(), counts.end(), [&](const auto &c) { return c.first == type; });
      if (found == counts.end()) counts.emplace_back(type, 1);
      else ++found->second;
      ++numVertices;
    }
    w.item();
    w.open('{');
    w.text("name", info.name);
    w.key("vertices");
    w.open('[');
    for (const auto &c : counts) {
      w.item();
      w.open('{');
      w.text("type", c.first);
      w.field("count", c.second);
      w.close('}');
    }
    w.close(']');
    w.close('}');
  }
  w.close(']');
  w.key("graph");
  w.open('{');
  w.field("numComputeSets", g.computeSets.size());
  w.field("numVertices", numVertices);
  w.field("numVariables", p.numVariables);
  w.field("numConstants", p.numConstants);
  w.close('}');
  w.key("programs");
  w.open('[');
  for (const ReportProgram &program : s.reportPrograms) {
    w.item();
    w.open('{');
    w.text("type", reportType(program));
    // An Execute without a debug name goes by its compute set's (as its step does).
    const bool execute = program.kind == ProgramNode::Kind::Execute;
    w.text("name", execute && program.name.empty() ? g.computeSets[program.computeSet].name : program.name);
    w.list("children", program.children);
    if (execute) w.field("computeSet", program.computeSet);
    w.close('}');
  }
  w.close(']');
  w.list("entryPrograms", s.entryPrograms);
  w.key("steps");
  w.open('[');
  for (const auto &step : s.steps) {
    w.item();
    w.open('{');
    w.field("program", step->program);
    w.text("kind", step->kind);
    w.field("executions", step->executions);
    w.field("syncCycles", step->cost.sync);
    w.field("exchangeCycles", step->cost.exchange);
    w.field("computeCycles", step->cost.compute);
    w.field("exchangeBytes", step->cost.exchangeBytes);
    if (!step->cost.computeByTile.empty()) w.list("computeCyclesByTile", step->cost.computeByTile);
    w.close('}');
  }
  w.close(']');
  w.key("memory");
  w.open('{');
  w.list("variableBytesByTile", p.variableBytesPerTile);
  w.list("constantBytesByTile", p.constantBytesPerTile);
  w.close('}');
  w.key("variables");
  w.open('[');
  for (const auto &v : p.variableBytes) {
    w.item();
    w.open('{');
    w.text("name", v.first);
    w.field("bytes", v.second);
    w.close('}');
  }
  w.close(']');
  w.key("execution");
  w.open('{');
  w.field("recorded", s.trace.enabled ? "true" : "false");
  w.field("truncated", s.trace.truncated ? "true" : "false");
  w.key("runs");
  w.open('[');
  for (std::size_t r = 0; r < s.trace.runs.size(); ++r) {
    const std::size_t end = r + 1 < s.trace.runs.size() ? s.trace.runs[r + 1].firstStep : s.trace.steps.size();
    w.item();
    w.open('{');
    w.field("program", s.trace.runs[r].program);
    w.list("steps", std::vector<std::uint32_t>(s.trace.steps.begin() + static_cast<std::ptrdiff_t>(s.trace.runs[r].firstStep),
                                               s.trace.steps.begin() + static_cast<std::ptrdiff_t>(end)));
    w.close('}');
  }
  w.close(']');
  w.close('}');
  writeBlocks(w, s);
  w.close('}');
  out << '\n';
}

} // namespace

const char *const kReportFormat = "popdsl emulator profile";

std::string profileReportText(const Engine &engine) {
  std::ostringstream out;
  writeReport(out, engineState(engine), getProfileData(engine));
  return out.str();
}

} // namespace poplar::detail
