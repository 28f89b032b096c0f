#include <poplar/Device.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

#include <atomic>

#include "DeviceState.hpp"
#include "IpuAsModel.hpp"

namespace poplar {

Device::State::~State() {
  if (attached && systemIPUs) detail::releaseSystemIPUs(firstSystemIPU, systemIPUs);
}

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
// A device of the emulated system is taken only while all its IPUs are free, as on
// hardware, where a device overlapping an attached one cannot attach.
bool Device::attach() const {
  const auto &s = checked(state_);
  if (s.attached) return false;
  if (s.systemIPUs && !detail::claimSystemIPUs(s.firstSystemIPU, s.systemIPUs)) return false;
  s.attached = true;
  return true;
}
void Device::detach() const {
  const auto &s = checked(state_);
  if (s.attached && s.systemIPUs) detail::releaseSystemIPUs(s.firstSystemIPU, s.systemIPUs);
  s.attached = false;
}
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

} // namespace poplar
