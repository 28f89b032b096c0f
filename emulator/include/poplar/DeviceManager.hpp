#pragma once
#include <vector>

#include <poplar/Device.hpp>

namespace poplar {

// Enumerates hardware IPUs. The embedded emulator has none, so the lists are empty.
class DeviceManager {
public:
  static DeviceManager createDeviceManager() { return DeviceManager(); }
  std::vector<Device> getDevices(TargetType type, unsigned requiredNumIPUs,
                                 const OptionFlags &opts = {}) const;
  std::vector<Device> getDevices() const;
  Device getDevice(unsigned deviceManagerId, const OptionFlags &opts = {}) const;
  std::size_t getNumDevices() const { return 0; }
};

} // namespace poplar
