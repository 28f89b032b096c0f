#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
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

namespace poplar {

namespace detail {
struct EngineState;
struct Internals;
} // namespace detail

// Compiles a graph and its programs, then loads on a device and runs them.
class Engine {
public:
  explicit Engine(const Executable &exe, const OptionFlags &opt = {});
  Engine(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt = {},
         ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {});
  Engine(const Graph &graph, const program::Program &prog, const OptionFlags &opt = {},
         ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {});
  Engine(Engine &&) noexcept;
  Engine &operator=(Engine &&) noexcept;
  ~Engine();

  void prepare(const Device &device);
  void deploy();
  void load(const Device &device);
  void run(unsigned prog = 0, const std::string &debugName = "");
  void loadAndRun(const Device &device, unsigned prog = 0);
  // Ends a run going on in another thread (or from a signal handler: it only sets a
  // flag) at its next step or loop iteration; that run() then returns. A step already
  // executing finishes first. Without a run going on, nothing happens.
  void stop();

  void writeTensor(StringRef handle, const void *buf, const void *bufEnd);
  void readTensor(StringRef handle, void *buf, void *bufEnd);

  // A circular buffer [begin, end): each copy takes the next elements, wrapping.
  void connectStream(StringRef handle, void *begin, void *end);
  // Every copy uses the buffer at p.
  void connectStream(StringRef handle, void *p);
  void connectStreamToCallback(StringRef handle, StreamCallbackHandle f);
  void connectStreamToCallback(StringRef handle, unsigned replicaIndex, StreamCallbackHandle f);
  std::vector<std::string> listStreams() const;
  void connectHostFunction(StringRef handle, unsigned replicaIndex, HostCallbackHandle f);

  void setPrintTensorStream(std::ostream &os);
  const OptionFlags &getEngineOptions() const;

  // Target, Graph, Memory Usage and Execution sections; cycles are estimated.
  // Options: showExecutionSteps ("true": every step, not only the costliest).
  void printProfileSummary(std::ostream &out, const OptionFlags &opt = {}) const;
  // Zeroes the execution counts and host times (memory and estimates stay).
  void resetExecutionProfile();

private:
  friend struct detail::Internals;
  explicit Engine(std::unique_ptr<detail::EngineState> state);
  std::unique_ptr<detail::EngineState> state_;
};

} // namespace poplar
