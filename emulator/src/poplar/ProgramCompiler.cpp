// The program compiler: Program trees lowered to an engine's steps and flat instruction list.
#include "ProgramCompiler.hpp"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "CrossReplica.hpp"
#include "ExecutableState.hpp"
#include "ProgramNode.hpp"
#include "ProgramWalk.hpp"
#include "Steps.hpp"
#include "TensorImpl.hpp"
#include "VertexKernel.hpp"

namespace poplar::detail {

void checkWritableTensor(const Tensor &t, const std::string &what) {
  if (t.containsConstant())
    throw graph_program_compilation_error(what + " " + detail::tensorImpl(t).describe() + " is a constant");
  if (t.containsAliases())
    throw graph_program_compilation_error(what + " " + detail::tensorImpl(t).describe() +
                                          " contains aliased elements (e.g. a broadcast) and cannot be written");
}

namespace {

// The graph's compute sets' names, by id (profile names of unnamed Execute programs).
std::vector<std::string> computeSetNames(const GraphState &g) {
  std::vector<std::string> names;
  names.reserve(g.computeSets.size());
  for (const ComputeSetInfo &cs : g.computeSets) names.push_back(cs.name);
  return names;
}

// Turns program trees into the flat instruction list.
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
    std::uint32_t branchStep = 0;     // If, Switch, While: the step that decides (BranchScope)
    std::uint32_t first = 0;          // If, Switch, While: its first instruction
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
      code.top = code.first = here();
      return true;
    case K::If: {
      const std::uint32_t pred = addScalar(n.tensors[0]);
      code.first = here();
      addControlStep(n, branchOn(n.tensors[0]));
      code.branchStep = lastStep();
      code.pendingJump = here();
      s_.code.push_back({Op::JumpIfFalse, pred, 0});
      return true;
    }
    case K::Switch: {
      SwitchTable table;
      table.control = addScalar(n.tensors[0]);
      code.slot = static_cast<std::uint32_t>(s_.switches.size());
      s_.switches.push_back(table);
      code.first = here();
      addControlStep(n, branchOn(n.tensors[0]));
      code.branchStep = lastStep();
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
      addControlStep(n, branchOn(n.tensors[0])); // once per evaluation of the predicate
      code.branchStep = lastStep();
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
      s_.branchScopes.push_back({code.branchStep, code.first, here()});
      return;
    case K::If:
      s_.code[code.pendingJump].target = here();
      s_.branchScopes.push_back({code.branchStep, code.first, here()});
      return;
    case K::Switch:
      for (std::uint32_t e : code.exits) s_.code[e].target = here();
      s_.branchScopes.push_back({code.branchStep, code.first, here()});
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
    if (s_.checkVertexAccess) step->vertices.checkVertexAccess(*s_.graph);
    addStep(std::move(step), n, [kernels = cs.kernels](const CostModel &m) { return m.computeSet(kernels); });
    if (!cs.name.empty() && n.name.empty()) s_.steps.back()->name = cs.name;
  }

  // A Sync program, or the sync before a cycle stamp.
  static Step::Estimate syncOf(const ProgramNode &n) {
    return [type = static_cast<SyncType>(n.id)](const CostModel &m) { return m.sync(type); };
  }
  static CycleEstimate branch(const CostModel &m) { return m.branch(); }
  // An If, Switch or While condition: on the predicate's IPUs (EngineState::estimateCycles
  // adds those of the steps it decides about).
  static Step::Estimate branchOn(const Tensor &predicate) {
    return [predicate](const CostModel &m) { return m.branch(&predicate); };
  }
  std::uint32_t lastStep() const { return static_cast<std::uint32_t>(s_.steps.size() - 1); }
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
  if (optionFlag(s.options, "debug.allowOutOfMemory", true)) return;
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

void compilePrograms(EngineState &s, const std::vector<program::Program> &programs, const ProgressFunc &progress,
                     int total) {
  Compiler compiler(s);
  for (std::size_t i = 0; i < programs.size(); ++i) {
    compiler.compileProgram(programs[i]);
    if (progress) progress(static_cast<int>(i + 1), total);
  }
  compiler.compileFunctions();
  compiler.bindConditions();
  s.loopCounters.assign(s.loopCounts.size(), 0);
  checkMappingAndMemory(s);
}

} // namespace poplar::detail
