#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <poplar/Target.hpp>

namespace poplar {

// A device to load engines on. Move-only, like Poplar's.
class Device {
public:
  Device();
  Device(Device &&) noexcept;
  Device &operator=(Device &&) noexcept;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
  ~Device();

  unsigned getId() const;
  const Target &getTarget() const;
  // Takes exclusive use of the device; false if it is already attached.
  bool attach() const;
  void detach() const;
  bool isAttached() const;
  // The IPU driver's version; raises poplar_error on a device that is not hardware.
  void getDriverVersion(unsigned &major, unsigned &minor, unsigned &point) const;
  // The emulator's devices have neither remote buffers nor a gateway.
  bool supportsRemoteBuffers() const;
  bool hasGateway() const;
  // Returns an attached device to its power-on state; raises poplar_error unless attached.
  void reset() const;
  // (name, value) pairs describing the device: on the emulator its target type,
  // architecture, IPUs and tiles per IPU.
  std::vector<std::pair<std::string, std::string>> getAttributes() const;
  // For each IPU, the host NUMA node nearest it: the emulator's IPUs are in host
  // memory, node 0.
  std::vector<int> getNumaTopology() const;
  // The IPU driver's ids of the device's IPUs: none for a device that is not hardware.
  std::vector<unsigned> getDriverIDs() const;

  static Device createCPUDevice(unsigned numIPUs = 1);
  static Device createSimulatorDevice(const Target &target, const OptionFlags &opts = {});
  Device createVirtualDevice(unsigned tilesPerIPU) const;

  // The device state shared by its engines (attachment); defined by the emulator.
  struct State;

private:
  friend class DeviceManager;
  explicit Device(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

} // namespace poplar
