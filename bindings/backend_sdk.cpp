// The seam (backend.hpp) on the Poplar SDK: its documented public API only. What the
// SDK does not offer throws NeedsEmulatorBackend (Python: NotImplementedError).
#include "backend.hpp"

namespace popdsl_bindings {
namespace backend {

poplar::Engine makeEngine(const poplar::Executable &exe, const poplar::OptionFlags &options,
                          poplar::ProgressFunc) {
  // The SDK's Engine(const Executable &, const OptionFlags &) takes no progress function.
  return poplar::Engine(exe, options);
}

ExecutableInterface executableInterface(const poplar::Executable &) {
  return {}; // the SDK's Executable does not list its streams, host functions or remote buffers
}

std::vector<std::pair<std::string, std::string>> executableSections(const poplar::Executable &) {
  throw NeedsEmulatorBackend("the executable cache (canonical executable sections, poplar._executableSections)");
}

std::vector<std::pair<std::string, std::string>> serializedExecutableSections(const std::string &) {
  throw NeedsEmulatorBackend("the executable cache (canonical executable sections, poplar._serializedSections)");
}

// The SDK's executables hold IPU code: deserializing one loads nothing into this process.
std::optional<std::vector<std::string>> serializedExecutableCodelets(const std::string &) { return std::nullopt; }

std::optional<HostTensor> hostTensor(const poplar::Engine &, const std::string &, bool) {
  return std::nullopt;
}

// The SDK does not document Engine::stop as safe in a signal handler: Ctrl-C waits for the run.
bool engineStopIsAsyncSignalSafe() { return false; }

void setRandomSeed(poplar::Engine &, std::uint64_t) {
  throw NeedsEmulatorBackend("setting the engine's random seed (Engine.setRandomSeed, Session.seed)");
}
std::uint64_t getRandomSeed(const poplar::Engine &) {
  throw NeedsEmulatorBackend("reading the engine's random seed (Engine.getRandomSeed, Session.seed)");
}

pybind11::dict profileData(const poplar::Engine &) {
  throw NeedsEmulatorBackend("profile data as a dict (Engine.getProfileData, Session.profile; the SDK reports "
                             "through libpva and the autoReport.* engine options)");
}
std::vector<std::string> writeProfileReport(poplar::Engine &, const std::string &) {
  throw NeedsEmulatorBackend("writing the profile report on demand (Engine.writeProfileReport; the SDK writes "
                             "it through the autoReport.* engine options)");
}
std::string profileReportText(const poplar::Engine &) {
  throw NeedsEmulatorBackend("the report as popdsl's pva reads it (Engine.getReport, Session.report; with the SDK, "
                             "open the autoReport.* profile.pop with the SDK's pva)");
}

std::size_t programHash(const poplar::program::Program &) {
  // The SDK has Program's operator== but no hash or identity: one bucket for all
  // programs keeps hashing consistent with ==, at the cost of linear dict lookups.
  return 0;
}

poplar::Type fieldElementType(const poplar::FieldData &) {
  throw NeedsEmulatorBackend("a vertex field's initial values in a Python perf estimator (FieldData.getInitialValue)");
}

std::optional<std::vector<std::pair<std::string, std::string>>> vertexFieldDirections(const poplar::Graph &,
                                                                                        const std::string &) {
  return std::nullopt;
}

poplar::Tensor broadcastCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     poplar::program::Sequence &prog, const gcl::CommGroup &group,
                                     unsigned rootReplica, const poplar::DebugContext &debugContext,
                                     const poplar::OptionFlags &options) {
  const poplar::Tensor all = gcl::allGatherCrossReplica(graph, data, prog, group, debugContext, options);
  if (rootReplica >= all.dim(0))
    throw std::invalid_argument("broadcastCrossReplica: root replica " + std::to_string(rootReplica) +
                                " is not a rank of the group of " + std::to_string(all.dim(0)) + " replicas");
  poplar::Tensor out = graph.clone(data, debugContext);
  prog.add(poplar::program::Copy(all[rootReplica], out, false, debugContext));
  return out;
}

// GCL's collectives cross instances on the IPU-Links: no exchange to set (unverified
// without hardware: see docs/scaling_out.rst).
void setProcessInstanceExchange(unsigned, unsigned, AllGather) {}

std::shared_ptr<ThreadInstances> threadInstances(unsigned, double) {
  throw NeedsEmulatorBackend("Instances as threads of one process (popdsl.distributed.run_in_threads)");
}

} // namespace backend
} // namespace popdsl_bindings
