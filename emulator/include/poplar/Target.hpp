#pragma once
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/TargetType.hpp>
#include <poplar/Type.hpp>
#include <poplar/exceptions.hpp>

namespace poplar {

// A flow of a global-exchange constraint: data from one IPU to another.
struct GlobalExchangeFlow {
  GlobalExchangeFlow(unsigned src, unsigned dst) : src(src), dst(dst) {}
  unsigned src;
  unsigned dst;
};

// A shared link of bandwidth `bandwidth` (bits per second) that `flows` all use.
struct GlobalExchangeConstraint {
  GlobalExchangeConstraint(double bandwidth, ArrayRef<GlobalExchangeFlow> flows)
      : bandwidth(bandwidth), flows(flows.begin(), flows.end()) {}
  double bandwidth;
  std::vector<GlobalExchangeFlow> flows;
};

// How the IPU-Links of a multi-IPU system are wired, and their shape.
enum class IpuLinkConfiguration { Default, SlidingWindow, BarleyTwist };
enum class IpuLinkTopology { Mesh, Torus, Line };

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

  // A tile's memory is a run of elements (banks): getInterleavedMemoryElementIndex()
  // non-interleaved ones of 16 KiB from address 0, then interleaved ones of 32 KiB up
  // to getBytesPerTile(). Each offset is an element's first byte.
  const std::vector<unsigned> &getMemoryElementOffsets() const { return memoryElementOffsets_; }
  unsigned getInterleavedMemoryElementIndex() const { return interleavedMemoryElementIndex_; }

  // Host exchange: the tiles of an IPU reach the host through exchange blocks (XBs),
  // each with getNumContextsPerXB() contexts serving getNumTilesPerXBContext()
  // consecutive tiles; a tile's XB, context and position follow from its number.
  unsigned getNumTilesPerXBContext() const { return 16; }
  unsigned getNumContextsPerXB() const { return 4; }
  unsigned getTileHostExchangeXB(unsigned tile) const;
  unsigned getTileHostExchangeContext(unsigned tile) const;
  unsigned getTileHostExchangeContextPosition(unsigned tile) const;

  // The floating-point control register ($FP_ICTL) value with these exception and
  // rounding bits set, and the control registers' indices.
  unsigned makeFpIctlValue(bool inv, bool div0, bool oflo, bool esr, bool nanoo) const;
  unsigned getFpIctlRegIndex() const { return 258; }
  unsigned getDbgDataRegIndex() const { return 0x70; }

  // The AMP (accumulating matrix product) units, as the IPUModel fields of the same
  // names set them; the others follow from those (float works on half as many
  // elements at a time as half, quarter on twice as many).
  unsigned getFp8ConvUnitMaxPipelineDepth() const { return 2 * fp16ConvUnitMaxPipelineDepth_; }
  unsigned getFp16ConvUnitMaxPipelineDepth() const { return fp16ConvUnitMaxPipelineDepth_; }
  unsigned getFp32ConvUnitMaxPipelineDepth() const { return fp16ConvUnitMaxPipelineDepth_ / 2; }
  unsigned getFp8ConvUnitInputLoadElemsPerCycle() const { return fp8ConvUnitInputLoadElemsPerCycle_; }
  unsigned getFp16ConvUnitInputLoadElemsPerCycle() const { return fp16ConvUnitInputLoadElemsPerCycle_; }
  unsigned getFp32ConvUnitInputLoadElemsPerCycle() const { return fp32ConvUnitInputLoadElemsPerCycle_; }
  unsigned getFp16InFp16OutConvUnitsPerTile() const { return fp16InFp16OutConvUnitsPerTile_; }
  unsigned getFp16InFp32OutConvUnitsPerTile() const { return fp16InFp32OutConvUnitsPerTile_; }
  unsigned getFp32InFp32OutConvUnitsPerTile() const { return fp16InFp32OutConvUnitsPerTile_ / 2; }
  // Quarter (fp8) inputs are new in ipu21.
  unsigned getFp8InFp16OutConvUnitsPerTile() const { return arch_ == "ipu21" ? fp16InFp16OutConvUnitsPerTile_ : 0; }
  unsigned getConvUnitCoeffLoadBytesPerCycle() const { return 2 * fp16InFp32OutConvUnitsPerTile_; }
  // 16 half or 8 float weights per unit (one 32-byte row of coefficients), 32 quarter.
  unsigned getWeightsPerConvUnit(const Type &inputType) const;
  unsigned getConvUnitInputLoadElemsPerCycle(const Type &inputType) const;
  unsigned getConvUnitMaxPipelineDepth(const Type &inputType) const;
  // Units for these input and partials types; 0 where the combination has none.
  unsigned getNumConvUnits(const Type &inputType, const Type &partialType) const;

  // ipu2 and later let a tile use its neighbour's exchange bus while that is idle.
  bool supportsExchangeBusSharing() const { return arch_ != "ipu1"; }
  unsigned getTilesPerSharedExchangeBus() const { return supportsExchangeBusSharing() ? 2 : 1; }

  // The system's IPU-Link wiring: the emulator models a single mesh of getNumIPUs().
  IpuLinkConfiguration getIpuLinkConfiguration() const { return IpuLinkConfiguration::Default; }
  IpuLinkTopology getIpuLinkTopology() const { return IpuLinkTopology::Mesh; }
  unsigned getIpuLinkDomainSize() const { return numIPUs_; }
  unsigned getInstanceSize() const { return numIPUs_; }
  bool getGatewayMode() const { return false; }

  // The largest (most negative for getTypeLimitsLowestAs) value of a device type, as T.
  template <class T> T getTypeLimitsMaxAs(const Type &type) const {
    return static_cast<T>(typeLimit<T>(type, true));
  }
  template <class T> T getTypeLimitsLowestAs(const Type &type) const {
    return static_cast<T>(typeLimit<T>(type, false));
  }

  // This target's figures with other tile counts.
  Target createVirtualTarget(unsigned numIPUs, unsigned tilesPerIPU) const;

  static Target createCPUTarget(bool accurateHalf = false, unsigned numIPUs = 1);
  static Target createIPUTarget(StringRef system, const OptionFlags &opts = {});
  static Target createIPUTarget(unsigned numIPUs, StringRef system, const OptionFlags &opts = {});
  static Target createIPUTarget(unsigned numIPUs, unsigned tilesPerIPU, StringRef system,
                                const OptionFlags &opts = {});

  friend bool operator==(const Target &a, const Target &b);
  friend bool operator!=(const Target &a, const Target &b) { return !(a == b); }

private:
  friend struct IPUModel;
  // `tile`'s number on its IPU; index_error naming `api` when the target lacks it.
  unsigned tileOnIPU(const char *api, unsigned tile) const;
  // The limit as a double when T is floating point (half's 65504 fits no integer
  // type smaller than int), else as the exact integer.
  template <class T>
  typename std::conditional<std::is_floating_point<T>::value, double, long double>::type
  typeLimit(const Type &type, bool max) const {
    if (type == FLOAT) return max ? std::numeric_limits<float>::max() : std::numeric_limits<float>::lowest();
    if (type == HALF) return max ? 65504.0 : -65504.0;
    if (type == INT) return max ? 2147483647.0L : -2147483648.0L;
    if (type == UNSIGNED_INT) return max ? 4294967295.0L : 0.0L;
    if (type == SHORT) return max ? 32767.0L : -32768.0L;
    if (type == UNSIGNED_SHORT) return max ? 65535.0L : 0.0L;
    if (type == CHAR || type == SIGNED_CHAR) return max ? 127.0L : -128.0L;
    if (type == UNSIGNED_CHAR) return max ? 255.0L : 0.0L;
    if (type == BOOL) return max ? 1.0L : 0.0L;
    if (type == LONGLONG) return max ? 9223372036854775807.0L : -9223372036854775808.0L;
    if (type == UNSIGNED_LONGLONG) return max ? 18446744073709551615.0L : 0.0L;
    throw poplar_error("getTypeLimits: type '" + type.toString().str() + "' has no limits on " + arch_);
  }
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
  unsigned interleavedMemoryElementIndex_ = 13;
  std::vector<unsigned> memoryElementOffsets_;
  unsigned fp16ConvUnitMaxPipelineDepth_ = 4;
  unsigned fp16InFp16OutConvUnitsPerTile_ = 16;
  unsigned fp16InFp32OutConvUnitsPerTile_ = 16;
  unsigned fp32ConvUnitInputLoadElemsPerCycle_ = 2;
  unsigned fp16ConvUnitInputLoadElemsPerCycle_ = 4;
  unsigned fp8ConvUnitInputLoadElemsPerCycle_ = 8;
};

// Host conversions between float and the device's IEEE half format.
void copyFloatToDeviceHalf(const Target &target, const float *src, void *dst, std::size_t n);
void copyDeviceHalfToFloat(const Target &target, const void *src, float *dst, std::size_t n);
void copyDoubleToDeviceHalf(const Target &target, const double *src, void *dst, std::size_t n);
void copyDeviceHalfToDouble(const Target &target, const void *src, double *dst, std::size_t n);

} // namespace poplar
