#include <poplar/Device.hpp>
#include <poplar/DeviceManager.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

#include <atomic>

namespace poplar {

struct Device::State {
  unsigned id;
  Target target;
  mutable bool attached = false;
};

namespace {
unsigned nextDeviceId() {
  static std::atomic<unsigned> next{0};
  return next++;
}
} // namespace

Device::Device() = default;
Device::Device(std::shared_ptr<State> state) : state_(std::move(state)) {}
Device::Device(Device &&) noexcept = default;
Device &Device::operator=(Device &&) noexcept = default;
Device::~Device() = default;

static const Device::State &checked(const std::shared_ptr<Device::State> &s) {
  if (!s) throw poplar_error("Device is empty (default-constructed or moved from)");
  return *s;
}

unsigned Device::getId() const { return checked(state_).id; }
const Target &Device::getTarget() const { return checked(state_).target; }
bool Device::attach() const {
  const auto &s = checked(state_);
  if (s.attached) return false;
  s.attached = true;
  return true;
}
void Device::detach() const { checked(state_).attached = false; }
bool Device::isAttached() const { return checked(state_).attached; }

void Device::getDriverVersion(unsigned &, unsigned &, unsigned &) const {
  throw poplar_error("Device::getDriverVersion: device " + std::to_string(getId()) + " is a " +
                     toString(getTarget().getTargetType()) + " device with no IPU driver");
}

std::vector<std::pair<std::string, std::string>> Device::getAttributes() const {
  const Target &target = getTarget();
  return {{"target type", toString(target.getTargetType())},
          {"architecture", target.getTargetArchString().str()},
          {"IPUs", std::to_string(target.getNumIPUs())},
          {"tiles per IPU", std::to_string(target.getTilesPerIPU())}};
}

std::vector<int> Device::getNumaTopology() const { return std::vector<int>(getTarget().getNumIPUs(), 0); }

std::vector<unsigned> Device::getDriverIDs() const {
  checked(state_);
  return {};
}

// The emulator has no remote buffers yet, on any target.
bool Device::supportsRemoteBuffers() const {
  checked(state_);
  return false;
}

bool Device::hasGateway() const { return checked(state_).target.getGatewayMode(); }

void Device::reset() const {
  if (!isAttached())
    throw poplar_error("Device::reset: device " + std::to_string(getId()) + " is not attached; call attach() first");
}

Device Device::createCPUDevice(unsigned numIPUs) {
  return Device(std::make_shared<State>(State{nextDeviceId(), Target::createCPUTarget(false, numIPUs)}));
}

Device Device::createSimulatorDevice(const Target &target, const OptionFlags &) {
  return Device(std::make_shared<State>(State{nextDeviceId(), target}));
}

Device Device::createVirtualDevice(unsigned tilesPerIPU) const {
  const Target &t = getTarget();
  if (tilesPerIPU == 0 || tilesPerIPU > t.getTilesPerIPU())
    throw poplar_error("createVirtualDevice: tilesPerIPU must be in 1.." +
                       std::to_string(t.getTilesPerIPU()));
  return Device(std::make_shared<State>(
      State{nextDeviceId(), t.createVirtualTarget(t.getNumIPUs(), tilesPerIPU)}));
}

Device IPUModel::createDevice(OptionFlags, bool, unsigned) const {
  return Device::createSimulatorDevice(createTarget());
}

DeviceManager DeviceManager::createDeviceManager() { return DeviceManager(); }

std::vector<Device> DeviceManager::getDevices(TargetType type, unsigned requiredNumIPUs, const OptionFlags &) const {
  if (type != TargetType::IPU)
    throw poplar_error("DeviceManager::getDevices: only IPU devices are enumerated, not " + toString(type) +
                       "; use IPUModel(...).createDevice() or Device::createCPUDevice()");
  if (requiredNumIPUs == 0) throw poplar_error("DeviceManager::getDevices: requiredNumIPUs must be at least 1");
  return {};
}

std::vector<Device> DeviceManager::getDevices() const { return {}; }

std::size_t DeviceManager::getNumDevices() const { return getDevices().size(); }

namespace {
[[noreturn]] void noHardwareDevice(const char *what, unsigned id) {
  throw poplar_error(std::string("DeviceManager::") + what + ": no hardware device with id " + std::to_string(id) +
                     ": the embedded emulator has no IPUs; use IPUModel(...).createDevice()");
}
} // namespace

Device DeviceManager::getDevice(unsigned id, const OptionFlags &) const { noHardwareDevice("getDevice", id); }

std::vector<unsigned> DeviceManager::getChildDeviceIds(unsigned parentId, unsigned) const {
  noHardwareDevice("getChildDeviceIds", parentId);
}

} // namespace poplar
