#pragma once
#include <limits>
#include <string>
#include <vector>

#include <poplar/Device.hpp>

namespace poplar {

// The IPU model: its public fields can be changed before createDevice().
struct IPUModel {
  enum class RelativeSyncDelayType { AUTO, NO_DELAY };

  // "ipu1" (Mk1: 1216 tiles of 256 KiB, 8 half AMP units), "ipu2" (Mk2 GC200: 1472 tiles
  // of 624 KiB, 16 units, 1.33 GHz) or "ipu21" (Bow/C600: as ipu2 at 1.85 GHz, with
  // quarter-precision AMP inputs); any other raises invalid_machine_model.
  explicit IPUModel(const char *IPUVersion = "ipu2");

  std::string IPUVersion;
  unsigned numIPUs = 1;
  unsigned tilesPerSuperTile = 4;
  unsigned tilesPerIPU;
  unsigned numWorkerContexts = 6;
  unsigned memoryBytesPerTile;
  double tileClockFrequency;
  unsigned exchangeBytesPerCycle = 4;
  unsigned memcpyBytesPerCycle = 8;
  unsigned instructionBytes = 4;
  unsigned dataPathWidth = 64;
  bool supportsSuperTileSendReceive = true;
  // Of Target::getMemoryElementOffsets(): 8 on ipu1 (documented), 13 on ipu2 and ipu21
  // (inferred: 13 16 KiB elements put the first interleaved one at 0x34000, as ipu21's is).
  unsigned interleavedMemoryElementIndex;
  unsigned minIPUSyncDelay = 0;
  unsigned globalSyncCycles = 0;
  bool compileIPUCode = false;
  RelativeSyncDelayType relativeSyncDelay = RelativeSyncDelayType::AUTO;
  // The links between IPUs (kept for the target; the emulator's exchange cost model
  // uses exchangeBytesPerCycle only).
  std::vector<GlobalExchangeConstraint> globalExchangeConstraints;
  unsigned fp16ConvUnitMaxPipelineDepth = 4;
  unsigned fp16InFp16OutConvUnitsPerTile;
  unsigned fp16InFp32OutConvUnitsPerTile;
  unsigned fp32ConvUnitInputLoadElemsPerCycle = 2;
  unsigned fp16ConvUnitInputLoadElemsPerCycle = 4;
  unsigned fp8ConvUnitInputLoadElemsPerCycle = 8;

  Target createTarget() const;
  Device createDevice(OptionFlags opts = {}, bool accurateHalf = false,
                      unsigned deviceManagerId = std::numeric_limits<unsigned>::max()) const;
};

} // namespace poplar
