#pragma once
#include <limits>
#include <string>

#include <poplar/Device.hpp>

namespace poplar {

// The IPU model: its public fields can be changed before createDevice().
struct IPUModel {
  enum class RelativeSyncDelayType { AUTO, NO_DELAY };

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
  unsigned interleavedMemoryElementIndex = 0;
  unsigned minIPUSyncDelay = 0;
  unsigned globalSyncCycles = 0;
  bool compileIPUCode = false;
  RelativeSyncDelayType relativeSyncDelay = RelativeSyncDelayType::AUTO;

  Target createTarget() const;
  Device createDevice(OptionFlags opts = {}, bool accurateHalf = false,
                      unsigned deviceManagerId = std::numeric_limits<unsigned>::max()) const;
};

} // namespace poplar
