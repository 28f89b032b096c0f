#pragma once
#include <memory>
#include <string>

#include <poplar/Type.hpp>

namespace poplar {

namespace detail {
struct GraphState;
struct Internals;
} // namespace detail

enum class DataStreamType { HostToDeviceFIFO, DeviceToHostFIFO, HostToDeviceBuffer, DeviceToHostBuffer };
enum class ReplicatedStreamMode { REPLICATE, BROADCAST };

// The direction of a stream type; the *Buffer types are those of remote buffers.
inline bool isHostToDevice(DataStreamType type) {
  return type == DataStreamType::HostToDeviceFIFO || type == DataStreamType::HostToDeviceBuffer;
}
inline bool isDeviceToHost(DataStreamType type) { return !isHostToDevice(type); }
inline bool isRemoteBuffer(DataStreamType type) {
  return type == DataStreamType::HostToDeviceBuffer || type == DataStreamType::DeviceToHostBuffer;
}

// A FIFO between host and device, copied to or from tensors by program::Copy.
class DataStream {
public:
  DataStream() = default;
  DataStream(std::string handle, Type type, std::size_t numElements, DataStreamType kind,
             ReplicatedStreamMode mode = ReplicatedStreamMode::REPLICATE)
      : handle_(std::move(handle)), type_(type), numElements_(numElements), kind_(kind),
        mode_(mode) {}

  const std::string &handle() const { return handle_; }
  std::size_t numElements() const { return numElements_; }
  Type elementType() const { return type_; }
  DataStreamType type() const { return kind_; }
  // The replication factor of the graph that made the stream.
  unsigned replicationFactor() const;
  ReplicatedStreamMode replicatedMode() const { return mode_; }
  bool valid() const { return !handle_.empty(); }

private:
  friend struct detail::Internals;
  std::string handle_;
  // The graph that made the stream, as for the elements of GraphElements.hpp.
  std::weak_ptr<const detail::GraphState> graph_;
  Type type_;
  std::size_t numElements_ = 0;
  DataStreamType kind_ = DataStreamType::HostToDeviceFIFO;
  ReplicatedStreamMode mode_ = ReplicatedStreamMode::REPLICATE;
};

// Off-chip memory the device copies tensors to and from (Graph::addRemoteBuffer): `repeats`
// rows of numElements elements, each replica with its own. The host reaches it through
// Engine::copyToRemoteBuffer and Engine::copyFromRemoteBuffer.
class RemoteBuffer {
public:
  RemoteBuffer() = default;
  RemoteBuffer(std::string handle, Type type, std::size_t numElements, std::size_t repeats,
               bool rearrangeOnHost, bool optimiseMemory)
      : handle_(std::move(handle)), type_(type), numElements_(numElements), repeats_(repeats),
        rearrangeOnHost_(rearrangeOnHost), optimiseMemory_(optimiseMemory) {}

  const std::string &handle() const { return handle_; }
  // The two directions of the buffer, as streams of its element type and row size.
  DataStream getHostToIpuStream() const {
    return DataStream(handle_, type_, numElements_, DataStreamType::HostToDeviceBuffer);
  }
  DataStream getIpuToHostStream() const {
    return DataStream(handle_, type_, numElements_, DataStreamType::DeviceToHostBuffer);
  }
  std::size_t numElements() const { return numElements_; }
  std::size_t getRepeats() const { return repeats_; }
  Type elementType() const { return type_; }
  bool isRearrangeOnHost() const { return rearrangeOnHost_; }
  bool isOptimisedForMemory() const { return optimiseMemory_; }
  bool operator==(const RemoteBuffer &other) const {
    return handle_ == other.handle_ && type_ == other.type_ && numElements_ == other.numElements_ &&
           repeats_ == other.repeats_;
  }
  bool operator!=(const RemoteBuffer &other) const { return !(*this == other); }

private:
  friend struct detail::Internals;
  std::string handle_;
  std::weak_ptr<const detail::GraphState> graph_; // the graph that made it
  Type type_;
  std::size_t numElements_ = 0, repeats_ = 0;
  bool rearrangeOnHost_ = false, optimiseMemory_ = false;
};

} // namespace poplar
