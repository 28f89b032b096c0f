// The DeviceManager enumerates hardware IPUs. The emulator has none, unless the user opts
// in with POPDSL_IPU_AS_MODEL (IpuAsModel.hpp): then it lists the devices of an emulated
// IPU-POD16, each backed by an IPUModel target with the device's IPU count.
#include <poplar/DeviceManager.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

#include <memory>
#include <optional>

#include "DeviceState.hpp"
#include "IpuAsModel.hpp"

namespace poplar {

namespace {

using detail::kSystemIPUs;

// A device of the emulated system. Ids are numbered as a POD16 numbers them: the 16
// single-IPU devices first (0-15), then the 8 pairs (16-23), the 4 quads, the 2 eights and
// the one device of all 16 IPUs (30).
struct SystemDevice {
  unsigned id, firstIPU, numIPUs;
};

std::vector<SystemDevice> systemDevices() {
  std::vector<SystemDevice> all;
  for (unsigned size = 1; size <= kSystemIPUs; size *= 2)
    for (unsigned first = 0; first < kSystemIPUs; first += size)
      all.push_back({static_cast<unsigned>(all.size()), first, size});
  return all;
}

// The id's device, or none when there is no such id.
std::optional<SystemDevice> systemDevice(unsigned id) {
  const auto all = systemDevices();
  if (id >= all.size()) return std::nullopt;
  return all[id];
}

[[noreturn]] void noHardwareDevice(const char *what, unsigned id) {
  throw poplar_error(std::string("DeviceManager::") + what + ": no hardware device with id " + std::to_string(id) +
                     ": the embedded emulator has no IPUs; use IPUModel(...).createDevice(), or set "
                     "POPDSL_IPU_AS_MODEL=1 to answer IPU requests with IPU models");
}

SystemDevice checkedSystemDevice(const char *what, unsigned id) {
  if (!detail::ipuAsModelVersion()) noHardwareDevice(what, id);
  const auto device = systemDevice(id);
  if (!device)
    throw poplar_error(std::string("DeviceManager::") + what + ": no device with id " + std::to_string(id) +
                       ": the emulated system (POPDSL_IPU_AS_MODEL) has devices 0.." +
                       std::to_string(systemDevices().size() - 1));
  return *device;
}

} // namespace

// Devices are made here (Device's state constructor is private to Device and its manager).
Device DeviceManager::makeSystemDevice(unsigned id) const {
  const SystemDevice d = *systemDevice(id);
  IPUModel model(detail::ipuAsModelVersion()->c_str());
  model.numIPUs = d.numIPUs;
  auto state = std::make_shared<Device::State>(Device::State{d.id, model.createTarget()});
  state->firstSystemIPU = d.firstIPU;
  state->systemIPUs = d.numIPUs;
  return Device(std::move(state));
}

DeviceManager::DeviceManager() = default;

DeviceManager DeviceManager::createDeviceManager() { return DeviceManager(); }

std::vector<Device> DeviceManager::getDevices(TargetType type, unsigned requiredNumIPUs, const OptionFlags &) const {
  if (type != TargetType::IPU)
    throw poplar_error("DeviceManager::getDevices: only IPU devices are enumerated, not " + toString(type) +
                       "; use IPUModel(...).createDevice() or Device::createCPUDevice()");
  if (requiredNumIPUs == 0) throw poplar_error("DeviceManager::getDevices: requiredNumIPUs must be at least 1");
  std::vector<Device> devices;
  if (!detail::ipuAsModelVersion()) return devices;
  for (const SystemDevice &d : systemDevices())
    if (d.numIPUs == requiredNumIPUs) devices.push_back(makeSystemDevice(d.id));
  return devices;
}

std::vector<Device> DeviceManager::getDevices() const {
  std::vector<Device> devices;
  if (!detail::ipuAsModelVersion()) return devices;
  for (const SystemDevice &d : systemDevices()) devices.push_back(makeSystemDevice(d.id));
  return devices;
}

std::size_t DeviceManager::getNumDevices() const {
  return detail::ipuAsModelVersion() ? systemDevices().size() : 0;
}

Device DeviceManager::getDevice(unsigned id, const OptionFlags &) const {
  return makeSystemDevice(checkedSystemDevice("getDevice", id).id);
}

std::vector<unsigned> DeviceManager::getChildDeviceIds(unsigned parentId, unsigned numChildIpus) const {
  const SystemDevice parent = checkedSystemDevice("getChildDeviceIds", parentId);
  std::vector<unsigned> children;
  for (const SystemDevice &d : systemDevices())
    if (d.numIPUs == numChildIpus && d.firstIPU >= parent.firstIPU &&
        d.firstIPU + d.numIPUs <= parent.firstIPU + parent.numIPUs)
      children.push_back(d.id);
  if (children.empty())
    throw poplar_error("DeviceManager::getChildDeviceIds: device " + std::to_string(parentId) + " of " +
                       std::to_string(parent.numIPUs) + " IPU(s) has no child devices of " +
                       std::to_string(numChildIpus) + " IPU(s)");
  return children;
}

} // namespace poplar
