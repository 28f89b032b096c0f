#pragma once
// A compiled Engine: memory for every variable, the program tree flattened to
// an instruction list with jumps, and the runtime state of streams.
#include <atomic>
#include <chrono>
#include <functional>
#include <cstdint>
#include <iosfwd>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <poplar/HostFunctionCallback.hpp>
#include <poplar/InstanceExchange.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/StreamCallback.hpp>

#include "Access.hpp"
#include "AlignedBytes.hpp"
#include "CostModel.hpp"
#include "ExecutionTrace.hpp"
#include "GraphState.hpp"
#include "IpuTimeline.hpp"
#include "TypeInfo.hpp"

namespace poplar::detail {

struct ProgramNode;

// One program step: work (copy, compute set, stream copy, print, ...) or the
// decision of a control program (Repeat, If, Switch, While condition, Call).
struct Step {
  virtual ~Step() = default;
  virtual void run() = 0;
  // Called when the engine loads: a step restores state it keeps between runs.
  virtual void reset() {}
  std::string kind;
  std::string name;
  std::uint32_t program = 0; // the program it belongs to, in EngineState::reportPrograms
  std::uint64_t executions = 0;
  double seconds = 0; // host time, only measured when timing is enabled
  // The cost model's estimate, made on demand (EngineState::estimateCycles).
  using Estimate = std::function<CycleEstimate(const CostModel &)>;
  Estimate estimate;
  CycleEstimate cost;       // estimated, per execution
  std::uint64_t cycles = 0; // cost.total(), added to the clock on every execution
  // A cross-replica step (a collective) runs once for all replicas, when every
  // replica has reached it: the engine calls runAcross, never run.
  bool crossReplica = false;
};

// Which of the graph's replicas an engine runs: [first, first + count) of total (engine
// options target.firstRuntimeReplica and target.numberRuntimeReplica; all by default).
// When they are a slice, `exchange` reaches the instances that run the others.
struct ReplicaSlice {
  unsigned first = 0, count = 1, total = 1;
  std::shared_ptr<InstanceExchange> exchange;
  bool whole() const { return count == total; }
};

// A collective: `local[k]` is replica slice.first + k's instance of this step (its own
// operands); `where` names the step and program for errors between instances.
struct CrossReplicaStep : Step {
  CrossReplicaStep() { crossReplica = true; }
  void run() override {}
  virtual void runAcross(const std::vector<CrossReplicaStep *> &local, const ReplicaSlice &slice,
                         const std::string &where) = 0;
};

// Data that a BROADCAST stream's callback gave replica 0, waiting for the other
// replicas (which run after it) to receive it too.
using BroadcastQueue = std::deque<std::vector<std::uint8_t>>;

struct StreamState {
  enum class Mode { Unconnected, Buffer, Circular, Callback };
  DataStream stream;
  Mode mode = Mode::Unconnected;
  std::uint8_t *begin = nullptr, *end = nullptr;
  std::size_t position = 0;
  // A host buffer holds one item per replica for each copy (REPLICATE streams and
  // device-to-host streams): this replica's is item `slot` of `slots`.
  unsigned slot = 0, slots = 1;
  std::shared_ptr<StreamCallback> callback; // shared when connected for all replicas
  ResumableStreamCallback *resumable = nullptr; // the callback, when it is one (looked up once)
  // Set on every replica of a BROADCAST stream whose callback serves all replicas.
  std::shared_ptr<BroadcastQueue> broadcast;
  // A host-to-device callback's prefetch: whether the engine asks for the next copy's
  // data ahead (see StreamCallback), and the data a successful prefetch() gave.
  bool prefetch = false;
  bool hasPrefetched = false;
  std::vector<std::uint8_t> prefetched;

  // Connects `cb` (null: a buffer, or a BROADCAST replica fed by replica 0), telling
  // the callback connected before that its prefetched data will not be used.
  void replaceCallback(std::shared_ptr<StreamCallback> cb, bool prefetchAhead);

  // Moves one copy's `bytes` between the dense device-side buffer and the host:
  // host to device when toDevice, else device to host.
  void transfer(std::uint8_t *device, std::size_t bytes, bool toDevice);
};

struct HostFunctionSlot {
  HostFunctionInfo info;
  std::unique_ptr<HostCallback> callback; // null until Engine::connectHostFunction
};

// A one-element predicate or switch control in engine memory.
struct Scalar {
  const std::uint8_t *p = nullptr;
  Type type;
  bool isTrue() const;
  std::int64_t value() const;
};

// An If, Switch or While: the step that decides (the predicate's broadcast) and the
// instructions [begin, end) of the whole program, which it decides about.
struct BranchScope {
  std::uint32_t step, begin, end;
};

enum class Op : std::uint8_t { Run, Jump, JumpIfFalse, JumpIfTrue, LoopInit, LoopNext, Call, Return, Switch, Halt };

struct Instr {
  Op op;
  std::uint32_t arg;    // step, scalar, loop slot or switch table index
  std::uint32_t target; // jump target
};

struct SwitchTable {
  std::uint32_t control; // scalar index
  std::vector<std::pair<std::int32_t, std::uint32_t>> cases;
  std::uint32_t defaultTarget = 0;
};

// A variable a step uses, and whether it reads it (else it only writes it): recorded
// while compiling, for the report's liveness (Liveness.hpp).
struct StepUse {
  unsigned var;
  bool reads;
};

struct EngineState {
  std::shared_ptr<GraphState> graph;
  // Replica `replica` of the graph's replicas (its global index). The first replica of the
  // engine's slice is the Engine's state and owns the others, which are built the same
  // way (their own memory, steps and streams) and run in lockstep with it.
  unsigned replica = 0;
  ReplicaSlice slice;
  std::vector<std::unique_ptr<EngineState>> otherReplicas;
  // Where this replica's run stands: execute() runs from pc until the program halts,
  // a stop, or a cross-replica step (left for the engine to run across replicas).
  enum class Pause { Halted, Stopped, CrossReplica };
  std::uint32_t pc = 0;
  std::vector<std::uint32_t> callStack;
  OptionFlags options;
  bool timeSteps = false;
  bool reportWritten = false; // writeProfileReport ran: the destructor writes no autoReport

  std::vector<AlignedBytes> memory; // one block per variable

  std::vector<std::unique_ptr<Step>> steps;
  // libpva's view (ProfileReport.cpp): the compiled program trees, the root of each
  // engine program among them, and the order in which steps ran (replica 0 only).
  std::vector<ReportProgram> reportPrograms;
  std::vector<std::uint32_t> entryPrograms;
  ExecutionTrace trace;
  std::vector<std::vector<StepUse>> stepUses; // by step
  // The uses since the step compiled last: variable -> (accesses, writes among them).
  std::map<unsigned, std::pair<unsigned, unsigned>> pendingUses;
  std::vector<Instr> code;
  std::vector<std::uint32_t> entries; // first instruction of each program
  std::vector<std::uint32_t> loopCounts;
  std::vector<std::uint32_t> loopCounters;
  std::vector<Scalar> scalars;
  std::vector<SwitchTable> switches;
  std::vector<BranchScope> branchScopes;
  std::map<std::string, StreamState> streams;
  std::map<std::string, std::vector<std::uint8_t>> remoteMemory; // each remote buffer's rows
  // Per function: whether its code is on the tiles (FunctionBuffer.cpp), and the
  // instructions of its compiled body (what a load from its buffer moves).
  std::vector<std::uint8_t> functionCodeLoaded;
  std::vector<std::uint64_t> functionInstructions;
  std::vector<HostFunctionSlot> hostFunctions;
  std::map<std::string, Access> hostWrites, hostReads;
  std::set<unsigned> usedVars;
  std::vector<std::size_t> tileBytes;         // variable and constant bytes per tile
  std::vector<std::size_t> constantTileBytes; // the constants' share of tileBytes

  bool loaded = false;
  bool running = false; // run() is not re-entrant: loop counters are per engine
  // Engine::stop() sets kStopRun, pauseRun() (a signal for Python, EmulatorExtensions.hpp)
  // kPauseRun; execute() checks for either at every step and jump.
  static constexpr std::uint8_t kStopRun = 1, kPauseRun = 2;
  std::atomic<std::uint8_t> stopRequested{0};
  // Called on the running thread when the run pauses: true resumes it, false stops it.
  std::function<bool()> onPause;
  bool checkVertexAccess = false; // "emulator.checkVertexAccess": vertices run with checked field accesses
  bool profiling = true; // Engine::disableExecutionProfiling: runs leave no counts
  std::ostream *printStream;
  std::ostream *codeletPrintStream = nullptr; // Engine::setPrintStream; null: stdout
  std::uint64_t runs = 0;
  std::uint64_t randomSeed = 0;
  unsigned numThreads = 0; // "emulator.numThreads": the most threads a run uses (0: the whole pool)
  std::uint64_t clock = 0; // estimated cycles since load: the cycleStamp counter
  // Elapsed cycles of the profiled runs with the IPUs in parallel (several-IPU targets:
  // steps' estimates are then made when compiling).
  IpuTimeline timeline;
  bool hasCounters = false; // cycleStamp/cycleCount steps: estimate when compiling
  bool estimated = false;

  Access access(const Tensor &t);
  // Notes that the step compiled next writes `t` (its access() counts as a write).
  void noteWrite(const Tensor &t);
  // Fills every step's cost (the model walks tile mappings, so only when needed).
  void estimateCycles();
  // Widens each branch step's IPUs to those of the steps it decides about (several-IPU
  // targets): every IPU that runs one of them needs the predicate.
  void spanBranches();
  // Counts one execution of `step` in the profile (when profiling): its count, the
  // trace, the timeline.
  void countExecution(std::uint32_t step) {
    if (!profiling) return;
    Step &st = *steps[step];
    ++st.executions;
    if (trace.recording) trace.record(step);
    if (timeline.active()) timeline.advance(st.cost, st.cycles);
  }
  void resetMemory();
  // Fills the hardware seeds variable (if the graph has one) from randomSeed.
  void seedHardware();
  Pause execute();
  // Every replica, this one first; f(state).
  template <class F> void forEachReplica(F f) {
    f(*this);
    for (auto &r : otherReplicas) f(*r);
  }
  // The engine's replica `local` (0 for its first); throws `Error` naming `what` and the
  // replicas there are when it has no such replica.
  template <class Error> EngineState &localReplica(unsigned local, const std::string &what) {
    if (local >= slice.count)
      throw Error(what + ": replica " + std::to_string(local) + " does not exist (" + replicasText() + ")");
    return local == 0 ? *this : *otherReplicas[local - 1];
  }
  // "the graph has 4 replica(s)", or for a slice "this instance runs replicas 2 to 3 of 4 as 0 to 1".
  std::string replicasText() const;
};

// Runs program `prog` (already at its entry on every replica) on all the engine's
// replicas, running each cross-replica step across them (EngineState.cpp).
void runInLockstep(EngineState &s, unsigned prog);

// The step of a RemoteToTensor or TensorToRemote program (RemoteBuffer.cpp).
std::unique_ptr<Step> remoteCopyStep(EngineState &s, const ProgramNode &n);

// The steps of a FunctionLoad program and of a Call of a function that has a function
// buffer, which fails while the function's code is not loaded (FunctionBuffer.cpp).
std::unique_ptr<Step> functionLoadStep(EngineState &s, const ProgramNode &n);
std::unique_ptr<Step> bufferedFunctionCallStep(EngineState &s, const ProgramNode &call);
bool hasFunctionBuffer(const GraphState &g, unsigned function);

// 1234567 -> "1,234,567"
std::string withCommas(std::uint64_t n);

// PrintTensor's text for dense element data.
std::string formatTensor(const std::string &title, const Type &type,
                         const std::vector<std::size_t> &shape, const std::uint8_t *data,
                         const PrintTensorFmt &fmt);

} // namespace poplar::detail
