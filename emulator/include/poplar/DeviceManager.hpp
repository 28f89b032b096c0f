#pragma once
#include <vector>

#include <poplar/Device.hpp>

namespace poplar {

// Enumerates hardware IPUs. The embedded emulator has none: the lists are empty and
// asking for a device by id raises poplar_error (IPUModel makes devices instead).
// With the environment variable POPDSL_IPU_AS_MODEL=1 (or ipu1/ipu2/ipu21) it lists the
// devices of an emulated 16-IPU system instead, each an IPUModel of the device's IPU
// count (docs/emulator.rst), so programs written for hardware run unchanged.
class DeviceManager {
public:
  DeviceManager();
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
  Device makeSystemDevice(unsigned id) const;
};

} // namespace poplar
