#include <poplar/Engine.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "AutoReport.hpp"
#include "CodeletPrint.hpp"
#include "CrossReplica.hpp"
#include "EngineState.hpp"
#include "ExecutableState.hpp"
#include "Instances.hpp"
#include "ProgramNode.hpp"
#include "ProgramWalk.hpp"
#include "TensorImpl.hpp"
#include "ThreadPool.hpp"
#include "VertexKernel.hpp"

namespace poplar {
namespace detail {

namespace {

bool flag(const OptionFlags &o, const char *key, bool dflt) {
  auto it = o.find(key);
  return it == o.end() ? dflt : it->second == "true";
}

// "prng.seed": the engine's random seed (a fixed default, as the IPUModel has).
std::uint64_t seedOption(const OptionFlags &o) {
  const auto it = o.find("prng.seed");
  if (it == o.end()) return 0x5eed;
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(it->second, &used, 0);
    if (used == it->second.size() && it->second[0] != '-') return v;
  } catch (const std::exception &) {
  }
  throw invalid_option("Invalid value '" + it->second + "' for option 'prng.seed': expected an unsigned integer");
}

// "emulator.numThreads" (validated by validatedOptions): 0 for "auto" or no option.
unsigned numThreadsOption(const OptionFlags &o) {
  const auto it = o.find("emulator.numThreads");
  if (it == o.end() || it->second == "auto") return 0;
  return static_cast<unsigned>(std::min<unsigned long long>(std::stoull(it->second, nullptr, 0), ~0u));
}

// Programs and host writes may only write tensors whose every element has one home.
void checkWritableTensor(const Tensor &t, const std::string &what) {
  if (t.containsConstant())
    throw graph_program_compilation_error(what + " " + detail::tensorImpl(t).describe() + " is a constant");
  if (t.containsAliases())
    throw graph_program_compilation_error(what + " " + detail::tensorImpl(t).describe() +
                                          " contains aliased elements (e.g. a broadcast) and cannot be written");
}

struct CopyStep : Step {
  Access src, dst;
  // A small dense copy is decided here once, not at every run (tiny steps in loops).
  std::uint8_t *denseDst = nullptr;
  const std::uint8_t *denseSrc = nullptr;
  std::size_t denseBytes = 0;
  CopyStep(Access from, Access to)
      : src(std::move(from)), dst(std::move(to)), denseDst(dst.data()), denseSrc(src.data()),
        denseBytes(denseCopyBytes(src, dst)) {}
  void run() override {
    if (denseBytes) std::memmove(denseDst, denseSrc, denseBytes);
    else copyElements(src, dst);
  }
};

struct StreamToTensorStep : Step {
  StreamState *stream;
  Access dst;
  std::vector<std::uint8_t> staging;
  void run() override {
    const std::size_t bytes = dst.numElements * dst.elemSize;
    if (dst.contiguous()) {
      stream->transfer(dst.data(), bytes, true);
    } else {
      staging.resize(bytes);
      stream->transfer(staging.data(), bytes, true);
      dst.scatter(staging.data());
    }
  }
};

struct TensorToStreamStep : Step {
  StreamState *stream;
  Access src;
  std::vector<std::uint8_t> staging;
  void run() override {
    const std::size_t bytes = src.numElements * src.elemSize;
    if (src.contiguous()) { // the host side only reads it (a device-to-host callback consumes its buffer)
      stream->transfer(src.data(), bytes, false);
      return;
    }
    staging.resize(bytes);
    src.gather(staging.data());
    stream->transfer(staging.data(), bytes, false);
  }
};

struct ExecuteStep : Step {
  std::vector<std::function<void()>> kernels;
  TileGroups vertices; // custom vertices, run tile by tile after the built-in kernels
  std::ostream *const *codeletStream; // where the vertices' printf goes
  void run() override {
    for (auto &k : kernels) k();
    if (!vertices.empty()) {
      CodeletPrintScope printing(*codeletStream);
      vertices.run(name);
    }
  }
  void reset() override { vertices.reset(); }
};

struct PrintTensorStep : Step {
  std::string title;
  std::vector<std::size_t> shape;
  Access src;
  PrintTensorFmt format;
  std::ostream **stream;
  void run() override {
    std::vector<std::uint8_t> data(src.numElements * src.elemSize);
    src.gather(data.data());
    **stream << formatTensor(title, src.type, shape, data.data(), format) << std::flush;
  }
};

// The decision of a control program; its cost is the branch (and loop) overhead.
struct ControlStep : Step {
  void run() override {}
};

// Writes the estimated cycle counter to a [lo32, hi32] UNSIGNED_INT tensor.
void storeCounter(const Access &dst, std::uint64_t value) {
  const std::uint32_t words[2] = {static_cast<std::uint32_t>(value), static_cast<std::uint32_t>(value >> 32)};
  dst.scatter(words);
}

// The counter is advanced by a step's cost before the step runs, so a stamp
// reads the counter after its own sync.
struct CycleStampStep : Step {
  const std::uint64_t *clock;
  Access dst;
  void run() override { storeCounter(dst, *clock); }
};

struct CycleCountStartStep : Step {
  const std::uint64_t *clock;
  std::uint64_t start = 0;
  void run() override { start = *clock; }
};

struct CycleCountEndStep : Step {
  const std::uint64_t *clock;
  const CycleCountStartStep *start;
  Access dst;
  void run() override { storeCounter(dst, *clock - start->start); }
};

struct AbortStep : Step {
  std::string message;
  const Scalar *condition = nullptr; // null: abort unconditionally
  void run() override {
    if (!condition || condition->isTrue())
      throw application_runtime_error(!message.empty() ? "Abort: " + message
                                      : !name.empty()  ? "Abort: " + name
                                                       : std::string("Abort program reached"));
  }
};

// Gathers the inputs, calls the connected host function, scatters its outputs.
struct HostCallStep : Step {
  HostFunctionSlot *function;
  std::vector<Access> inputs, outputs;
  std::vector<std::vector<std::uint8_t>> buffers; // inputs then outputs
  void run() override {
    if (!function->callback)
      throw stream_connection_error("Host function '" + function->info.handle +
                                    "' is not connected: call Engine::connectHostFunction before running");
    std::vector<const void *> ins;
    std::vector<void *> outs;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      buffers[i].resize(inputs[i].numElements * inputs[i].elemSize);
      inputs[i].gather(buffers[i].data());
      ins.push_back(buffers[i].data());
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      auto &buffer = buffers[inputs.size() + i];
      buffer.assign(outputs[i].numElements * outputs[i].elemSize, 0);
      outs.push_back(buffer.data());
    }
    (*function->callback)(ins, outs);
    for (std::size_t i = 0; i < outputs.size(); ++i) outputs[i].scatter(buffers[inputs.size() + i].data());
  }
};

// Turns program trees into the flat instruction list.
// The graph's compute sets' names, by id (profile names of unnamed Execute programs).
std::vector<std::string> computeSetNames(const GraphState &g) {
  std::vector<std::string> names;
  names.reserve(g.computeSets.size());
  for (const ComputeSetInfo &cs : g.computeSets) names.push_back(cs.name);
  return names;
}

class Compiler {
public:
  explicit Compiler(EngineState &s) : s_(s), programs_(s.reportPrograms, s.options, computeSetNames(*s.graph)) {
    s_.pendingUses.clear();
  }

  void compileProgram(const program::Program &p) {
    s_.entries.push_back(here());
    emit(p);
    s_.code.push_back({Op::Halt, 0, 0});
    s_.entryPrograms.push_back(programs_.idOf(programNode(p)));
  }

  // Function bodies go after all programs; Call instructions are patched to them. The
  // functions loaded from function buffers are compiled too (their code is what moves).
  void compileFunctions() {
    std::map<unsigned, std::uint32_t> start;
    std::map<unsigned, std::set<unsigned>> callees; // of each compiled function (each is a key)
    s_.functionInstructions.assign(s_.graph->functions.size(), 0);
    const auto compile = [&](unsigned f) {
      if (start.count(f)) return;
      start[f] = here();
      const std::size_t firstCall = pendingCalls_.size();
      emit(s_.graph->functions.at(f));
      s_.code.push_back({Op::Return, 0, 0});
      s_.functionInstructions[f] = here() - start[f];
      auto &called = callees[f];
      for (std::size_t k = firstCall; k < pendingCalls_.size(); ++k) called.insert(s_.code[pendingCalls_[k]].arg);
    };
    // Compiling a body can add calls and loads to both lists.
    for (std::size_t loads = 0, calls = 0; loads < loadedFunctions_.size() || calls < pendingCalls_.size();) {
      if (loads < loadedFunctions_.size()) {
        compile(loadedFunctions_[loads++]);
        continue;
      }
      const unsigned f = s_.code[pendingCalls_[calls]].arg;
      compile(f);
      s_.code[pendingCalls_[calls++]].target = start[f];
    }
    checkNoRecursion(callees);
  }

private:
  std::uint32_t here() const { return static_cast<std::uint32_t>(s_.code.size()); }

  // A function that calls itself, directly or through others, would grow the
  // call stack without bound at run time. One depth-first search over the call
  // graph, on an explicit stack (chains of functions can be long), finds a call
  // into a function whose search is still open: the functions open from there
  // on are a cycle.
  static void checkNoRecursion(const std::map<unsigned, std::set<unsigned>> &callees) {
    enum class Search { Open, Finished };
    std::map<unsigned, Search> searched;
    struct Frame {
      unsigned function;
      std::set<unsigned>::const_iterator nextCallee, end;
    };
    std::vector<Frame> open;
    auto enter = [&](unsigned f) {
      const std::set<unsigned> &called = callees.at(f);
      searched[f] = Search::Open;
      open.push_back({f, called.begin(), called.end()});
    };
    for (const auto &root : callees) {
      if (searched.count(root.first)) continue;
      enter(root.first);
      while (!open.empty()) {
        Frame &top = open.back();
        if (top.nextCallee == top.end) {
          searched[top.function] = Search::Finished;
          open.pop_back();
          continue;
        }
        const unsigned callee = *top.nextCallee++;
        const auto seen = searched.find(callee);
        if (seen == searched.end()) {
          enter(callee);
        } else if (seen->second == Search::Open) {
          const auto first = std::find_if(open.begin(), open.end(), [&](const Frame &f) { return f.function == callee; });
          const auto length = static_cast<std::size_t>(open.end() - first);
          std::string cycle;
          for (auto frame = first; frame != open.end() && frame - first < 8; ++frame)
            cycle += (cycle.empty() ? "" : ", ") + std::to_string(frame->function);
          if (length > 8) cycle += ", ... (" + std::to_string(length) + " functions)";
          throw graph_cycle_error("Call: functions cannot be recursive, but function(s) " + cycle +
                                  " call themselves directly or through other functions");
        }
      }
    }
  }

  std::uint32_t addStep(std::unique_ptr<Step> step, const ProgramNode &n, Step::Estimate estimate) {
    step->kind = kindName(n.kind);
    step->name = n.name;
    step->program = programs_.current();
    step->estimate = std::move(estimate);
    std::vector<StepUse> uses;
    for (const auto &u : s_.pendingUses) uses.push_back({u.first, u.second.first > u.second.second});
    s_.pendingUses.clear();
    s_.stepUses.push_back(std::move(uses));
    s_.steps.push_back(std::move(step));
    s_.code.push_back({Op::Run, static_cast<std::uint32_t>(s_.steps.size() - 1), 0});
    return here() - 1;
  }

  void addControlStep(const ProgramNode &n, Step::Estimate estimate) {
    addStep(std::make_unique<ControlStep>(), n, std::move(estimate));
  }

  std::uint32_t addScalar(const Tensor &t) {
    const Access a = s_.access(t);
    s_.scalars.push_back(Scalar{a.data(), a.type});
    return static_cast<std::uint32_t>(s_.scalars.size() - 1);
  }

  void checkWritable(const Tensor &t, const ProgramNode &n, const char *role) {
    checkWritableTensor(t, nodeLabel(n) + ": " + role);
    s_.noteWrite(t);
  }

  StreamState &streamFor(const ProgramNode &n) {
    auto it = s_.streams.find(n.stream.handle());
    if (it == s_.streams.end())
      throw stream_connection_error("Stream '" + n.stream.handle() + "' does not belong to this graph");
    return it->second;
  }

  void emit(const program::Program &p) { walkProgram(p, *this); }

public:
  // What a control program's code needs between its children (walkProgram gives each
  // node its own).
  struct ControlCode {
    std::uint32_t top = 0;        // Repeat: the body's first instruction; Loop, While: the loop's
    std::uint32_t slot = 0;       // Repeat: the loop counter; Switch: the table; CycleCount: the start step
    std::uint32_t predicate = 0;  // While: the scalar of the predicate
    std::uint32_t pendingJump = 0; // While: the exit; If: to the else, then over it
    std::vector<std::uint32_t> exits; // Switch: the jumps out after each case
    bool profiledBlock = false;       // lightweight profiling times it: marker steps around it
  };
  using NodeState = ControlCode;

  bool enter(const ProgramNode &n, ControlCode &code) {
    programs_.enter(n);
    code.profiledBlock = programs_.profiledBlock(n);
    if (code.profiledBlock) addBlockMarker(kBlockBeginKind, n);
    if (emitEnter(n, code)) return true;
    if (code.profiledBlock) addBlockMarker(kBlockEndKind, n);
    programs_.leave();
    return false;
  }

  void leave(const ProgramNode &n, ControlCode &code) {
    emitLeave(n, code);
    if (code.profiledBlock) addBlockMarker(kBlockEndKind, n);
    programs_.leave();
  }

private:
  void addBlockMarker(const char *kind, const ProgramNode &n) {
    addControlStep(n, [](const CostModel &) { return CycleEstimate{}; });
    s_.steps.back()->kind = kind;
  }

  // The code of a program before its children: all of it for the programs without.
  bool emitEnter(const ProgramNode &n, ControlCode &code) {
    using K = ProgramNode::Kind;
    switch (n.kind) {
    case K::Sequence: return true;
    case K::Execute: emitExecute(n); return true;
    case K::Repeat:
      if (n.id == 0) return false;
      addControlStep(n, [count = n.id](const CostModel &m) { return m.loop(count); });
      code.slot = static_cast<std::uint32_t>(s_.loopCounts.size());
      s_.loopCounts.push_back(n.id);
      s_.code.push_back({Op::LoopInit, code.slot, 0});
      code.top = here();
      return true;
    case K::Loop:
      code.top = here();
      addControlStep(n, branch); // once per iteration
      return true;
    case K::RepeatWhileTrue:
    case K::RepeatWhileFalse:
      code.predicate = addScalar(n.tensors[0]);
      code.top = here();
      return true;
    case K::If: {
      const std::uint32_t pred = addScalar(n.tensors[0]);
      addControlStep(n, branch);
      code.pendingJump = here();
      s_.code.push_back({Op::JumpIfFalse, pred, 0});
      return true;
    }
    case K::Switch: {
      SwitchTable table;
      table.control = addScalar(n.tensors[0]);
      code.slot = static_cast<std::uint32_t>(s_.switches.size());
      s_.switches.push_back(table);
      addControlStep(n, branch);
      s_.code.push_back({Op::Switch, code.slot, 0});
      return true;
    }
    case K::Copy: {
      checkWritable(n.tensors[1], n, "destination");
      auto step = std::make_unique<CopyStep>(s_.access(n.tensors[0]), s_.access(n.tensors[1]));
      addStep(std::move(step), n, [src = n.tensors[0], dst = n.tensors[1]](const CostModel &m) { return m.copy(src, dst); });
      return true;
    }
    case K::StreamToTensor: {
      checkWritable(n.tensors[0], n, "destination");
      auto step = std::make_unique<StreamToTensorStep>();
      step->stream = &streamFor(n);
      step->dst = s_.access(n.tensors[0]);
      addStep(std::move(step), n, hostTransfer(step->dst));
      return true;
    }
    case K::TensorToStream: {
      auto step = std::make_unique<TensorToStreamStep>();
      step->stream = &streamFor(n);
      step->src = s_.access(n.tensors[0]);
      addStep(std::move(step), n, hostTransfer(step->src));
      return true;
    }
    case K::WriteUndef: // the next step that uses it starts its liveness
      s_.access(n.tensors[0]);
      s_.noteWrite(n.tensors[0]);
      return true;
    case K::Call:
      if (n.id >= s_.graph->functions.size())
        throw graph_program_compilation_error("Call '" + n.name + "': unknown function id " + std::to_string(n.id));
      if (hasFunctionBuffer(*s_.graph, n.id))
        addStep(bufferedFunctionCallStep(s_, n), n, [](const CostModel &m) { return m.loop(1); });
      else
        addControlStep(n, [](const CostModel &m) { return m.loop(1); });
      pendingCalls_.push_back(here());
      s_.code.push_back({Op::Call, n.id, 0});
      return true;
    case K::PrintTensor: {
      auto step = std::make_unique<PrintTensorStep>();
      step->title = n.text.empty() ? detail::tensorImpl(n.tensors[0]).describe() : n.text;
      step->shape = n.tensors[0].shape();
      step->src = s_.access(n.tensors[0]);
      step->format = n.format;
      step->stream = &s_.printStream;
      addStep(std::move(step), n, hostTransfer(step->src));
      return true;
    }
    case K::Sync:
      addControlStep(n, syncOf(n));
      return true;
    case K::HostCall: {
      auto step = hostCall(n);
      std::size_t bytes = 0; // a host call sends its inputs to the host and its outputs back
      for (const auto *side : {&step->inputs, &step->outputs})
        for (const Access &a : *side) bytes += a.numElements * a.elemSize;
      addStep(std::move(step), n, [bytes](const CostModel &m) { return m.hostTransfer(bytes); });
      return true;
    }
    case K::Abort:
    case K::AbortOnCondition: {
      auto step = std::make_unique<AbortStep>();
      step->message = n.text;
      const bool conditional = n.kind == K::AbortOnCondition;
      const std::uint32_t pred = conditional ? addScalar(n.tensors[0]) : 0;
      addStep(std::move(step), n, conditional ? branch : Step::Estimate([](const CostModel &) { return CycleEstimate{}; }));
      if (conditional) pendingConditions_.emplace_back(s_.steps.size() - 1, pred);
      return true;
    }
    case K::CycleStamp: {
      s_.hasCounters = true;
      checkWritable(n.tensors[0], n, "destination");
      auto step = std::make_unique<CycleStampStep>();
      step->clock = &s_.clock;
      step->dst = s_.access(n.tensors[0]);
      addStep(std::move(step), n, syncOf(n));
      return true;
    }
    case K::CrossReplica: {
      checkWritable(n.tensors[1], n, "destination");
      auto step = std::make_unique<CollectiveStep>();
      step->spec = CrossReplicaSpec::decode(n.caseValues);
      step->spec.checkReplicas(s_.graph->replicationFactor, nodeLabel(n));
      step->src = s_.access(n.tensors[0]);
      step->dst = s_.access(n.tensors[1]);
      const std::uint64_t linkBytes =
          step->spec.linkBytes(step->src.numElements * step->src.elemSize, s_.graph->replicationFactor);
      addStep(std::move(step), n, [linkBytes](const CostModel &m) { return m.ipuLinkTransfer(linkBytes); });
      return true;
    }
    case K::RemoteToTensor:
    case K::TensorToRemote: {
      if (n.kind == K::RemoteToTensor) checkWritable(n.tensors[0], n, "destination");
      auto step = remoteCopyStep(s_, n);
      addStep(std::move(step), n, hostTransfer(s_.access(n.tensors[0])));
      return true;
    }
    case K::FunctionLoad: {
      auto step = functionLoadStep(s_, n);
      const unsigned f = static_cast<unsigned>(n.caseValues[0]);
      loadedFunctions_.push_back(f);
      // The function's body is compiled after the programs, so its size is read then.
      addStep(std::move(step), n, [&s = s_, f](const CostModel &m) {
        return m.functionCodeLoad(s.functionInstructions[f]);
      });
      return true;
    }
    case K::CycleCount: {
      s_.hasCounters = true;
      checkWritable(n.tensors[0], n, "destination");
      auto start = std::make_unique<CycleCountStartStep>();
      start->clock = &s_.clock;
      addStep(std::move(start), n, syncOf(n));
      code.slot = static_cast<std::uint32_t>(s_.steps.size() - 1);
      return true;
    }
    }
    return true;
  }

public:
  void beforeChild(const ProgramNode &n, std::size_t child, ControlCode &code) {
    if (n.kind != ProgramNode::Kind::Switch) return;
    // A switch's children are its default then its cases.
    SwitchTable &table = s_.switches[code.slot];
    if (child == 0) table.defaultTarget = here();
    else table.cases.emplace_back(n.caseValues[child - 1], here());
  }

  void afterChild(const ProgramNode &n, std::size_t child, ControlCode &code) {
    using K = ProgramNode::Kind;
    switch (n.kind) {
    case K::RepeatWhileTrue:
    case K::RepeatWhileFalse:
      if (child != 0) return; // the code below comes after the condition, before the body
      addControlStep(n, branch); // once per evaluation of the predicate
      code.pendingJump = here();
      s_.code.push_back({n.kind == K::RepeatWhileTrue ? Op::JumpIfFalse : Op::JumpIfTrue, code.predicate, 0});
      return;
    case K::If:
      if (child == 0) { // after the then-body: jump over the else-body, which starts here
        const std::uint32_t toEnd = here();
        s_.code.push_back({Op::Jump, 0, 0});
        s_.code[code.pendingJump].target = here();
        code.pendingJump = toEnd;
      }
      return;
    case K::Switch:
      code.exits.push_back(here());
      s_.code.push_back({Op::Jump, 0, 0});
      return;
    default: return;
    }
  }

private:
  // The code of a program after its children.
  void emitLeave(const ProgramNode &n, ControlCode &code) {
    using K = ProgramNode::Kind;
    switch (n.kind) {
    case K::Repeat: s_.code.push_back({Op::LoopNext, code.slot, code.top}); return;
    case K::Loop: s_.code.push_back({Op::Jump, 0, code.top}); return;
    case K::RepeatWhileTrue:
    case K::RepeatWhileFalse:
      s_.code.push_back({Op::Jump, 0, code.top});
      s_.code[code.pendingJump].target = here();
      return;
    case K::If: s_.code[code.pendingJump].target = here(); return;
    case K::Switch:
      for (std::uint32_t e : code.exits) s_.code[e].target = here();
      return;
    case K::CycleCount: {
      auto end = std::make_unique<CycleCountEndStep>();
      end->clock = &s_.clock;
      end->start = static_cast<const CycleCountStartStep *>(s_.steps[code.slot].get());
      end->dst = s_.access(n.tensors[0]);
      addStep(std::move(end), n, syncOf(n));
      return;
    }
    default: return;
    }
  }

private:
  void emitExecute(const ProgramNode &n) {
    auto step = std::make_unique<ExecuteStep>();
    step->codeletStream = &s_.codeletPrintStream;
    const ComputeSetInfo &cs = s_.graph->computeSet(n.id);
    const std::vector<std::vector<bool>> snapshotted = vertexReadsWrittenByOthers(cs.kernels);
    for (std::size_t ki = 0; ki < cs.kernels.size(); ++ki) {
      const Kernel &k = cs.kernels[ki];
      std::vector<Access> operands;
      for (std::size_t i = 0; i < k.reads.size(); ++i) {
        const Access a = s_.access(k.reads[i]);
        operands.push_back(snapshotted[ki][i] ? step->vertices.snapshot(a) : a);
      }
      for (const Tensor &t : k.writes) {
        checkWritable(t, n, "output");
        operands.push_back(s_.access(t));
      }
      if (const auto placement = vertexPlacement(k)) {
        std::uint64_t elements = 0;
        for (const Access &a : operands) elements += a.numElements;
        step->vertices.add(placement->tile, k.compile(operands), elements);
      } else {
        step->kernels.push_back(k.compile(operands));
      }
    }
    addStep(std::move(step), n, [kernels = cs.kernels](const CostModel &m) { return m.computeSet(kernels); });
    if (!cs.name.empty() && n.name.empty()) s_.steps.back()->name = cs.name;
  }

  // A Sync program, or the sync before a cycle stamp.
  static Step::Estimate syncOf(const ProgramNode &n) {
    return [type = static_cast<SyncType>(n.id)](const CostModel &m) { return m.sync(type); };
  }
  static CycleEstimate branch(const CostModel &m) { return m.branch(); }
  static Step::Estimate hostTransfer(const Access &a) {
    return [bytes = a.numElements * a.elemSize](const CostModel &m) { return m.hostTransfer(bytes); };
  }

  std::unique_ptr<HostCallStep> hostCall(const ProgramNode &n) {
    if (n.id >= s_.hostFunctions.size())
      throw graph_program_compilation_error("Call '" + n.name + "': unknown host function id " + std::to_string(n.id));
    HostFunctionSlot &f = s_.hostFunctions[n.id];
    const std::string what = "Call of host function '" + f.info.handle + "'";
    if (n.tensors.size() != f.info.ins.size() + f.info.outs.size())
      throw graph_program_compilation_error(what + ": it takes " + std::to_string(f.info.ins.size()) +
                                            " input(s) and " + std::to_string(f.info.outs.size()) +
                                            " output(s) but the program gives " + std::to_string(n.tensors.size()) +
                                            " tensor(s)");
    auto step = std::make_unique<HostCallStep>();
    step->function = &f;
    for (std::size_t i = 0; i < n.tensors.size(); ++i) {
      const bool isInput = i < f.info.ins.size();
      const HostFunctionArgument &arg = isInput ? f.info.ins[i] : f.info.outs[i - f.info.ins.size()];
      const Tensor &t = n.tensors[i];
      if (t.elementType() != std::get<0>(arg) || t.numElements() != std::get<1>(arg))
        throw graph_program_compilation_error(
            what + ": " + (isInput ? "input " : "output ") + detail::tensorImpl(t).describe() + " does not match the declared " +
            std::to_string(std::get<1>(arg)) + " x " + std::get<0>(arg).toString().str());
      if (!isInput) checkWritable(t, n, "output");
      (isInput ? step->inputs : step->outputs).push_back(s_.access(t));
    }
    step->buffers.resize(n.tensors.size());
    return step;
  }

public:
  // Scalars live in a vector that grows during compilation; bind pointers last.
  void bindConditions() {
    for (auto [step, pred] : pendingConditions_)
      static_cast<AbortStep &>(*s_.steps[step]).condition = &s_.scalars[pred];
  }

private:
  EngineState &s_;
  ProgramRecorder programs_;
  std::vector<std::uint32_t> pendingCalls_;
  std::vector<unsigned> loadedFunctions_; // by FunctionLoad programs
  std::vector<std::pair<std::size_t, std::uint32_t>> pendingConditions_;
};

void checkMappingAndMemory(EngineState &s) {
  const Target &target = s.graph->target;
  s.tileBytes.assign(target.getNumTiles(), 0);
  s.constantTileBytes.assign(target.getNumTiles(), 0);
  for (unsigned id : s.usedVars) {
    const Variable &v = s.graph->vars->vars[id];
    const auto gaps = v.unmapped(0, v.numElements);
    if (!gaps.empty()) {
      std::size_t missing = 0;
      for (const auto &g : gaps) missing += g.second - g.first;
      throw invalid_tile_mapping(
          std::string(v.isConstant ? "Constant" : "Variable") + " '" + v.name + "' " +
          shapeString(v.shape) + " " + v.type.toString().str() + " has " + std::to_string(missing) +
          " of " + std::to_string(v.numElements) +
          " elements with no tile mapping (first unmapped element: " + std::to_string(gaps[0].first) +
          "). Map every element to a tile (Graph::setTileMapping or poputil::mapTensorLinearly) "
          "before creating an Engine.");
    }
    const unsigned size = typeSize(v.type);
    for (const auto &m : v.mapping) {
      const std::size_t bytes = (m.second.first - m.first) * size;
      s.tileBytes[m.second.second] += bytes;
      if (v.isConstant) s.constantTileBytes[m.second.second] += bytes;
    }
  }
  if (flag(s.options, "debug.allowOutOfMemory", true)) return;
  std::vector<unsigned> over;
  for (unsigned t = 0; t < s.tileBytes.size(); ++t)
    if (s.tileBytes[t] > target.getBytesPerTile()) over.push_back(t);
  if (over.empty()) return;
  std::ostringstream msg;
  msg << "Out of memory: Cannot fit all variable data onto one or more tiles. " << over.size()
      << " tile(s) out of memory; tile " << over[0] << " needs " << withCommas(s.tileBytes[over[0]])
      << " bytes of " << withCommas(target.getBytesPerTile()) << " available.";
  throw graph_memory_allocation_error(msg.str());
}

} // namespace

Access EngineState::access(const Tensor &t) {
  const TensorImpl &impl = detail::tensorImpl(t);
  if (impl.vars != graph->vars)
    throw graph_program_compilation_error("Tensor " + impl.describe() + " belongs to a different graph");
  Access a;
  a.type = impl.type;
  a.elemSize = typeSize(impl.type);
  a.numElements = impl.numElements();
  std::set<unsigned> vars;
  impl.forEachRun([&](const Run &r) {
    if (r.var >= memory.size())
      throw graph_program_compilation_error("Tensor " + impl.describe() +
                                            " uses a variable added after the Engine was compiled");
    a.segments.push_back(Segment{memory[r.var].get() + r.start * a.elemSize, r.count,
                                 static_cast<std::ptrdiff_t>(r.stride) * a.elemSize});
    vars.insert(r.var);
  });
  a.vars.assign(vars.begin(), vars.end());
  usedVars.insert(vars.begin(), vars.end());
  for (unsigned v : vars) ++pendingUses[v].first;
  return a;
}

void EngineState::noteWrite(const Tensor &t) {
  std::set<unsigned> vars;
  detail::tensorImpl(t).forEachRun([&](const Run &r) { vars.insert(r.var); });
  for (unsigned v : vars) ++pendingUses[v].second;
}

void EngineState::estimateCycles() {
  if (estimated) return;
  const CostModel model(graph->target, *graph->vars);
  for (auto &step : steps) {
    step->cost = step->estimate(model);
    step->cycles = step->cost.total();
  }
  estimated = true;
}

std::string EngineState::replicasText() const {
  if (slice.whole()) return "the graph has " + std::to_string(slice.total) + " replica(s)";
  return "this instance runs replicas " + std::to_string(slice.first) + " to " +
         std::to_string(slice.first + slice.count - 1) + " of " + std::to_string(slice.total) + " as 0 to " +
         std::to_string(slice.count - 1);
}

void EngineState::resetMemory() {
  const auto &vars = graph->vars->vars;
  for (std::size_t i = 0; i < memory.size(); ++i) {
    const std::size_t bytes = vars[i].numElements * typeSize(vars[i].type);
    if (vars[i].data.empty()) std::memset(memory[i].get(), 0, bytes);
    else std::memcpy(memory[i].get(), vars[i].data.data(), bytes);
  }
  const std::uint32_t index = replica;
  for (unsigned id : graph->replicaIndexVars)
    if (id < memory.size()) std::memcpy(memory[id].get(), &index, sizeof index);
}

bool Scalar::isTrue() const {
  if (type == HALF) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return (h & 0x7fffu) != 0;
  }
  return loadElement(type, p) != 0;
}

std::int64_t Scalar::value() const { return static_cast<std::int64_t>(loadElement(type, p)); }

void StreamState::transfer(std::uint8_t *device, std::size_t bytes, bool toDevice) {
  // Copies between the device-side buffer and `n` host bytes at `host`.
  const auto move = [&](std::uint8_t *host, std::size_t offset, std::size_t n) {
    if (toDevice) std::memcpy(device + offset, host, n);
    else std::memcpy(host, device + offset, n);
  };
  switch (mode) {
  case Mode::Unconnected:
    throw stream_connection_error("Stream '" + stream.handle() +
                                  "' is not connected: call Engine::connectStream or "
                                  "connectStreamToCallback before running");
  case Mode::Buffer:
    move(begin + slot * bytes, 0, bytes);
    return;
  case Mode::Circular: {
    // Each copy takes `slots` items (one per replica) from the buffer; this replica's
    // is item `slot`.
    const std::size_t size = static_cast<std::size_t>(end - begin);
    std::size_t at = (position + slot * bytes) % size;
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t n = std::min(bytes - done, size - at);
      move(begin + at, done, n);
      done += n;
      at = (at + n) % size;
    }
    position = (position + slots * bytes) % size;
    return;
  }
  case Mode::Callback:
    if (!callback) { // a BROADCAST stream's other replicas: replica 0 fetched their data
      if (broadcast->empty())
        throw stream_connection_error("Stream '" + stream.handle() +
                                      "': a replica copies from the BROADCAST stream more often than replica 0");
      std::memcpy(device, broadcast->front().data(), bytes);
      broadcast->pop_front();
      return;
    }
    if (hasPrefetched && prefetched.size() != bytes) replaceCallback(callback, prefetch); // another copy size
    if (hasPrefetched) {
      std::memcpy(device, prefetched.data(), bytes);
      hasPrefetched = false;
    } else if (resumable) {
      Internals::fetchWhenReady(*resumable, device);
    } else {
      callback->fetch(device);
    }
    callback->complete();
    if (broadcast) broadcast->emplace_back(device, device + bytes);
    if (toDevice && prefetch) {
      prefetched.resize(bytes);
      hasPrefetched = callback->prefetch(prefetched.data()) == StreamCallback::Result::Success;
    }
    return;
  }
}

void StreamState::replaceCallback(std::shared_ptr<StreamCallback> cb, bool prefetchAhead) {
  if (hasPrefetched && callback) callback->invalidatePrefetched();
  hasPrefetched = false;
  callback = std::move(cb);
  resumable = dynamic_cast<ResumableStreamCallback *>(callback.get());
  prefetch = callback && prefetchAhead;
}

EngineState::Pause EngineState::execute() {
  for (;;) {
    // Every loop passes a step or a jump, so a stop is seen within one iteration.
    if (stopRequested.load(std::memory_order_relaxed)) return Pause::Stopped;
    const Instr &in = code[pc];
    switch (in.op) {
    case Op::Run: {
      Step &step = *steps[in.arg];
      if (step.crossReplica) return Pause::CrossReplica;
      if (profiling) {
        ++step.executions;
        if (trace.recording) trace.record(in.arg);
      }
      clock += step.cycles;
      if (timeSteps && profiling) {
        const auto t0 = std::chrono::steady_clock::now();
        step.run();
        step.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      } else {
        step.run();
      }
      ++pc;
      break;
    }
    case Op::Jump: pc = in.target; break;
    case Op::JumpIfFalse: pc = scalars[in.arg].isTrue() ? pc + 1 : in.target; break;
    case Op::JumpIfTrue: pc = scalars[in.arg].isTrue() ? in.target : pc + 1; break;
    case Op::LoopInit:
      loopCounters[in.arg] = loopCounts[in.arg];
      ++pc;
      break;
    case Op::LoopNext: pc = --loopCounters[in.arg] ? in.target : pc + 1; break;
    case Op::Call:
      callStack.push_back(pc + 1);
      pc = in.target;
      break;
    case Op::Return:
      pc = callStack.back();
      callStack.pop_back();
      break;
    case Op::Switch: {
      const SwitchTable &table = switches[in.arg];
      const std::int64_t v = scalars[table.control].value();
      pc = table.defaultTarget;
      for (const auto &c : table.cases)
        if (c.first == v) { pc = c.second; break; }
      break;
    }
    case Op::Halt: return Pause::Halted;
    }
  }
}

namespace {
// Runs every replica up to its next cross-replica step (replica after replica: they
// share nothing else), runs that step across them, and so on until all halt. An engine
// running a slice of the replicas also checks at the end that every instance ended.
void runInLockstep(EngineState &s, unsigned prog) {
  using Pause = EngineState::Pause;
  for (;;) {
    std::vector<EngineState *> replicas;
    std::vector<Pause> pauses;
    s.forEachReplica([&](EngineState &r) {
      replicas.push_back(&r);
      pauses.push_back(r.execute());
    });
    bool allHalted = true;
    for (Pause p : pauses) {
      if (p == Pause::Stopped) return;
      allHalted = allHalted && p == Pause::Halted;
    }
    const std::string program = "program " + std::to_string(prog);
    if (allHalted) {
      if (!s.slice.whole()) exchangeStep(s.slice, "the end of " + program, std::vector<std::string>(s.slice.count));
      return;
    }
    const auto stepAt = [](const EngineState &r) { return r.code[r.pc].arg; };
    std::vector<CrossReplicaStep *> peers;
    for (std::size_t i = 0; i < replicas.size(); ++i) {
      if (pauses[i] != Pause::CrossReplica || pauses[0] != Pause::CrossReplica ||
          stepAt(*replicas[i]) != stepAt(*replicas[0])) {
        const auto where = [&](std::size_t k) {
          return pauses[k] == Pause::Halted ? std::string("the end of the program")
                                            : "cross-replica step '" + replicas[k]->steps[stepAt(*replicas[k])]->name + "'";
        };
        throw poplar_error("Engine::run: the replicas took different paths: replica " + std::to_string(s.replica) +
                           " reached " + where(0) + " but replica " + std::to_string(replicas[i]->replica) +
                           " reached " + where(i) +
                           " (collectives must run on every replica)");
      }
      peers.push_back(static_cast<CrossReplicaStep *>(replicas[i]->steps[stepAt(*replicas[i])].get()));
    }
    for (EngineState *r : replicas) {
      Step &step = *r->steps[stepAt(*r)];
      if (r->profiling) {
        ++step.executions;
        if (r->trace.recording) r->trace.record(stepAt(*r));
      }
      r->clock += step.cycles;
      ++r->pc;
    }
    const std::string where = "step " + std::to_string(stepAt(s)) + " of " + program;
    if (s.timeSteps && s.profiling) {
      const auto t0 = std::chrono::steady_clock::now();
      peers[0]->runAcross(peers, s.slice, where);
      peers[0]->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else {
      peers[0]->runAcross(peers, s.slice, where);
    }
  }
}
} // namespace

} // namespace detail

using detail::EngineState;

namespace detail {
namespace {
// The plan of `exe`'s programs and the memory and handles of replica `replica` (global
// index) of `slice`; `options` are the compiled and the engine's, merged.
std::unique_ptr<EngineState> buildReplica(const Executable &exe, const OptionFlags &options, ProgressFunc progress,
                                          unsigned replica, const ReplicaSlice &slice) {
  auto state = std::make_unique<EngineState>();
  EngineState &s = *state;
  const detail::ExecutableState &compiled = detail::executableState(exe);
  s.graph = compiled.graph;
  s.replica = replica;
  s.slice = slice;
  s.options = options;
  s.timeSteps = detail::flag(s.options, "debug.instrument", false) ||
                detail::flag(s.options, "autoReport.all", false);
  s.randomSeed = detail::seedOption(s.options);
  s.numThreads = detail::numThreadsOption(s.options);
  detail::ThreadPool::instance(); // started here, so a bad POPDSL_NUM_THREADS stops the first engine
  if (replica == 0) s.trace.configure(s.options);
  s.printStream = &std::cerr;
  const int total = static_cast<int>(compiled.programs.size()) + 1;
  if (progress) progress(0, total);

  const auto &vars = s.graph->vars->vars;
  for (const auto &v : vars) {
    try {
      s.memory.push_back(detail::alignedBytes(v.numElements * detail::typeSize(v.type)));
    } catch (const std::bad_alloc &) {
      throw graph_memory_allocation_error("Cannot allocate host memory for variable '" + v.name + "'");
    }
  }
  for (const auto &kv : s.graph->streams) {
    StreamState &st = s.streams[kv.first];
    st.stream = kv.second;
    const bool perReplica = isDeviceToHost(kv.second.type()) ||
                            kv.second.replicatedMode() == ReplicatedStreamMode::REPLICATE;
    st.slot = perReplica ? replica - slice.first : 0; // host buffers hold the engine's replicas
    st.slots = perReplica ? slice.count : 1;
  }
  for (const auto &kv : s.graph->remoteBuffers)
    s.remoteMemory[kv.first].assign(
        detail::remoteBufferBytes(kv.second.elementType(), kv.second.numElements(), kv.second.getRepeats()), 0);
  for (const auto &info : s.graph->hostFunctions) s.hostFunctions.push_back({info, nullptr});
  for (const auto &kv : s.graph->hostWrites) {
    detail::checkWritableTensor(kv.second, "Host write '" + kv.first + "': tensor");
    s.hostWrites[kv.first] = s.access(kv.second);
  }
  for (const auto &kv : s.graph->hostReads) s.hostReads[kv.first] = s.access(kv.second);

  detail::Compiler compiler(s);
  for (std::size_t i = 0; i < compiled.programs.size(); ++i) {
    compiler.compileProgram(compiled.programs[i]);
    if (progress) progress(static_cast<int>(i + 1), total);
  }
  compiler.compileFunctions();
  compiler.bindConditions();
  s.loopCounters.assign(s.loopCounts.size(), 0);
  detail::checkMappingAndMemory(s);
  if (s.hasCounters) s.estimateCycles(); // counters read the estimated clock as steps run
  if (progress) progress(total, total);
  return state;
}

std::unique_ptr<EngineState> buildEngine(const Executable &exe, const OptionFlags &opt, ProgressFunc progress) {
  const detail::ExecutableState &compiled = detail::executableState(exe);
  OptionFlags options = compiled.options;
  for (const auto &kv : detail::validatedOptions(opt)) options.set(kv.first, kv.second);
  const ReplicaSlice slice = replicaSlice(options, compiled.graph->replicationFactor);
  auto state = buildReplica(exe, options, std::move(progress), slice.first, slice);
  for (unsigned r = slice.first + 1; r < slice.first + slice.count; ++r)
    state->otherReplicas.push_back(buildReplica(exe, options, {}, r, slice));
  return state;
}
} // namespace

Engine Internals::engine(std::unique_ptr<EngineState> state) { return Engine(std::move(state)); }

Engine makeEngine(const Executable &exe, const OptionFlags &opt, ProgressFunc progress) {
  return Internals::engine(buildEngine(exe, opt, std::move(progress)));
}

void setRandomSeed(Engine &engine, std::uint64_t seed) {
  engineState(engine).forEachReplica([seed](EngineState &s) {
    s.randomSeed = seed;
    if (s.loaded) s.seedHardware();
  });
}

std::uint64_t getRandomSeed(const Engine &engine) { return engineState(engine).randomSeed; }

bool hostTensor(const Engine &engine, const std::string &handle, bool read, Type &type, std::size_t &numElements) {
  const auto &handles = read ? engineState(engine).hostReads : engineState(engine).hostWrites;
  const auto it = handles.find(handle);
  if (it == handles.end()) return false;
  type = it->second.type;
  numElements = it->second.numElements;
  return true;
}

} // namespace detail

Engine::Engine(std::unique_ptr<EngineState> state) : state_(std::move(state)) {}

Engine::Engine(const Executable &exe, const OptionFlags &opt) : state_(detail::buildEngine(exe, opt, {})) {}

Engine::Engine(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt,
               ProgressFunc progress, const DebugContext &dc)
    : state_(detail::buildEngine(compileGraph(graph, progs, opt, {}, dc), {}, std::move(progress))) {}

Engine::Engine(const Graph &graph, program::Program prog, const OptionFlags &opt,
               ProgressFunc progress, const DebugContext &dc)
    : Engine(graph, ArrayRef<program::Program>(&prog, 1), opt, std::move(progress), dc) {}

Engine::Engine(Engine &&) noexcept = default;
// The engine replaced by an assignment is gone as if destroyed: its report is due.
Engine &Engine::operator=(Engine &&other) noexcept {
  if (this != &other) {
    if (state_) detail::writeAutoReportIfRequested(*this);
    state_ = std::move(other.state_);
  }
  return *this;
}
Engine::~Engine() {
  if (!state_) return;
  detail::writeAutoReportIfRequested(*this);
  state_->forEachReplica([](EngineState &r) {
    for (auto &kv : r.streams) kv.second.replaceCallback(nullptr, false);
  });
}

RuntimeOptions::RuntimeOptions(const OptionFlags &flags) : flags_(detail::validatedRuntimeOptions(flags)) {}

void Engine::prepare(const Device &device, const RuntimeOptions &) { prepare(device); }

void Engine::prepare(const Device &device) {
  // A replicated graph's target is one replica's share of the device's IPUs; an instance
  // running a slice of the replicas may have a device of just the slice's IPUs.
  const Target &target = state_->graph->target, &deviceTarget = device.getTarget();
  const unsigned replicas = state_->graph->replicationFactor;
  const unsigned ipus = deviceTarget.getNumIPUs();
  const bool fits = (ipus == replicas * target.getNumIPUs() || ipus == state_->slice.count * target.getNumIPUs()) &&
                    deviceTarget.createVirtualTarget(target.getNumIPUs(), deviceTarget.getTilesPerIPU()) == target;
  if (!fits)
    throw poplar_error("Engine::load: the device's target (" + deviceTarget.getTargetArchString().str() + ", " +
                       std::to_string(deviceTarget.getNumIPUs()) + " IPU(s), " +
                       std::to_string(deviceTarget.getNumTiles()) + " tiles) differs from the graph's target (" +
                       target.getTargetArchString().str() + ", " + std::to_string(replicas) + " replica(s) of " +
                       std::to_string(target.getNumIPUs()) + " IPU(s), " + std::to_string(target.getNumTiles()) +
                       " tiles each)");
}

void Engine::deploy() {
  state_->forEachReplica([](EngineState &r) {
    r.resetMemory();
    for (auto &step : r.steps) step->reset();
    r.seedHardware();
    r.clock = 0;
    r.loaded = true;
  });
}

void Engine::load(const Device &device) {
  prepare(device);
  deploy();
}

void Engine::run(unsigned prog, const std::string &) {
  EngineState &s = *state_;
  if (!s.loaded)
    throw poplar_error("Engine::run: the engine is not loaded; call Engine::load(device) first");
  if (prog >= s.entries.size())
    throw index_error("Engine::run: program index " + std::to_string(prog) +
                      " is out of range: the engine has " + std::to_string(s.entries.size()) +
                      " program(s)");
  if (s.running)
    throw poplar_error("Engine::run: the engine is already running (was run called from a stream callback?)");
  struct Running {
    bool &flag;
    explicit Running(bool &f) : flag(f) { flag = true; }
    ~Running() { flag = false; }
  } running(s.running);
  if (s.profiling) {
    ++s.runs;
    s.trace.beginRun(prog);
  }
  const detail::ThreadPool::Limit threads(s.numThreads);
  s.forEachReplica([prog](EngineState &r) {
    r.stopRequested = false; // a stop() before this run does not end it
    r.pc = r.entries[prog];
    r.callStack.clear();
  });
  detail::runInLockstep(s, prog);
}

void Engine::run(unsigned prog, const std::string &debugName, const RuntimeOptions &) { run(prog, debugName); }

void Engine::loadAndRun(const Device &device, unsigned prog) {
  load(device);
  run(prog);
}

void Engine::stop() {
  state_->forEachReplica([](EngineState &r) { r.stopRequested.store(true, std::memory_order_relaxed); });
}

Engine::TimerTimePoint Engine::getTimeStamp() {
  TimerTimePoint t;
  t.hostNanoseconds_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch()).count();
  state_->estimateCycles();
  t.cycles_ = state_->clock;
  return t;
}

std::string Engine::reportTiming(const TimerTimePoint &start, const TimerTimePoint &end) const {
  if (end.hostNanoseconds_ < start.hostNanoseconds_ || end.cycles_ < start.cycles_)
    throw poplar_error("Engine::reportTiming: the end time stamp is earlier than the start");
  std::ostringstream out;
  out << "Host time: " << static_cast<double>(end.hostNanoseconds_ - start.hostNanoseconds_) * 1e-9
      << " s, estimated cycles: " << end.cycles_ - start.cycles_;
  return out.str();
}

namespace {
detail::Access &hostHandle(std::map<std::string, detail::Access> &handles, StringRef handle,
                           const char *what, bool loaded) {
  if (!loaded)
    throw poplar_error(std::string("Engine::") + what +
                       ": the engine is not loaded; call Engine::load(device) first");
  auto it = handles.find(handle.str());
  if (it == handles.end()) {
    std::string known;
    for (const auto &kv : handles) known += (known.empty() ? "" : ", ") + kv.first;
    throw poplar_error(std::string("Engine::") + what + ": no handle '" + handle.str() +
                       "' (known: " + (known.empty() ? "none" : known) + ")");
  }
  return it->second;
}

// A replicated graph's host buffers hold every replica's tensor (the engine's replicas when
// it runs a slice of them), replica after replica.
void checkBufferSize(const detail::Access &a, unsigned replicas, std::size_t bytes, StringRef handle,
                     const char *what) {
  const std::size_t expected = replicas * a.numElements * a.elemSize;
  if (bytes != expected)
    throw poplar_error(std::string("Engine::") + what + ": the buffer for '" + handle.str() +
                       "' holds " + std::to_string(bytes) + " bytes but the tensor needs " +
                       std::to_string(expected) + " (" + (replicas > 1 ? std::to_string(replicas) + " replicas x " : "") +
                       std::to_string(a.numElements) + " x " + a.type.toString().str() + ")");
}
} // namespace

void Engine::writeTensor(StringRef handle, const void *buf, const void *bufEnd) {
  auto &a = hostHandle(state_->hostWrites, handle, "writeTensor", state_->loaded);
  const unsigned replicas = state_->slice.count;
  checkBufferSize(a, replicas, static_cast<std::size_t>(static_cast<const char *>(bufEnd) - static_cast<const char *>(buf)), handle, "writeTensor");
  const std::size_t bytes = a.numElements * a.elemSize;
  state_->forEachReplica([&](EngineState &r) {
    r.hostWrites.at(handle.str()).scatter(static_cast<const char *>(buf) + (r.replica - r.slice.first) * bytes);
  });
}

void Engine::readTensor(StringRef handle, void *buf, void *bufEnd) {
  auto &a = hostHandle(state_->hostReads, handle, "readTensor", state_->loaded);
  const unsigned replicas = state_->slice.count;
  checkBufferSize(a, replicas, static_cast<std::size_t>(static_cast<char *>(bufEnd) - static_cast<char *>(buf)), handle, "readTensor");
  const std::size_t bytes = a.numElements * a.elemSize;
  state_->forEachReplica([&](EngineState &r) {
    r.hostReads.at(handle.str()).gather(static_cast<char *>(buf) + (r.replica - r.slice.first) * bytes);
  });
}

namespace {
// Connecting replaces the callback or buffer a running copy may be using: the
// callback that asks for it is itself on the stack (its destruction was a SIGSEGV).
void checkNotRunning(const EngineState &s, const char *what) {
  if (s.running)
    throw stream_connection_error(std::string("Engine::") + what +
                                  ": the engine is running; connect streams and host functions between "
                                  "runs, not from a stream callback or host function");
}

detail::StreamState &streamState(EngineState &s, StringRef handle, const char *what) {
  checkNotRunning(s, what);
  auto it = s.streams.find(handle.str());
  if (it == s.streams.end()) {
    std::string known;
    for (const auto &kv : s.streams) known += (known.empty() ? "" : ", ") + kv.first;
    throw stream_connection_error(std::string("Engine::") + what + ": no stream with handle '" +
                                  handle.str() + "' (streams: " + (known.empty() ? "none" : known) + ")");
  }
  return it->second;
}

// Whether host-to-device callbacks are asked for their next copy's data ahead: the
// engine options allow prefetching and stream buffers that cannot overlap
// ("any" lets them overlap, so a prefetched buffer could be overwritten).
bool prefetchAhead(const EngineState &s) {
  const auto overlap = s.options.find("exchange.streamBufferOverlap");
  return detail::flag(s.options, "exchange.enablePrefetch", true) &&
         (overlap == s.options.end() || overlap->second != "any");
}

// Connects stream `handle` of every replica: `connect(replica's stream state)`.
template <class F> void connectEveryReplica(EngineState &s, StringRef handle, const char *what, F connect) {
  streamState(s, handle, what);
  s.forEachReplica([&](EngineState &r) { connect(r.streams.at(handle.str())); });
}

// Replica `replicaIndex`'s state (an index among the engine's replicas);
// stream_connection_error names the replicas there are.
EngineState &replicaState(EngineState &s, unsigned replicaIndex, const char *what) {
  return s.localReplica<stream_connection_error>(replicaIndex, std::string("Engine::") + what);
}
} // namespace

// A REPLICATE stream's buffer holds one item per replica for every copy.
void Engine::connectStream(StringRef handle, void *begin, void *end) {
  auto &st0 = streamState(*state_, handle, "connectStream");
  const std::size_t elem = detail::typeSize(st0.stream.elementType());
  const auto bytes = static_cast<std::size_t>(static_cast<char *>(end) - static_cast<char *>(begin));
  if (!begin || bytes == 0 || bytes % elem)
    throw stream_connection_error("Engine::connectStream: the buffer for stream '" + handle.str() +
                                  "' must hold a positive whole number of " +
                                  st0.stream.elementType().toString().str() + " elements (got " +
                                  std::to_string(bytes) + " bytes)");
  connectEveryReplica(*state_, handle, "connectStream", [&](detail::StreamState &st) {
    st.mode = detail::StreamState::Mode::Circular;
    st.begin = static_cast<std::uint8_t *>(begin);
    st.end = static_cast<std::uint8_t *>(end);
    st.position = 0;
    st.replaceCallback(nullptr, false);
    st.broadcast.reset();
  });
}

void Engine::connectStream(StringRef handle, void *p) {
  streamState(*state_, handle, "connectStream");
  if (!p) throw stream_connection_error("Engine::connectStream: null buffer for stream '" + handle.str() + "'");
  connectEveryReplica(*state_, handle, "connectStream", [&](detail::StreamState &st) {
    st.mode = detail::StreamState::Mode::Buffer;
    st.begin = static_cast<std::uint8_t *>(p);
    st.end = st.begin + st.slots * st.stream.numElements() * detail::typeSize(st.stream.elementType());
    st.replaceCallback(nullptr, false);
    st.broadcast.reset();
  });
}

// For all replicas: the callback is called for each replica's copies, replica after
// replica; a BROADCAST stream's callback only for replica 0's, whose data every
// replica receives.
void Engine::connectStreamToCallback(StringRef handle, StreamCallbackHandle f) {
  const std::shared_ptr<StreamCallback> callback = f.release();
  const bool broadcast = streamState(*state_, handle, "connectStreamToCallback").stream.replicatedMode() ==
                             ReplicatedStreamMode::BROADCAST &&
                         !state_->otherReplicas.empty();
  const auto queue = broadcast ? std::make_shared<detail::BroadcastQueue>() : nullptr;
  // A callback several replicas share is not asked ahead: its next data may be another replica's.
  const bool ahead = prefetchAhead(*state_) && (broadcast || state_->otherReplicas.empty());
  connectEveryReplica(*state_, handle, "connectStreamToCallback", [&](detail::StreamState &st) {
    st.mode = detail::StreamState::Mode::Callback;
    st.replaceCallback(broadcast && &st != &state_->streams.at(handle.str()) ? nullptr : callback, ahead);
    st.broadcast = queue;
    st.begin = st.end = nullptr;
  });
}

void Engine::connectStreamToCallback(StringRef handle, unsigned replicaIndex, StreamCallbackHandle f) {
  streamState(*state_, handle, "connectStreamToCallback");
  auto &st = replicaState(*state_, replicaIndex, "connectStreamToCallback").streams.at(handle.str());
  st.mode = detail::StreamState::Mode::Callback;
  st.replaceCallback(f.release(), prefetchAhead(*state_));
  st.broadcast.reset();
  st.begin = st.end = nullptr;
}

void Engine::connectHostFunction(StringRef handle, unsigned replicaIndex, HostCallbackHandle f) {
  checkNotRunning(*state_, "connectHostFunction");
  EngineState &replica = replicaState(*state_, replicaIndex, "connectHostFunction");
  for (auto &slot : replica.hostFunctions)
    if (slot.info.handle == handle.str()) {
      slot.callback = f.release();
      return;
    }
  std::string known;
  for (const auto &slot : state_->hostFunctions) known += (known.empty() ? "" : ", ") + slot.info.handle;
  throw stream_connection_error("Engine::connectHostFunction: no host function with handle '" + handle.str() +
                                "' (host functions: " + (known.empty() ? "none" : known) + ")");
}

std::vector<std::string> Engine::listStreams() const {
  std::vector<std::string> out;
  for (const auto &kv : state_->streams) out.push_back(kv.first);
  return out;
}

void Engine::setPrintTensorStream(std::ostream &os) { state_->printStream = &os; }

void Engine::setPrintStream(std::ostream &os) { state_->codeletPrintStream = &os; }

const OptionFlags &Engine::getEngineOptions() const { return state_->options; }

} // namespace poplar
