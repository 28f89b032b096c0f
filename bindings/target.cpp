// Target, IPUModel, Device and DeviceManager.
#include <poplar/Device.hpp>
#include <poplar/DeviceManager.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/SyncType.hpp>
#include <poplar/Target.hpp>

#include <sstream>

#include <pybind11/operators.h>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindTarget(py::module_ &m) {
  using namespace poplar;
  checkedEnum<TargetType>(m, "TargetType")
      .value("IPU", TargetType::IPU)
      .value("IPU_MODEL", TargetType::IPU_MODEL)
      .value("CPU", TargetType::CPU);
  checkedEnum<SyncType>(m, "SyncType")
      .value("INTERNAL", SyncType::INTERNAL)
      .value("EXTERNAL", SyncType::EXTERNAL)
      .value("GLOBAL", SyncType::GLOBAL);

  checkedEnum<IpuLinkConfiguration>(m, "IpuLinkConfiguration")
      .value("Default", IpuLinkConfiguration::Default)
      .value("SlidingWindow", IpuLinkConfiguration::SlidingWindow)
      .value("BarleyTwist", IpuLinkConfiguration::BarleyTwist);
  checkedEnum<IpuLinkTopology>(m, "IpuLinkTopology")
      .value("Mesh", IpuLinkTopology::Mesh)
      .value("Torus", IpuLinkTopology::Torus)
      .value("Line", IpuLinkTopology::Line);

  py::class_<Target>(m, "Target")
      .def("serialize", &serializedBytes<Target>,
           "The target as bytes (Target::serialize)")
      .def_static("deserialize",
                  [](py::bytes data) {
                    std::istringstream in{std::string(data)};
                    return Target(in);
                  },
                  py::arg("data"), "A target from Target.serialize() bytes (Target(std::istream&))")
      .def("getTargetType", &Target::getTargetType)
      .def("getTargetSystemString", &Target::getTargetSystemString)
      .def("getTargetArchString", [](const Target &t) { return t.getTargetArchString().str(); })
      .def("getNumIPUs", &Target::getNumIPUs)
      .def("getTilesPerIPU", &Target::getTilesPerIPU)
      .def("getNumTiles", &Target::getNumTiles)
      .def("getNumWorkerContexts", &Target::getNumWorkerContexts)
      .def("getBytesPerTile", &Target::getBytesPerTile)
      .def("getMemoryBytes", &Target::getMemoryBytes)
      .def("getExchangeBytesPerCycle", &Target::getExchangeBytesPerCycle)
      .def("getMemcpyBytesPerCycle", &Target::getMemcpyBytesPerCycle)
      .def("getMinIPUSyncDelay", &Target::getMinIPUSyncDelay)
      .def("getGlobalSyncCycles", &Target::getGlobalSyncCycles)
      .def("getDataPathWidth", &Target::getDataPathWidth)
      .def("getFloatVectorWidth", &Target::getFloatVectorWidth)
      .def("getHalfVectorWidth", &Target::getHalfVectorWidth)
      .def("getVectorWidth", &Target::getVectorWidth)
      .def("getTypeSize", &Target::getTypeSize)
      .def("getAtomicStoreGranularity", &Target::getAtomicStoreGranularity)
      .def("getTileClockFrequency", &Target::getTileClockFrequency)
      .def("getMaxIPUSyncDelay", &Target::getMaxIPUSyncDelay)
      .def("getQuarterVectorWidth", &Target::getQuarterVectorWidth)
      .def("getRptCountMax", &Target::getRptCountMax)
      .def("getNumStrideBits", &Target::getNumStrideBits)
      .def("getFp8ConvUnitMaxPipelineDepth", &Target::getFp8ConvUnitMaxPipelineDepth)
      .def("getFp16ConvUnitMaxPipelineDepth", &Target::getFp16ConvUnitMaxPipelineDepth)
      .def("getFp32ConvUnitMaxPipelineDepth", &Target::getFp32ConvUnitMaxPipelineDepth)
      .def("getFp8ConvUnitInputLoadElemsPerCycle", &Target::getFp8ConvUnitInputLoadElemsPerCycle)
      .def("getFp16ConvUnitInputLoadElemsPerCycle", &Target::getFp16ConvUnitInputLoadElemsPerCycle)
      .def("getFp32ConvUnitInputLoadElemsPerCycle", &Target::getFp32ConvUnitInputLoadElemsPerCycle)
      .def("getFp16InFp16OutConvUnitsPerTile", &Target::getFp16InFp16OutConvUnitsPerTile)
      .def("getFp16InFp32OutConvUnitsPerTile", &Target::getFp16InFp32OutConvUnitsPerTile)
      .def("getFp32InFp32OutConvUnitsPerTile", &Target::getFp32InFp32OutConvUnitsPerTile)
      .def("getFp8InFp16OutConvUnitsPerTile", &Target::getFp8InFp16OutConvUnitsPerTile)
      .def("getConvUnitCoeffLoadBytesPerCycle", &Target::getConvUnitCoeffLoadBytesPerCycle)
      .def("getWeightsPerConvUnit", &Target::getWeightsPerConvUnit, py::arg("inputType"))
      .def("getConvUnitInputLoadElemsPerCycle", &Target::getConvUnitInputLoadElemsPerCycle, py::arg("inputType"))
      .def("getConvUnitMaxPipelineDepth", &Target::getConvUnitMaxPipelineDepth, py::arg("inputType"))
      .def("getNumConvUnits", &Target::getNumConvUnits, py::arg("inputType"), py::arg("partialType"))
      .def("supportsExchangeBusSharing", &Target::supportsExchangeBusSharing)
      .def("getTilesPerSharedExchangeBus", &Target::getTilesPerSharedExchangeBus)
      .def("getIpuLinkConfiguration", &Target::getIpuLinkConfiguration)
      .def("getIpuLinkTopology", &Target::getIpuLinkTopology)
      .def("getIpuLinkDomainSize", &Target::getIpuLinkDomainSize)
      .def("getInstanceSize", &Target::getInstanceSize)
      .def("getGatewayMode", &Target::getGatewayMode)
      .def("createVirtualTarget", &Target::createVirtualTarget, py::arg("numIPUs"), py::arg("tilesPerIPU"))
      .def(py::self == py::self)
      .def("__hash__", &Target::hash)
      .def_static("createCPUTarget", &Target::createCPUTarget, py::arg("accurateHalf") = false,
                  py::arg("numIPUs") = 1)
      .def_static("createIPUTarget",
                  py::overload_cast<unsigned, unsigned, StringRef, const OptionFlags &>(&Target::createIPUTarget),
                  py::arg("numIPUs"), py::arg("tilesPerIPU"), py::arg("system"), py::arg("options") = OptionFlags())
      .def_static("createIPUTarget",
                  py::overload_cast<unsigned, StringRef, const OptionFlags &>(&Target::createIPUTarget),
                  py::arg("numIPUs"), py::arg("system"), py::arg("options") = OptionFlags())
      .def_static("createIPUTarget", py::overload_cast<StringRef, const OptionFlags &>(&Target::createIPUTarget),
                  py::arg("system"), py::arg("options") = OptionFlags())
      .def("__repr__", [](const Target &t) {
        return "<Target " + t.getTargetSystemString() + ": " + std::to_string(t.getNumTiles()) +
               " tiles x " + std::to_string(t.getBytesPerTile()) + " bytes>";
      });

  // A device carries which pd.Session holds it (attached), set by popdsl's sessions: the
  // holder is the device's own state, seen by every thread, and goes away with it.
  py::class_<Device> device(m, "Device", py::dynamic_attr());
  device.attr("session") = py::none();
  device.def(py::init<>())
      .def("getId", &Device::getId)
      .def("getTarget", &Device::getTarget, py::return_value_policy::copy)
      .def("attach", &Device::attach)
      .def("detach", &Device::detach)
      .def("isAttached", &Device::isAttached)
      .def("getDriverVersion",
           [](const Device &d) {
             unsigned major = 0, minor = 0, point = 0;
             d.getDriverVersion(major, minor, point);
             return py::make_tuple(major, minor, point);
           },
           "(major, minor, point); raises poplar_error on a device that is not hardware")
      .def("supportsRemoteBuffers", &Device::supportsRemoteBuffers)
      .def("hasGateway", &Device::hasGateway)
      .def("reset", &Device::reset)
      .def("createVirtualDevice", &Device::createVirtualDevice, py::arg("tilesPerIPU"))
      .def_static("createCPUDevice", &Device::createCPUDevice, py::arg("numIPUs") = 1)
      .def_static("createSimulatorDevice", &Device::createSimulatorDevice, py::arg("target"),
                  py::arg("options") = OptionFlags());

  py::class_<DeviceManager>(m, "DeviceManager")
      .def(py::init<>())
      .def_static("createDeviceManager", &DeviceManager::createDeviceManager)
      .def("getDevices", py::overload_cast<TargetType, unsigned, const OptionFlags &>(&DeviceManager::getDevices, py::const_),
           py::arg("type"), py::arg("requiredNumIPUs"), py::arg("options") = OptionFlags())
      .def("getDevices", py::overload_cast<>(&DeviceManager::getDevices, py::const_))
      .def("getDevice", &DeviceManager::getDevice, py::arg("deviceManagerId"), py::arg("options") = OptionFlags())
      .def("getNumDevices", &DeviceManager::getNumDevices)
      .def("getChildDeviceIds", &DeviceManager::getChildDeviceIds, py::arg("parentId"), py::arg("numChildIpus") = 1);

  py::class_<GlobalExchangeFlow>(m, "GlobalExchangeFlow", "Data from IPU src to IPU dst")
      .def(py::init<unsigned, unsigned>(), py::arg("src"), py::arg("dst"));
  py::class_<GlobalExchangeConstraint>(m, "GlobalExchangeConstraint",
                                       "A link of `bandwidth` bits per second shared by `flows`")
      .def(py::init([](double bandwidth, const std::vector<GlobalExchangeFlow> &flows) {
             return GlobalExchangeConstraint(bandwidth, flows);
           }),
           py::arg("bandwidth"), py::arg("flows"));

  py::class_<IPUModel> model(m, "IPUModel", "The IPU model; change its fields before createDevice()");
  checkedEnum<IPUModel::RelativeSyncDelayType>(model, "RelativeSyncDelayType")
      .value("AUTO", IPUModel::RelativeSyncDelayType::AUTO)
      .value("NO_DELAY", IPUModel::RelativeSyncDelayType::NO_DELAY);
  model.def(py::init([](const std::string &version) { return IPUModel(version.c_str()); }),
            py::arg("IPUVersion") = "ipu2")
      .def_readonly("IPUVersion", &IPUModel::IPUVersion)
      .def_readwrite("numIPUs", &IPUModel::numIPUs)
      .def_readwrite("tilesPerSuperTile", &IPUModel::tilesPerSuperTile)
      .def_readwrite("tilesPerIPU", &IPUModel::tilesPerIPU)
      .def_readwrite("numWorkerContexts", &IPUModel::numWorkerContexts)
      .def_readwrite("memoryBytesPerTile", &IPUModel::memoryBytesPerTile)
      .def_readwrite("tileClockFrequency", &IPUModel::tileClockFrequency)
      .def_readwrite("exchangeBytesPerCycle", &IPUModel::exchangeBytesPerCycle)
      .def_readwrite("memcpyBytesPerCycle", &IPUModel::memcpyBytesPerCycle)
      .def_readwrite("instructionBytes", &IPUModel::instructionBytes)
      .def_readwrite("dataPathWidth", &IPUModel::dataPathWidth)
      .def_readwrite("supportsSuperTileSendReceive", &IPUModel::supportsSuperTileSendReceive)
      .def_readwrite("interleavedMemoryElementIndex", &IPUModel::interleavedMemoryElementIndex)
      .def_readwrite("minIPUSyncDelay", &IPUModel::minIPUSyncDelay)
      .def_readwrite("globalSyncCycles", &IPUModel::globalSyncCycles)
      .def_readwrite("compileIPUCode", &IPUModel::compileIPUCode)
      .def_readwrite("relativeSyncDelay", &IPUModel::relativeSyncDelay)
      .def_readwrite("globalExchangeConstraints", &IPUModel::globalExchangeConstraints)
      .def_readwrite("fp16ConvUnitMaxPipelineDepth", &IPUModel::fp16ConvUnitMaxPipelineDepth)
      .def_readwrite("fp16InFp16OutConvUnitsPerTile", &IPUModel::fp16InFp16OutConvUnitsPerTile)
      .def_readwrite("fp16InFp32OutConvUnitsPerTile", &IPUModel::fp16InFp32OutConvUnitsPerTile)
      .def_readwrite("fp32ConvUnitInputLoadElemsPerCycle", &IPUModel::fp32ConvUnitInputLoadElemsPerCycle)
      .def_readwrite("fp16ConvUnitInputLoadElemsPerCycle", &IPUModel::fp16ConvUnitInputLoadElemsPerCycle)
      .def_readwrite("fp8ConvUnitInputLoadElemsPerCycle", &IPUModel::fp8ConvUnitInputLoadElemsPerCycle)
      .def("createDevice", &IPUModel::createDevice, py::arg("options") = OptionFlags(),
           py::arg("accurateHalf") = false,
           py::arg("deviceManagerId") = std::numeric_limits<unsigned>::max());
}

} // namespace popdsl_bindings
