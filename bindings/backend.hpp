#pragma once
// The seam between the bindings and the Poplar implementation they are built against.
// Everything bindings/ needs that the SDK's public API does not give is declared here,
// and nowhere else: backend_emulator.cpp implements it with the emulator's extensions
// (emulator/internal/poplar), backend_sdk.cpp with the SDK's documented API only, or
// by throwing NeedsEmulatorBackend (Python: NotImplementedError) naming the feature.
// CMake compiles exactly one of the two (POPDSL_BACKEND).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gcl/Collectives.hpp>
#include <poplar/DataStream.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/VertexIntrospector.hpp>

#include <pybind11/pybind11.h>

namespace popdsl_bindings {
namespace backend {

// A feature this backend cannot give; Python sees NotImplementedError with the message.
class NeedsEmulatorBackend : public std::runtime_error {
public:
  explicit NeedsEmulatorBackend(const std::string &feature)
      : std::runtime_error(feature + " needs popdsl's emulator backend: the Poplar SDK's public API has no "
                                     "equivalent (this popdsl was built with POPDSL_BACKEND=sdk)") {}
};

// An engine for `exe`. The emulator reports the engine's lowering to `progress`; the SDK's
// Engine(const Executable &, const OptionFlags &) takes no progress function, so there
// `progress` is not called (compileGraph reports the SDK's compilation progress).
poplar::Engine makeEngine(const poplar::Executable &exe, const poplar::OptionFlags &options,
                          poplar::ProgressFunc progress);

// The data streams, host functions and remote buffers of the executable's graph, to type
// the numpy buffers of stream callbacks, host functions and remote buffer copies. `available` is false where the
// backend cannot look inside an executable (the SDK).
struct HostFunctionInfo {
  std::string handle;
  std::vector<poplar::HostFunctionArgument> ins, outs;
};
struct ExecutableInterface {
  bool available = false;
  std::vector<poplar::DataStream> streams;
  std::vector<HostFunctionInfo> hostFunctions;
  std::vector<poplar::RemoteBuffer> remoteBuffers;
};
ExecutableInterface executableInterface(const poplar::Executable &exe);

// The serialized parts of an executable in canonical form ("target", "graph",
// "programs", "options"): equal inputs give equal bytes (popdsl's executable cache).
std::vector<std::pair<std::string, std::string>> executableSections(const poplar::Executable &exe);
// The same sections of a serialized executable, read without building it (nothing in it
// is compiled), for comparing a cache entry with the graph before using it.
std::vector<std::pair<std::string, std::string>> serializedExecutableSections(const std::string &bytes);
// The names of the codelets deserializing `bytes` would compile and load into this
// process (the emulator compiles codelets on the host), read without compiling any;
// nullopt where the backend's executables hold no host code (the SDK's hold IPU code).
std::optional<std::vector<std::string>> serializedExecutableCodelets(const std::string &bytes);

// The element type and number of elements of an engine's host read (`read`) or write
// handle, where the backend can tell (the SDK cannot: its Engine does not say), to check
// numpy buffers' dtypes and saved sessions' manifests.
struct HostTensor {
  poplar::Type type;
  std::size_t numElements;
};
std::optional<HostTensor> hostTensor(const poplar::Engine &engine, const std::string &handle, bool read);

// Whether Engine::stop may be called from a signal handler (Ctrl-C stops a run).
bool engineStopIsAsyncSignalSafe();

// The seed the engine's hardware random seeds derive from.
void setRandomSeed(poplar::Engine &engine, std::uint64_t seed);
std::uint64_t getRandomSeed(const poplar::Engine &engine);

// The engine's recorded profile as a dict (cycles estimated), and the report files
// written now into `directory` (their paths).
pybind11::dict profileData(const poplar::Engine &engine);
std::vector<std::string> writeProfileReport(poplar::Engine &engine, const std::string &directory);
// libpva's report of the engine as profile.pop holds it (the Python pva reads it).
std::string profileReportText(const poplar::Engine &engine);

// A hash consistent with Program's operator== (copies of one program are equal).
std::size_t programHash(const poplar::program::Program &program);

// The element type of a vertex field a perf estimator inspects, to convert its initial
// values to Python numbers (the SDK's FieldData converts only to a type the caller names).
poplar::Type fieldElementType(const poplar::FieldData &field);

// The direction of each edge field of a vertex type ("Input", "Output", "InOut") as its
// codelet declares it, for the Pythonic layer's records of what a vertex reads and writes;
// nullopt where the backend cannot tell (the SDK's API does not say).
std::optional<std::vector<std::pair<std::string, std::string>>> vertexFieldDirections(const poplar::Graph &graph,
                                                                                        const std::string &vertexType);

// Every replica of the group gets the data of its rank `rootReplica` (a new tensor).
// The emulator's gcl has broadcastCrossReplica; the SDK's name for it is not confirmed,
// so there it is an all-gather of which each replica keeps the root's row.
poplar::Tensor broadcastCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     poplar::program::Sequence &prog, const gcl::CommGroup &group,
                                     unsigned rootReplica, const poplar::DebugContext &debugContext,
                                     const poplar::OptionFlags &options);

// Instances (popdsl.distributed): processes or threads that each run a slice of a replicated
// graph's replicas. The emulator sends its collectives between them through an exchange
// (poplar/InstanceExchange.hpp); the SDK's GCL collectives cross instances on the
// IPU-Links themselves, so there the process exchange is not needed and is ignored.
using AllGather = std::function<std::vector<std::string>(const std::string &)>;
void setProcessInstanceExchange(unsigned instances, unsigned index, AllGather allGather);
// Instances as threads of one process (the emulator only): each thread calls use(index)
// before making its engines; allGather waits up to the timeout for the others.
class ThreadInstances {
public:
  virtual ~ThreadInstances() = default;
  virtual void use(unsigned index) = 0; // this thread's engines are instance `index`; release(): none
  virtual void release() = 0;
  virtual std::vector<std::string> allGather(unsigned index, const std::string &mine) = 0;
  virtual void abort(const std::string &why) = 0;
};
std::shared_ptr<ThreadInstances> threadInstances(unsigned instances, double timeoutSeconds);

} // namespace backend
} // namespace popdsl_bindings
