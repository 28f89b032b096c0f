// Target, IPUModel, Device, DeviceManager, Type and DataStream queries a C++ program
// makes, printed as "name: value" lines that test_core_api.py checks.
#include <poplar/DataStream.hpp>
#include <poplar/DeviceManager.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Target.hpp>
#include <poplar/Type.hpp>

#include <cstdint>
#include <iostream>
#include <string>

#include "expect_error.hpp"

namespace {

void printTarget(const char *name, const poplar::Target &t) {
  std::cout << name << ": tiles " << t.getTilesPerIPU() << ", bytes " << t.getBytesPerTile() << ", clock "
            << t.getTileClockFrequency() << ", workers " << t.getNumWorkerContexts() << ", path "
            << t.getDataPathWidth() << ", exchange " << t.getExchangeBytesPerCycle() << ", units "
            << t.getNumConvUnits(poplar::HALF, poplar::FLOAT) << ' '
            << t.getNumConvUnits(poplar::HALF, poplar::HALF) << ' '
            << t.getNumConvUnits(poplar::FLOAT, poplar::FLOAT) << ' '
            << t.getNumConvUnits(poplar::QUARTER, poplar::HALF) << ' '
            << t.getNumConvUnits(poplar::FLOAT, poplar::HALF) << ", fp units " << t.getFp16InFp32OutConvUnitsPerTile()
            << ' ' << t.getFp16InFp16OutConvUnitsPerTile() << ' ' << t.getFp32InFp32OutConvUnitsPerTile() << ' '
            << t.getFp8InFp16OutConvUnitsPerTile() << ", weights " << t.getWeightsPerConvUnit(poplar::FLOAT) << ' '
            << t.getWeightsPerConvUnit(poplar::HALF) << ' ' << t.getWeightsPerConvUnit(poplar::QUARTER)
            << ", loads " << t.getConvUnitInputLoadElemsPerCycle(poplar::FLOAT) << ' '
            << t.getConvUnitInputLoadElemsPerCycle(poplar::HALF) << ' '
            << t.getConvUnitInputLoadElemsPerCycle(poplar::QUARTER) << ' ' << t.getFp32ConvUnitInputLoadElemsPerCycle()
            << ' ' << t.getFp16ConvUnitInputLoadElemsPerCycle() << ' ' << t.getFp8ConvUnitInputLoadElemsPerCycle()
            << ", depths " << t.getConvUnitMaxPipelineDepth(poplar::FLOAT) << ' '
            << t.getConvUnitMaxPipelineDepth(poplar::HALF) << ' ' << t.getConvUnitMaxPipelineDepth(poplar::QUARTER)
            << ' ' << t.getFp32ConvUnitMaxPipelineDepth() << ' ' << t.getFp16ConvUnitMaxPipelineDepth() << ' '
            << t.getFp8ConvUnitMaxPipelineDepth() << ", coeff " << t.getConvUnitCoeffLoadBytesPerCycle()
            << ", bus sharing " << t.supportsExchangeBusSharing() << ' ' << t.getTilesPerSharedExchangeBus()
            << ", vectors " << t.getFloatVectorWidth() << ' ' << t.getHalfVectorWidth() << ' '
            << t.getQuarterVectorWidth() << ' ' << t.getVectorWidth(poplar::INT) << ", rpt " << t.getRptCountMax()
            << ", stride bits " << t.getNumStrideBits() << ", atomic " << t.getAtomicStoreGranularity()
            << ", sync " << t.getMinIPUSyncDelay() << ' ' << t.getMaxIPUSyncDelay() << ' ' << t.getGlobalSyncCycles()
            << ", memcpy " << t.getMemcpyBytesPerCycle() << '\n';
}

} // namespace

int main() {
  std::cout << "target types: " << poplar::toString(poplar::TargetType::IPU) << ' '
            << poplar::toString(poplar::TargetType::IPU_MODEL) << ' ' << poplar::toString(poplar::TargetType::CPU) << '\n';
  for (const char *version : {"ipu1", "ipu2", "ipu21"}) printTarget(version, poplar::IPUModel(version).createTarget());

  poplar::IPUModel model("ipu2");
  model.numIPUs = 2;
  model.tilesPerIPU = 8;
  model.fp16InFp32OutConvUnitsPerTile = 4;
  model.fp16ConvUnitMaxPipelineDepth = 6;
  model.fp32ConvUnitInputLoadElemsPerCycle = 1;
  poplar::Device device = model.createDevice();
  const poplar::Target &target = device.getTarget();
  std::cout << "changed model: units " << target.getNumConvUnits(poplar::HALF, poplar::FLOAT) << ", depth "
            << target.getConvUnitMaxPipelineDepth(poplar::HALF) << ", float loads "
            << target.getConvUnitInputLoadElemsPerCycle(poplar::FLOAT) << ", tiles " << target.getNumTiles() << '\n';
  const poplar::Target small = target.createVirtualTarget(1, 2);
  std::cout << "virtual: " << small.getNumIPUs() << " x " << small.getTilesPerIPU() << ", units "
            << small.getNumConvUnits(poplar::HALF, poplar::FLOAT) << ", same figures "
            << (small.getTileClockFrequency() == target.getTileClockFrequency()) << '\n';
  std::cout << "links: " << (target.getIpuLinkConfiguration() == poplar::IpuLinkConfiguration::Default) << ' '
            << (target.getIpuLinkTopology() == poplar::IpuLinkTopology::Mesh) << ' ' << target.getIpuLinkDomainSize()
            << ' ' << target.getInstanceSize() << ' ' << target.getGatewayMode() << '\n';
  std::cout << "limits: " << target.getTypeLimitsMaxAs<double>(poplar::HALF) << ' '
            << target.getTypeLimitsLowestAs<double>(poplar::HALF) << ' '
            << target.getTypeLimitsMaxAs<int>(poplar::SHORT) << ' '
            << target.getTypeLimitsLowestAs<long long>(poplar::INT) << ' '
            << target.getTypeLimitsMaxAs<unsigned long long>(poplar::UNSIGNED_LONGLONG) << ' '
            << target.getTypeLimitsMaxAs<float>(poplar::FLOAT) << '\n';
  std::cout << "type sizes: " << target.getTypeSize(poplar::BOOL) << ' ' << target.getTypeSize(poplar::HALF) << ' '
            << target.getTypeSize(poplar::FLOAT) << ' ' << target.getTypeSize(poplar::LONGLONG) << '\n';
  expectError("limits of double", [&] { target.getTypeLimitsMaxAs<double>(poplar::DOUBLE); });
  expectError("conv units of int", [&] { target.getConvUnitInputLoadElemsPerCycle(poplar::INT); });
  expectError("virtual of no tiles", [&] { target.createVirtualTarget(1, 0); });

  std::cout << "device: remote buffers " << device.supportsRemoteBuffers() << ", gateway " << device.hasGateway()
            << '\n';
  std::cout << "attributes:";
  for (const auto &attribute : device.getAttributes()) std::cout << ' ' << attribute.first << '=' << attribute.second << ';';
  std::cout << "\nnuma: " << device.getNumaTopology().size() << ' ' << device.getNumaTopology().at(1)
            << ", driver ids " << device.getDriverIDs().size() << '\n';
  unsigned major = 0, minor = 0, point = 0;
  expectError("driver version", [&] { device.getDriverVersion(major, minor, point); });
  expectError("reset detached", [&] { device.reset(); });
  std::cout << "attach: " << device.attach() << ' ' << device.attach() << ' ' << device.isAttached() << '\n';
  device.reset();
  device.detach();
  std::cout << "detached: " << device.isAttached() << '\n';

  const poplar::DeviceManager manager = poplar::DeviceManager::createDeviceManager();
  const poplar::DeviceManager copy(manager);
  std::cout << "manager: " << manager.getNumDevices() << ' ' << copy.getDevices().size() << ' '
            << manager.getDevices(poplar::TargetType::IPU, 1, {}).size() << '\n';
  expectError("model devices", [&] { manager.getDevices(poplar::TargetType::IPU_MODEL, 1); });
  expectError("zero IPUs", [&] { manager.getDevices(poplar::TargetType::IPU, 0); });
  expectError("device 3", [&] { manager.getDevice(3); });
  expectError("children of 0", [&] { manager.getChildDeviceIds(0); });
  expectError("children of 1", [&] { manager.getChildDeviceIds(1, 2); });

  std::cout << "types: " << poplar::equivalent_device_type<float>().value << ' '
            << poplar::equivalent_device_type<unsigned>().value << ' '
            << poplar::equivalent_device_type<long long>().value << ' ' << poplar::HALF.isFloatingPoint() << ' '
            << poplar::INT.isFloatingPoint() << ' ' << poplar::QUARTER.requiresMetadata() << ' '
            << poplar::HALF.requiresMetadata() << ' ' << (poplar::Type(poplar::FLOAT) == poplar::FLOAT) << ' '
            << (std::hash<poplar::Type>()(poplar::FLOAT) == poplar::FLOAT.hash()) << '\n';

  std::cout << "stream kinds:";
  for (poplar::DataStreamType kind : {poplar::DataStreamType::HostToDeviceFIFO, poplar::DataStreamType::DeviceToHostFIFO,
                                      poplar::DataStreamType::HostToDeviceBuffer,
                                      poplar::DataStreamType::DeviceToHostBuffer})
    std::cout << ' ' << poplar::isHostToDevice(kind) << poplar::isDeviceToHost(kind) << poplar::isRemoteBuffer(kind);
  std::cout << '\n';
  const float floats[] = {1.0f, 0.1f, 65504.0f, 1e6f, 2049.0f};
  std::uint16_t halves[5];
  poplar::copyFloatToDeviceHalf(target, floats, halves, 5);
  float fromHalves[5];
  poplar::copyDeviceHalfToFloat(target, halves, fromHalves, 5);
  std::cout << "half bits:" << std::hex;
  for (std::uint16_t h : halves) std::cout << ' ' << h;
  std::cout << std::dec << "\nhalf floats:";
  for (float f : fromHalves) std::cout << ' ' << f;
  const double doubles[] = {0.5, -2.0, 1e-8};
  std::uint16_t doubleHalves[3];
  poplar::copyDoubleToDeviceHalf(target, doubles, doubleHalves, 3);
  double fromDoubleHalves[3];
  poplar::copyDeviceHalfToDouble(target, doubleHalves, fromDoubleHalves, 3);
  std::cout << "\nhalf doubles:";
  for (double d : fromDoubleHalves) std::cout << ' ' << d;
  std::cout << '\n';

  for (const char *version : {"ipu1", "ipu2", "ipu21"}) {
    const poplar::Target t = poplar::IPUModel(version).createTarget();
    std::cout << version << " memory elements:";
    for (unsigned offset : t.getMemoryElementOffsets()) std::cout << ' ' << offset;
    std::cout << ", interleaved from " << t.getInterleavedMemoryElementIndex() << '\n';
  }
  poplar::IPUModel smallMemory("ipu2");
  smallMemory.memoryBytesPerTile = 40000;
  smallMemory.interleavedMemoryElementIndex = 1;
  std::cout << "small memory elements:";
  const poplar::Target smallTarget = smallMemory.createTarget();
  for (unsigned offset : smallTarget.getMemoryElementOffsets()) std::cout << ' ' << offset;
  std::cout << '\n';
  // Tiles 0, 15, 16, 63, 64 and 1471 of the first IPU and 1472 + 17 of the second.
  std::cout << "host exchange: " << target.getNumTilesPerXBContext() << ' ' << target.getNumContextsPerXB();
  const poplar::Target twoIPUs = poplar::IPUModel("ipu2").createTarget().createVirtualTarget(2, 1472);
  for (unsigned tile : {0u, 15u, 16u, 63u, 64u, 1471u, 1489u})
    std::cout << ' ' << twoIPUs.getTileHostExchangeXB(tile) << '/' << twoIPUs.getTileHostExchangeContext(tile) << '/'
              << twoIPUs.getTileHostExchangeContextPosition(tile);
  std::cout << '\n';
  expectError("host exchange of tile 2944", [&] { twoIPUs.getTileHostExchangeXB(2944); });
  expectError("host context of tile 2944", [&] { twoIPUs.getTileHostExchangeContext(2944); });
  expectError("host position of tile 2944", [&] { twoIPUs.getTileHostExchangeContextPosition(2944); });
  std::cout << "fp ictl: " << std::hex << target.makeFpIctlValue(true, false, false, false, false) << ' '
            << target.makeFpIctlValue(false, true, true, false, false) << ' '
            << target.makeFpIctlValue(false, false, false, true, true) << ' '
            << target.makeFpIctlValue(true, true, true, true, true) << std::dec << ", registers "
            << target.getFpIctlRegIndex() << ' ' << target.getDbgDataRegIndex() << '\n';

  poplar::IPUModel wide;
  wide.numIPUs = 1;
  wide.globalExchangeConstraints.push_back(
      poplar::GlobalExchangeConstraint(1e11, {poplar::GlobalExchangeFlow(0, 1)}));
  expectError("constraint beyond the IPUs", [&] { wide.createDevice(); });
  return 0;
}
