#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Device.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/HostFunctionCallback.hpp>
#include <poplar/StreamCallback.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/exceptions.hpp>
#include <pva/pva.hpp>

namespace poplar {

namespace detail {
struct EngineState;
struct Internals;
} // namespace detail

// Options of one run (or of preparing a device): the RuntimeOptions keys of Poplar's
// Engine options ("streamCallbacks.*", "target.syncMethod", ...). An unknown key or a
// bad value raises invalid_option. POPLAR_RUNTIME_OPTIONS (JSON) overrides them.
//
// Emulator: runs are synchronous on the host, so the options are checked and kept,
// not acted on.
class RuntimeOptions {
public:
  RuntimeOptions(const OptionFlags &flags);
  RuntimeOptions(const RuntimeOptions &) = default;
  RuntimeOptions &operator=(const RuntimeOptions &) = default;

private:
  friend struct detail::Internals;
  OptionFlags flags_;
};

// Compiles a graph and its programs, then loads on a device and runs them.
class Engine {
public:
  using ProgressFunc = poplar::ProgressFunc;

  // A moment of an engine's life, for reportTiming: the host's clock and the engine's
  // estimated cycle counter.
  class TimerTimePoint {
  public:
    TimerTimePoint() = default;

  private:
    friend class Engine;
    std::int64_t hostNanoseconds_ = 0;
    std::uint64_t cycles_ = 0;
  };

  explicit Engine(const Executable &exe, const OptionFlags &opt = {});
  Engine(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt = {},
         ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {});
  Engine(const Graph &graph, program::Program prog, const OptionFlags &opt = {},
         ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {});
  Engine(Engine &&) noexcept;
  Engine &operator=(Engine &&) noexcept;
  ~Engine();

  void prepare(const Device &device);
  void prepare(const Device &device, const RuntimeOptions &runtimeOptions);
  void deploy();
  void load(const Device &device);
  void run(unsigned prog = 0, const std::string &debugName = "");
  void run(unsigned prog, const std::string &debugName, const RuntimeOptions &runtimeOptions);
  void loadAndRun(const Device &device, unsigned prog = 0);
  // Ends the run in progress (from a stream callback or host function, another thread,
  // or a signal handler: it only sets a flag) at its next step or loop iteration; that
  // run() then returns. A step already executing finishes first; the next run starts
  // afresh. Without a run going on, nothing happens.
  void stop();

  void writeTensor(StringRef handle, const void *buf, const void *bufEnd);
  void readTensor(StringRef handle, void *buf, void *bufEnd);
  template <class T> void writeTensor(StringRef handle, ArrayRef<T> buf) {
    writeTensor(handle, static_cast<const void *>(buf.data()), static_cast<const void *>(buf.data() + buf.size()));
  }
  // Like gccs::ArrayRef, the view is const: the elements it views are written.
  template <class T> void readTensor(StringRef handle, ArrayRef<T> buf) {
    using Element = typename std::remove_const<T>::type;
    Element *p = const_cast<Element *>(buf.data());
    readTensor(handle, static_cast<void *>(p), static_cast<void *>(p + buf.size()));
  }

  // A circular buffer [begin, end): each copy takes the next elements, wrapping.
  void connectStream(StringRef handle, void *begin, void *end);
  template <class T> void connectStream(StringRef handle, const ArrayRef<T> &buf) {
    using Element = typename std::remove_const<T>::type;
    Element *p = const_cast<Element *>(buf.data());
    connectStream(handle, static_cast<void *>(p), static_cast<void *>(p + buf.size()));
  }
  // Every copy uses the buffer at p.
  void connectStream(StringRef handle, void *p);
  // Writes (reads) row repeatIndex of remote buffer `handle` on replica replicationIndex:
  // the buffer's numElements elements of its type, from src (to dst).
  void copyToRemoteBuffer(void *src, StringRef handle, std::uint64_t repeatIndex,
                          unsigned replicationIndex = 0);
  void copyFromRemoteBuffer(StringRef handle, void *dst, std::uint64_t repeatIndex,
                            unsigned replicationIndex = 0);
  void connectStreamToCallback(StringRef handle, StreamCallbackHandle f);
  void connectStreamToCallback(StringRef handle, unsigned replicaIndex, StreamCallbackHandle f);
  std::vector<std::string> listStreams() const;
  void connectHostFunction(StringRef handle, unsigned replicaIndex, HostCallbackHandle f);

  void setPrintTensorStream(std::ostream &os);
  // Where vertices' printf (print.h) goes; the host's stdout until set.
  void setPrintStream(std::ostream &os);
  const OptionFlags &getEngineOptions() const;

  TimerTimePoint getTimeStamp();
  // "Host time: S s, estimated cycles: N" between two time stamps of this engine.
  std::string reportTiming(const TimerTimePoint &start, const TimerTimePoint &end) const;

  // Target, Graph, Memory Usage and Execution sections; cycles are estimated.
  // Options: showExecutionSteps ("true": every step, not only the costliest).
  void printProfileSummary(std::ostream &out, const OptionFlags &opt = {}) const;
  // libpva's report of this engine: its compilation and (unless reportExecution is
  // false) execution views. Defined in libpva: a program that calls it links -lpva.
  pva::Report getReport(bool reportExecution = true) const;
  // Zeroes the execution counts and host times (memory and estimates stay).
  void resetExecutionProfile();
  // While disabled (enabled at first), runs add nothing to the execution profile and
  // printProfileSummary raises profiling_disabled.
  void disableExecutionProfiling();
  void enableExecutionProfiling();

private:
  friend struct detail::Internals;
  explicit Engine(std::unique_ptr<detail::EngineState> state);
  std::unique_ptr<detail::EngineState> state_;
};

} // namespace poplar
