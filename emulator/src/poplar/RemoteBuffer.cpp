// Remote buffers: off-chip rows that programs copy tensors to and from and the host
// reads and writes between runs. Each replica has its own rows (EngineState::remoteMemory).
#include <cstring>
#include <string>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>

#include "EngineState.hpp"
#include "GraphState.hpp"
#include "ProgramNode.hpp"
#include "TensorImpl.hpp"

namespace poplar {
namespace detail {

std::size_t remoteBufferBytes(const Type &type, std::size_t numElements, std::size_t repeats) {
  std::size_t rowBytes = 0, bytes = 0;
  if (__builtin_mul_overflow(numElements, static_cast<std::size_t>(typeSize(type)), &rowBytes) ||
      __builtin_mul_overflow(rowBytes, repeats, &bytes))
    return 0;
  return bytes;
}

namespace {

// Copies rows between a tensor and a remote buffer: the only row, or the rows an offset
// tensor names (read when the step runs).
struct RemoteCopyStep : Step {
  Access tensor, offsets;
  bool hasOffsets = false, toDevice = true;
  std::string buffer;
  std::vector<std::uint8_t> *rows = nullptr;
  std::size_t rowBytes = 0, repeats = 0;
  std::vector<std::uint8_t> staging, offsetValues;

  void run() override {
    const std::size_t count = hasOffsets ? offsets.numElements : 1;
    staging.resize(count * rowBytes);
    if (!toDevice) tensor.gather(staging.data());
    if (hasOffsets) {
      offsetValues.resize(offsets.numElements * offsets.elemSize);
      offsets.gather(offsetValues.data());
    }
    for (std::size_t k = 0; k < count; ++k) {
      const std::int64_t row = hasOffsets ? rowAt(k) : 0;
      if (row < 0 || static_cast<std::uint64_t>(row) >= repeats)
        throw poplar_error(kind + " '" + name + "': offset " + std::to_string(row) + " is outside remote buffer '" +
                           buffer + "', which has " + std::to_string(repeats) + " row(s)");
      std::uint8_t *remote = rows->data() + static_cast<std::size_t>(row) * rowBytes;
      std::uint8_t *local = staging.data() + k * rowBytes;
      if (toDevice) std::memcpy(local, remote, rowBytes);
      else std::memcpy(remote, local, rowBytes);
    }
    if (toDevice) tensor.scatter(staging.data());
  }

  std::int64_t rowAt(std::size_t k) const {
    if (offsets.type == INT) {
      std::int32_t v;
      std::memcpy(&v, offsetValues.data() + k * 4, 4);
      return v;
    }
    std::uint32_t v;
    std::memcpy(&v, offsetValues.data() + k * 4, 4);
    return v;
  }
};

std::vector<std::uint8_t> &remoteRows(EngineState &s, StringRef handle, std::uint64_t repeatIndex,
                                      unsigned replicationIndex, const char *what, std::size_t &rowBytes) {
  const auto buffer = s.graph->remoteBuffers.find(handle.str());
  if (buffer == s.graph->remoteBuffers.end())
    throw poplar_error(std::string("Engine::") + what + ": no remote buffer with handle '" + handle.str() + "'");
  const RemoteBuffer &b = buffer->second;
  if (repeatIndex >= b.getRepeats())
    throw poplar_error(std::string("Engine::") + what + ": row " + std::to_string(repeatIndex) +
                       " is outside remote buffer '" + handle.str() + "', which has " +
                       std::to_string(b.getRepeats()) + " row(s)");
  EngineState &replica = s.localReplica<poplar_error>(replicationIndex, std::string("Engine::") + what);
  rowBytes = b.numElements() * typeSize(b.elementType());
  return replica.remoteMemory.at(handle.str());
}

} // namespace

std::unique_ptr<Step> remoteCopyStep(EngineState &s, const ProgramNode &n) {
  const auto buffer = s.graph->remoteBuffers.find(n.text);
  if (buffer == s.graph->remoteBuffers.end())
    throw graph_program_compilation_error(nodeLabel(n) + ": remote buffer '" + n.text +
                                          "' does not belong to the graph being compiled");
  auto step = std::make_unique<RemoteCopyStep>();
  step->toDevice = n.kind == ProgramNode::Kind::RemoteToTensor;
  step->buffer = n.text;
  step->tensor = s.access(n.tensors[0]);
  step->hasOffsets = n.tensors.size() > 1;
  if (step->hasOffsets) step->offsets = s.access(n.tensors[1]);
  step->rows = &s.remoteMemory.at(n.text);
  step->rowBytes = buffer->second.numElements() * typeSize(buffer->second.elementType());
  step->repeats = buffer->second.getRepeats();
  return step;
}

} // namespace detail

RemoteBuffer Graph::addRemoteBuffer(StringRef handle, const Type &elementType, std::size_t numElements,
                                    std::size_t repeats, bool rearrangeOnHost, bool optimiseMemory) {
  const std::string what = "Graph::addRemoteBuffer '" + handle.str() + "'";
  if (handle.empty()) throw poplar_error("Graph::addRemoteBuffer: the handle is empty");
  if (state_->remoteBuffers.count(handle.str()) || state_->streams.count(handle.str()))
    throw poplar_error(what + ": a stream or remote buffer with this handle already exists");
  if (numElements == 0 || repeats == 0)
    throw poplar_error(what + ": needs at least one element and one row (got " + std::to_string(numElements) +
                       " elements, " + std::to_string(repeats) + " rows)");
  if (!detail::typeInfo(elementType).supportedOnDevice)
    throw type_error(what + ": type '" + elementType.toString().str() + "' is not supported on the device");
  if (detail::remoteBufferBytes(elementType, numElements, repeats) == 0)
    throw poplar_error(what + ": " + std::to_string(repeats) + " rows of " + std::to_string(numElements) +
                       " elements do not fit in memory");
  RemoteBuffer buffer = detail::Internals::owned(
      RemoteBuffer(handle.str(), elementType, numElements, repeats, rearrangeOnHost, optimiseMemory), state_);
  state_->remoteBuffers[handle.str()] = buffer;
  return buffer;
}

void Engine::copyToRemoteBuffer(void *src, StringRef handle, std::uint64_t repeatIndex, unsigned replicationIndex) {
  std::size_t rowBytes = 0;
  auto &rows = detail::remoteRows(*state_, handle, repeatIndex, replicationIndex, "copyToRemoteBuffer", rowBytes);
  std::memcpy(rows.data() + repeatIndex * rowBytes, src, rowBytes);
}

void Engine::copyFromRemoteBuffer(StringRef handle, void *dst, std::uint64_t repeatIndex, unsigned replicationIndex) {
  std::size_t rowBytes = 0;
  auto &rows = detail::remoteRows(*state_, handle, repeatIndex, replicationIndex, "copyFromRemoteBuffer", rowBytes);
  std::memcpy(dst, rows.data() + repeatIndex * rowBytes, rowBytes);
}

} // namespace poplar
