// The seam (backend.hpp) on popdsl's emulator: its extensions beyond the SDK's API.
#include <poplar/EmulatorExtensions.hpp>
#include <poplar/InstanceExchange.hpp>
#include <poplar/Internals.hpp>
#include <poplar/ProfileData.hpp>

#include <pybind11/stl.h>

#include "backend.hpp"

namespace popdsl_bindings {
namespace backend {

poplar::Engine makeEngine(const poplar::Executable &exe, const poplar::OptionFlags &options,
                          poplar::ProgressFunc progress) {
  return poplar::detail::makeEngine(exe, options, std::move(progress));
}

ExecutableInterface executableInterface(const poplar::Executable &exe) {
  ExecutableInterface result;
  result.available = true;
  result.streams = poplar::detail::executableStreams(exe);
  result.remoteBuffers = poplar::detail::executableRemoteBuffers(exe);
  for (auto &f : poplar::detail::executableHostFunctions(exe))
    result.hostFunctions.push_back({std::move(f.handle), std::move(f.ins), std::move(f.outs)});
  return result;
}

std::vector<std::pair<std::string, std::string>> executableSections(const poplar::Executable &exe) {
  return poplar::detail::executableSections(exe);
}

std::vector<std::pair<std::string, std::string>> serializedExecutableSections(const std::string &bytes) {
  return poplar::detail::serializedExecutableSections(bytes);
}

std::optional<std::vector<std::string>> serializedExecutableCodelets(const std::string &bytes) {
  return poplar::detail::serializedExecutableCodelets(bytes);
}

std::optional<HostTensor> hostTensor(const poplar::Engine &engine, const std::string &handle, bool read) {
  HostTensor t;
  if (!poplar::detail::hostTensor(engine, handle, read, t.type, t.numElements)) return std::nullopt;
  return t;
}

// The emulator's pauseRun stores to a lock-free atomic flag.
bool runsPauseForSignals() { return true; }
void pauseRun(poplar::Engine &engine) { poplar::detail::pauseRun(engine); }
void setPauseHandler(poplar::Engine &engine, std::function<bool()> handler) {
  poplar::detail::setPauseHandler(engine, std::move(handler));
}
std::size_t describeRunningVertices(char *out, std::size_t size) {
  return poplar::detail::describeRunningVertices(out, size);
}

void setRandomSeed(poplar::Engine &engine, std::uint64_t seed) { poplar::detail::setRandomSeed(engine, seed); }
std::uint64_t getRandomSeed(const poplar::Engine &engine) { return poplar::detail::getRandomSeed(engine); }

pybind11::dict profileData(const poplar::Engine &engine) {
  const poplar::ProfileData p = poplar::detail::getProfileData(engine);
  pybind11::list steps;
  for (const auto &s : p.steps) {
    pybind11::dict d;
    d["kind"] = s.kind;
    d["name"] = s.name;
    d["executions"] = s.executions;
    d["host_seconds"] = s.hostSeconds;
    d["sync_cycles"] = s.syncCycles;
    d["exchange_cycles"] = s.exchangeCycles;
    d["compute_cycles"] = s.computeCycles;
    d["exchange_bytes"] = s.exchangeBytes;
    d["ipu_link_bytes"] = s.ipuLinkBytes;
    steps.append(d);
  }
  pybind11::dict d;
  d["target"] = p.target;
  d["num_variables"] = p.numVariables;
  d["num_constants"] = p.numConstants;
  d["num_compute_sets"] = p.numComputeSets;
  d["num_programs"] = p.numPrograms;
  d["variable_bytes_per_tile"] = p.variableBytesPerTile;
  d["constant_bytes_per_tile"] = p.constantBytesPerTile;
  d["always_live_bytes"] = p.alwaysLiveBytesPerTile;
  d["kept_by_host_handles_bytes"] = p.keptByHostHandlesBytesPerTile;
  d["peak_not_always_live_bytes"] = p.peakNotAlwaysLiveBytesPerTile;
  d["peak_without_handles_bytes"] = p.peakWithoutHandlesBytesPerTile;
  d["peak_step"] = p.peakStepPerTile;
  d["peak_step_without_handles"] = p.peakStepWithoutHandlesPerTile;
  d["variable_bytes"] = p.variableBytes;
  d["steps"] = steps;
  d["runs"] = p.runs;
  d["elapsed_cycles"] = p.elapsedCycles;
  d["host_timed"] = p.hostTimed;
  return d;
}

std::vector<std::string> writeProfileReport(poplar::Engine &engine, const std::string &directory) {
  return poplar::writeProfileReport(engine, directory);
}

std::string profileReportText(const poplar::Engine &engine) { return poplar::detail::profileReportText(engine); }

std::size_t programHash(const poplar::program::Program &program) {
  return std::hash<const void *>()(poplar::detail::programIdentity(program));
}

poplar::Type fieldElementType(const poplar::FieldData &field) { return poplar::detail::fieldDataElementType(field); }

std::optional<std::vector<std::pair<std::string, std::string>>> vertexFieldDirections(const poplar::Graph &graph,
                                                                                        const std::string &vertexType) {
  return poplar::detail::vertexFieldDirections(graph, vertexType);
}

poplar::Tensor broadcastCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     poplar::program::Sequence &prog, const gcl::CommGroup &group,
                                     unsigned rootReplica, const poplar::DebugContext &debugContext,
                                     const poplar::OptionFlags &options) {
  return gcl::broadcastCrossReplica(graph, data, prog, group, rootReplica, debugContext, options);
}

void setProcessInstanceExchange(unsigned instances, unsigned index, AllGather allGather) {
  poplar::detail::setProcessInstanceExchange(
      allGather ? std::make_shared<poplar::detail::CallbackInstanceExchange>(instances, index, std::move(allGather))
                : nullptr);
}

namespace {
class EmulatorThreadInstances : public ThreadInstances {
public:
  EmulatorThreadInstances(unsigned instances, double timeoutSeconds)
      : group_(std::make_shared<poplar::detail::ThreadInstanceGroup>(instances, timeoutSeconds)) {}
  void use(unsigned index) override { poplar::detail::setThreadInstanceExchange(group_->member(index)); }
  void release() override { poplar::detail::setThreadInstanceExchange(nullptr); }
  std::vector<std::string> allGather(unsigned index, const std::string &mine) override {
    return group_->allGather(index, mine);
  }
  void abort(const std::string &why) override { group_->abort(why); }

private:
  std::shared_ptr<poplar::detail::ThreadInstanceGroup> group_;
};
} // namespace

std::shared_ptr<ThreadInstances> threadInstances(unsigned instances, double timeoutSeconds) {
  return std::make_shared<EmulatorThreadInstances>(instances, timeoutSeconds);
}

} // namespace backend
} // namespace popdsl_bindings
