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

  py::class_<Device>(m, "Device")
      .def(py::init<>())
      .def("getId", &Device::getId)
      .def("getTarget", &Device::getTarget, py::return_value_policy::copy)
      .def("attach", &Device::attach)
      .def("detach", &Device::detach)
      .def("isAttached", &Device::isAttached)
      .def("createVirtualDevice", &Device::createVirtualDevice, py::arg("tilesPerIPU"))
      .def_static("createCPUDevice", &Device::createCPUDevice, py::arg("numIPUs") = 1)
      .def_static("createSimulatorDevice", &Device::createSimulatorDevice, py::arg("target"),
                  py::arg("options") = OptionFlags());

  py::class_<DeviceManager>(m, "DeviceManager")
      .def_static("createDeviceManager", &DeviceManager::createDeviceManager)
      .def("getDevices", py::overload_cast<TargetType, unsigned, const OptionFlags &>(&DeviceManager::getDevices, py::const_),
           py::arg("type"), py::arg("requiredNumIPUs"), py::arg("options") = OptionFlags())
      .def("getDevices", py::overload_cast<>(&DeviceManager::getDevices, py::const_))
      .def("getDevice", &DeviceManager::getDevice, py::arg("deviceManagerId"), py::arg("options") = OptionFlags())
      .def("getNumDevices", &DeviceManager::getNumDevices);

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
      .def("createDevice", &IPUModel::createDevice, py::arg("options") = OptionFlags(),
           py::arg("accurateHalf") = false,
           py::arg("deviceManagerId") = std::numeric_limits<unsigned>::max());
}

} // namespace popdsl_bindings
