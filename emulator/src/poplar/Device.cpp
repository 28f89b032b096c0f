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
      State{nextDeviceId(), createVirtualTarget(t, t.getNumIPUs(), tilesPerIPU)}));
}

Device IPUModel::createDevice(OptionFlags, bool, unsigned) const {
  return Device::createSimulatorDevice(createTarget());
}

std::vector<Device> DeviceManager::getDevices(TargetType, unsigned, const OptionFlags &) const {
  return {};
}
std::vector<Device> DeviceManager::getDevices() const { return {}; }
Device DeviceManager::getDevice(unsigned id, const OptionFlags &) const {
  throw poplar_error("No hardware device with id " + std::to_string(id) +
                     ": the embedded emulator has no IPUs; use IPUModel(...).createDevice()");
}

} // namespace poplar
