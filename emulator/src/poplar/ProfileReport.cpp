// libpva's report of an engine (profile.pop): the text libpva reads (src/pva) and
// autoReport writes. JSON, tagged with kReportFormat; docs/profiling_pva.rst lists
// what libpva makes of each field. Every cycle figure is the cost model's estimate.
#include <poplar/EmulatorExtensions.hpp>
#include <poplar/Internals.hpp>
#include <poplar/ProfileData.hpp>

#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "CodeMemory.hpp"
#include "EngineState.hpp"
#include "JsonText.hpp"
#include "Liveness.hpp"
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
  case K::FunctionLoad: return "StreamCopy"; // written as its Begin, Mid and End programs
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
  // A list of objects under `k`: one per item, its fields written by `fields(item)`.
  template <class Items, class Fields> void objects(const char *k, const Items &items, Fields fields) {
    key(k);
    open('[');
    for (const auto &item : items) {
      this->item();
      open('{');
      fields(item);
      close('}');
    }
    close(']');
  }

private:
  std::ostream &out_;
  bool first_ = true;
};

// The report's ids of programs and steps: the engine's, with every stream copy (stream,
// remote buffer and function-code copies, PrintTensor, host calls) written as the SDK's
// three programs and steps, StreamCopyBegin (the host sync), StreamCopyMid (the data)
// and StreamCopyEnd.
struct ReportIds {
  std::vector<std::uint32_t> program, step; // the first report id of each engine program, step
  std::vector<bool> triplet;                // of each engine program
  explicit ReportIds(const EngineState &s) {
    std::uint32_t next = 0;
    for (const ReportProgram &p : s.reportPrograms) {
      program.push_back(next);
      triplet.push_back(std::string(reportType(p)) == "StreamCopy");
      next += triplet.back() ? 3 : 1;
    }
    next = 0;
    for (const auto &st : s.steps) {
      step.push_back(next);
      next += triplet[st->program] ? 3 : 1;
    }
  }
  // The program a reference to engine program `p` names: a stream copy's Mid.
  std::uint32_t of(std::uint32_t p) const { return program[p] + (triplet[p] ? 1 : 0); }
  // Appends the report ids of engine program or step `index`.
  void expand(std::vector<std::uint32_t> &out, const std::vector<std::uint32_t> &first, std::uint32_t index,
              bool isTriplet) const {
    for (std::uint32_t k = 0; k < (isTriplet ? 3u : 1u); ++k) out.push_back(first[index] + k);
  }
};

// The executions of the profiled blocks: from the cycle at which the first step inside
// began to the one at which the last ended, on the instrumented tile of every IPU the
// block's steps compute on (of every IPU when they compute on none).
void writeBlocks(Writer &w, const EngineState &s, const ReportIds &ids) {
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
    w.field("program", ids.of(b.program));
    w.field("tile", b.tile);
    w.field("cyclesFrom", b.from);
    w.field("cyclesTo", b.to);
    w.close('}');
  }
  w.close(']');
}

// The debug contexts of the programs and variables, parents before their children: a
// context's parent is the one of its parent's path (made for it when no program or
// variable has that path, named by the whole path).
class DebugContexts {
public:
  // The index of the context `r` names; -1 when it has no name.
  long add(const DebugRecord &r) {
    const std::string path = r.path();
    if (path.empty()) return -1;
    const auto found = index_.find(path);
    if (found != index_.end()) {
      DebugRecord &known = entries_[static_cast<std::size_t>(found->second)].record;
      if (!known.hasLocation && r.hasLocation) { // made first as a parent, or without a location
        known.fileName = r.fileName;
        known.functionName = r.functionName;
        known.lineNumber = r.lineNumber;
        known.hasLocation = true;
      }
      return found->second;
    }
    long parent = -1;
    if (!r.parentPath.empty()) {
      DebugRecord bare;
      bare.name = r.parentPath;
      parent = add(bare);
    }
    entries_.push_back({r, parent});
    return index_[path] = static_cast<long>(entries_.size() - 1);
  }
  void write(Writer &w) const {
    w.objects("debugContexts", entries_, [&](const Entry &e) {
      w.text("name", e.record.name);
      w.text("path", e.record.path());
      if (e.parent >= 0) w.field("parent", e.parent);
      if (!e.record.hasLocation) return;
      w.key("location");
      w.open('{');
      w.text("fileName", e.record.fileName);
      w.text("functionName", e.record.functionName);
      w.field("lineNumber", e.record.lineNumber);
      w.close('}');
    });
  }

private:
  struct Entry {
    DebugRecord record;
    long parent;
  };
  std::vector<Entry> entries_;
  std::map<std::string, long> index_;
};

void writeDebugContext(Writer &w, long context) {
  if (context >= 0) w.field("debugContext", context);
}

void writePrograms(Writer &w, const EngineState &s, const ReportIds &ids, DebugContexts &contexts) {
  const GraphState &g = *s.graph;
  static const char *const kTriplet[] = {"StreamCopyBegin", "StreamCopyMid", "StreamCopyEnd"};
  w.key("programs");
  w.open('[');
  for (std::uint32_t i = 0; i < s.reportPrograms.size(); ++i) {
    const ReportProgram &program = s.reportPrograms[i];
    std::vector<std::uint32_t> children;
    for (std::uint32_t c : program.children) ids.expand(children, ids.program, c, ids.triplet[c]);
    const bool execute = program.kind == ProgramNode::Kind::Execute;
    // An Execute without a debug name goes by its compute set's (as its step does).
    const std::string &name = execute && program.name.empty() ? g.computeSets[program.computeSet].name : program.name;
    const long context = contexts.add(program.debug);
    for (unsigned part = 0; part < (ids.triplet[i] ? 3u : 1u); ++part) {
      w.item();
      w.open('{');
      w.text("type", ids.triplet[i] ? kTriplet[part] : reportType(program));
      w.text("name", name);
      w.list("children", children);
      if (execute) w.field("computeSet", program.computeSet);
      writeDebugContext(w, context);
      w.close('}');
    }
  }
  w.close(']');
}

// The variables (not constants) with their liveness (Liveness.hpp) over the report's steps.
void writeVariables(Writer &w, const EngineState &s, const ReportIds &ids, DebugContexts &contexts) {
  const auto &vars = s.graph->vars->vars;
  w.objects("variables", variableLiveness(s), [&](const VariableLiveness &live) {
    const Variable &v = vars[live.var];
    const std::uint64_t size = typeSize(v.type);
    w.text("name", v.name);
    w.field("bytes", v.numElements * size);
    w.field("alwaysLive", live.alwaysLive ? "true" : "false");
    writeDebugContext(w, contexts.add(v.debug));
    if (live.alwaysLive) return;
    const std::uint32_t last = s.steps[live.to]->program;
    w.field("liveFrom", ids.step[live.from]);
    w.field("liveTo", ids.step[live.to] + (ids.triplet[last] ? 2 : 0));
    std::map<unsigned, std::uint64_t> byTile;
    for (const auto &range : v.mapping) byTile[range.second.second] += (range.second.first - range.first) * size;
    w.key("bytesByTile");
    w.open('[');
    for (const auto &b : byTile) {
      w.item();
      w.open('[');
      w.item();
      w.out() << b.first;
      w.item();
      w.out() << b.second;
      w.close(']');
    }
    w.close(']');
  });
}

// The steps, a stream copy's as three: the host sync, the data, and an end of no cycles.
void writeSteps(Writer &w, const EngineState &s, const ReportIds &ids) {
  w.key("steps");
  w.open('[');
  for (const auto &step : s.steps) {
    const ReportProgram &program = s.reportPrograms[step->program];
    const bool triplet = ids.triplet[step->program];
    for (unsigned part = 0; part < (triplet ? 3u : 1u); ++part) {
      const CycleEstimate none, &cost = step->cost;
      const CycleEstimate &sync = triplet && part != 0 ? none : cost, &data = triplet && part != 1 ? none : cost;
      w.item();
      w.open('{');
      w.field("program", ids.program[step->program] + part);
      w.text("kind", step->kind);
      w.field("executions", step->executions);
      w.field("syncCycles", sync.sync);
      w.field("exchangeCycles", data.exchange);
      w.field("computeCycles", data.compute);
      w.field("exchangeBytes", data.exchangeBytes);
      if (!data.computeByTile.empty()) w.list("computeCyclesByTile", data.computeByTile);
      if (program.kind == ProgramNode::Kind::Execute) w.field("computeSet", program.computeSet);
      w.close('}');
    }
  }
  w.close(']');
}

// Each compute set's vertices counted by type, in first-use order (a kernel counts as one
// vertex: an op's worth), and the estimated cycles by tile of its first execution step.
void writeComputeSets(Writer &w, const EngineState &s, std::size_t &numVertices) {
  const GraphState &g = *s.graph;
  std::vector<const std::vector<std::uint64_t> *> estimates(g.computeSets.size(), nullptr);
  for (const auto &step : s.steps) {
    const ReportProgram &program = s.reportPrograms[step->program];
    if (program.kind == ProgramNode::Kind::Execute && !estimates[program.computeSet])
      estimates[program.computeSet] = &step->cost.computeByTile;
  }
  w.key("computeSets");
  w.open('[');
  for (unsigned cs = 0; cs < g.computeSets.size(); ++cs) {
    const ComputeSetInfo &info = g.computeSets[cs];
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
    w.objects("vertices", counts, [&](const std::pair<std::string, std::size_t> &c) {
      w.text("type", c.first);
      w.field("count", c.second);
    });
    w.list("estimatedCyclesByTile", estimates[cs] ? *estimates[cs] : std::vector<std::uint64_t>{});
    w.close('}');
  }
  w.close(']');
}

void writeReport(std::ostream &out, EngineState &s, const ProfileData &p) {
  s.estimateCycles();
  const GraphState &g = *s.graph;
  const Target &t = g.target;
  const ReportIds ids(s);
  Writer w(out);
  w.open('{');
  w.text("format", kReportFormat);
  w.field("formatVersion", kReportFormatVersion);
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
  std::size_t numVertices = 0;
  writeComputeSets(w, s, numVertices);
  w.key("graph");
  w.open('{');
  w.field("numComputeSets", g.computeSets.size());
  w.field("numVertices", numVertices);
  w.field("numVariables", p.numVariables);
  w.field("numConstants", p.numConstants);
  w.close('}');
  DebugContexts contexts;
  writePrograms(w, s, ids, contexts);
  std::vector<std::uint32_t> entries;
  for (std::uint32_t e : s.entryPrograms) entries.push_back(ids.of(e));
  w.list("entryPrograms", entries);
  writeSteps(w, s, ids);
  const CodeMemory code = estimateCodeMemory(s);
  w.key("memory");
  w.open('{');
  w.list("variableBytesByTile", p.variableBytesPerTile);
  w.list("constantBytesByTile", p.constantBytesPerTile);
  w.list("vertexCodeBytesByTile", code.vertexCode);
  w.list("vertexInstanceStateBytesByTile", code.vertexInstanceState);
  w.list("controlCodeBytesByTile", code.controlCode);
  w.list("internalExchangeCodeBytesByTile", code.internalExchangeCode);
  w.list("hostExchangeCodeBytesByTile", code.hostExchangeCode);
  w.list("stackBytesByTile", code.stack);
  w.close('}');
  writeVariables(w, s, ids, contexts);
  contexts.write(w);
  w.key("execution");
  w.open('{');
  w.field("recorded", s.trace.enabled ? "true" : "false");
  w.field("truncated", s.trace.truncated ? "true" : "false");
  std::vector<std::size_t> runs(s.trace.runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) runs[r] = r;
  w.objects("runs", runs, [&](std::size_t r) {
    const std::size_t end = r + 1 < s.trace.runs.size() ? s.trace.runs[r + 1].firstStep : s.trace.steps.size();
    std::vector<std::uint32_t> steps;
    for (std::size_t k = s.trace.runs[r].firstStep; k < end; ++k) {
      const std::uint32_t step = s.trace.steps[k];
      ids.expand(steps, ids.step, step, ids.triplet[s.steps[step]->program]);
    }
    w.field("program", s.trace.runs[r].program);
    w.list("steps", steps);
  });
  w.close('}');
  writeBlocks(w, s, ids);
  w.close('}');
  out << '\n';
}

} // namespace

const char *const kReportFormat = "popdsl emulator profile";
const unsigned kReportFormatVersion = 2;

std::string profileReportText(const Engine &engine) {
  std::ostringstream out;
  writeReport(out, engineState(engine), getProfileData(engine));
  return out.str();
}

} // namespace poplar::detail
