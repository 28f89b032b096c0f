#pragma once
#include <vector>

#include <poplar/Device.hpp>

namespace poplar {

// Enumerates hardware IPUs. The embedded emulator has none: the lists are empty and
// asking for a device by id raises poplar_error (IPUModel makes devices instead).
class DeviceManager {
public:
  static DeviceManager createDeviceManager();
  // The devices of `type` with `requiredNumIPUs` IPUs; only TargetType::IPU devices
  // are enumerated (others raise poplar_error), and requiredNumIPUs must be positive.
  std::vector<Device> getDevices(TargetType type, unsigned requiredNumIPUs,
                                 const OptionFlags &opts = {}) const;
  std::vector<Device> getDevices() const;
  Device getDevice(unsigned deviceManagerId, const OptionFlags &opts = {}) const;
  std::size_t getNumDevices() const;
  // The ids of the devices of `numChildIpus` IPUs inside device `parentId`.
  std::vector<unsigned> getChildDeviceIds(unsigned parentId, unsigned numChildIpus = 1) const;

private:
  DeviceManager() = default;
};

} // namespace poplar
