// Building an Engine (its replicas' memory, streams and compiled programs) and the public poplar::Engine API.
#include <poplar/Engine.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "AutoReport.hpp"
#include "EngineState.hpp"
#include "ExecutableState.hpp"
#include "Instances.hpp"
#include "ProgramCompiler.hpp"
#include "ThreadPool.hpp"

namespace poplar {

using detail::EngineState;

namespace detail {

namespace {

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

// "emulator.checkVertexAccess" (validated by validatedOptions), else $POPDSL_CHECK_VERTEX_ACCESS
// (popdsl's pytest plugin sets it), else off.
bool checkVertexAccessOption(const OptionFlags &o) {
  if (o.find("emulator.checkVertexAccess") != o.end()) return optionFlag(o, "emulator.checkVertexAccess", false);
  const char *env = std::getenv("POPDSL_CHECK_VERTEX_ACCESS");
  if (!env || !*env) return false;
  const std::string value = env;
  if (value == "1" || value == "true") return true;
  if (value == "0" || value == "false") return false;
  throw invalid_option("Invalid value '" + value + "' for the environment variable POPDSL_CHECK_VERTEX_ACCESS: "
                       "expected 1, 0, true or false");
}

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
  s.timeSteps = detail::optionFlag(s.options, "debug.instrument", false) ||
                detail::optionFlag(s.options, "autoReport.all", false);
  s.randomSeed = detail::seedOption(s.options);
  s.numThreads = detail::numThreadsOption(s.options);
  s.checkVertexAccess = detail::checkVertexAccessOption(s.options);
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

  detail::compilePrograms(s, compiled.programs, progress, total);
  s.timeline.configure(s.graph->target.getNumIPUs());
  // Counters read the estimated clock as steps run, and the timeline adds up estimates.
  if (s.hasCounters || s.timeline.active()) s.estimateCycles();
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

void pauseRun(Engine &engine) {
  engineState(engine).forEachReplica(
      [](EngineState &r) { r.stopRequested.fetch_or(EngineState::kPauseRun, std::memory_order_relaxed); });
}

void setPauseHandler(Engine &engine, std::function<bool()> handler) { engineState(engine).onPause = std::move(handler); }

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
    s.forEachReplica([](EngineState &r) { r.timeline.startRun(); });
  }
  const detail::ThreadPool::Limit threads(s.numThreads);
  s.forEachReplica([prog](EngineState &r) {
    r.stopRequested = 0; // a stop() before this run does not end it
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
  state_->forEachReplica([](EngineState &r) { r.stopRequested.fetch_or(EngineState::kStopRun, std::memory_order_relaxed); });
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
  return detail::optionFlag(s.options, "exchange.enablePrefetch", true) &&
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
