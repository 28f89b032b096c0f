#pragma once
#include <iosfwd>
#include <string>

#include <poplar/OptionFlags.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/TargetType.hpp>
#include <poplar/Type.hpp>

namespace poplar {

// The figures of one IPU system: tiles, memory, workers, bandwidths, clock.
class Target {
public:
  Target() = default;
  // Reads a target written by serialize().
  explicit Target(std::istream &in);
  void serialize(std::ostream &out) const;

  TargetType getTargetType() const { return type_; }
  std::string getTargetSystemString() const;
  StringRef getTargetArchString() const;
  std::size_t hash() const;

  unsigned getNumIPUs() const { return numIPUs_; }
  unsigned getTilesPerIPU() const { return tilesPerIPU_; }
  unsigned getNumTiles() const { return numIPUs_ * tilesPerIPU_; }
  unsigned getNumWorkerContexts() const { return numWorkerContexts_; }
  unsigned getBytesPerTile() const { return bytesPerTile_; }
  std::size_t getMemoryBytes() const { return std::size_t(bytesPerTile_) * getNumTiles(); }
  unsigned getExchangeBytesPerCycle() const { return exchangeBytesPerCycle_; }
  unsigned getMemcpyBytesPerCycle() const { return memcpyBytesPerCycle_; }
  unsigned getMinIPUSyncDelay() const { return minIPUSyncDelay_; }
  unsigned getMaxIPUSyncDelay() const { return maxIPUSyncDelay_; }
  unsigned getGlobalSyncCycles() const { return globalSyncCycles_; }
  unsigned getDataPathWidth() const { return dataPathWidth_; }
  unsigned getFloatVectorWidth() const { return dataPathWidth_ / 32; }
  unsigned getHalfVectorWidth() const { return dataPathWidth_ / 16; }
  unsigned getQuarterVectorWidth() const { return dataPathWidth_ / 8; }
  unsigned getVectorWidth(const Type &type) const;
  unsigned getTypeSize(const Type &type) const;
  unsigned getAtomicStoreGranularity() const { return 4; }
  unsigned getRptCountMax() const { return 4095; }
  unsigned getNumStrideBits() const { return 10; }
  double getTileClockFrequency() const { return tileClockFrequency_; }

  static Target createCPUTarget(bool accurateHalf = false, unsigned numIPUs = 1);
  static Target createIPUTarget(StringRef system, const OptionFlags &opts = {});
  static Target createIPUTarget(unsigned numIPUs, StringRef system, const OptionFlags &opts = {});
  static Target createIPUTarget(unsigned numIPUs, unsigned tilesPerIPU, StringRef system,
                                const OptionFlags &opts = {});

  friend bool operator==(const Target &a, const Target &b);
  friend bool operator!=(const Target &a, const Target &b) { return !(a == b); }

private:
  friend struct IPUModel;
  TargetType type_ = TargetType::IPU_MODEL;
  std::string arch_ = "ipu2";
  unsigned numIPUs_ = 1;
  unsigned tilesPerIPU_ = 1472;
  unsigned numWorkerContexts_ = 6;
  unsigned bytesPerTile_ = 638976;
  unsigned exchangeBytesPerCycle_ = 4;
  unsigned memcpyBytesPerCycle_ = 8;
  unsigned minIPUSyncDelay_ = 0;
  unsigned maxIPUSyncDelay_ = 0;
  unsigned globalSyncCycles_ = 0;
  unsigned dataPathWidth_ = 64;
  double tileClockFrequency_ = 1.33e9;
};

Target createVirtualTarget(const Target &base, unsigned numIPUs, unsigned tilesPerIPU);

// Host conversions between float and the device's IEEE half format.
void copyFloatToDeviceHalf(const Target &target, const float *src, void *dst, std::size_t n);
void copyDeviceHalfToFloat(const Target &target, const void *src, float *dst, std::size_t n);

} // namespace poplar
