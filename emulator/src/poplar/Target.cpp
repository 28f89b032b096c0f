#include <poplar/IPUModel.hpp>
#include <poplar/Target.hpp>
#include <poplar/exceptions.hpp>

#include <functional>
#include <istream>
#include <iterator>
#include <ostream>

#include "Bytes.hpp"

#include "TypeInfo.hpp"

namespace poplar {

std::string toString(TargetType t) {
  switch (t) {
  case TargetType::IPU: return "IPU";
  case TargetType::IPU_MODEL: return "IPU_MODEL";
  case TargetType::CPU: return "CPU";
  }
  return "UNKNOWN";
}

std::string Target::getTargetSystemString() const { return arch_; }
StringRef Target::getTargetArchString() const { return arch_; }

std::size_t Target::hash() const {
  return std::hash<std::string>()(arch_) ^ (std::size_t(getNumTiles()) << 8) ^
         (std::size_t(bytesPerTile_) << 24);
}

unsigned Target::getTypeSize(const Type &type) const {
  const auto &info = detail::typeInfo(type);
  if (!info.supportedOnDevice)
    throw type_error("Type '" + type.toString().str() + "' is not supported on " + arch_);
  return info.size;
}

unsigned Target::getVectorWidth(const Type &type) const {
  const unsigned size = getTypeSize(type);
  return dataPathWidth_ / 8 / size ? dataPathWidth_ / 8 / size : 1;
}

// Tiles are numbered from 0 on each IPU; consecutive tiles share a context.
unsigned Target::tileOnIPU(const char *api, unsigned tile) const {
  if (tile >= getNumTiles())
    throw index_error(std::string(api) + ": tile " + std::to_string(tile) + " is not one of the target's " +
                      std::to_string(getNumTiles()) + " tiles");
  return tile % tilesPerIPU_;
}
unsigned Target::getTileHostExchangeXB(unsigned tile) const {
  return tileOnIPU("getTileHostExchangeXB", tile) / (getNumTilesPerXBContext() * getNumContextsPerXB());
}
unsigned Target::getTileHostExchangeContext(unsigned tile) const {
  return tileOnIPU("getTileHostExchangeContext", tile) / getNumTilesPerXBContext() % getNumContextsPerXB();
}
unsigned Target::getTileHostExchangeContextPosition(unsigned tile) const {
  return tileOnIPU("getTileHostExchangeContextPosition", tile) % getNumTilesPerXBContext();
}

// The bit positions of the IPU's $FP_ICTL fields (inv, div0, oflo; esr and nanoo).
unsigned Target::makeFpIctlValue(bool inv, bool div0, bool oflo, bool esr, bool nanoo) const {
  return unsigned(inv) << 0 | unsigned(div0) << 1 | unsigned(oflo) << 2 | unsigned(esr) << 19 |
         unsigned(nanoo) << 20;
}

unsigned Target::getWeightsPerConvUnit(const Type &inputType) const {
  // A unit holds one 32-byte row of coefficients.
  return 32 / getTypeSize(inputType);
}

unsigned Target::getConvUnitInputLoadElemsPerCycle(const Type &inputType) const {
  if (inputType == FLOAT) return getFp32ConvUnitInputLoadElemsPerCycle();
  if (inputType == HALF) return getFp16ConvUnitInputLoadElemsPerCycle();
  if (inputType == QUARTER) return getFp8ConvUnitInputLoadElemsPerCycle();
  throw type_error("The AMP units take float, half or quarter inputs, not " + inputType.toString().str());
}

unsigned Target::getConvUnitMaxPipelineDepth(const Type &inputType) const {
  if (inputType == FLOAT) return getFp32ConvUnitMaxPipelineDepth();
  if (inputType == HALF) return getFp16ConvUnitMaxPipelineDepth();
  if (inputType == QUARTER) return getFp8ConvUnitMaxPipelineDepth();
  throw type_error("The AMP units take float, half or quarter inputs, not " + inputType.toString().str());
}

unsigned Target::getNumConvUnits(const Type &inputType, const Type &partialType) const {
  if (inputType == FLOAT && partialType == FLOAT) return getFp32InFp32OutConvUnitsPerTile();
  if (inputType == HALF && partialType == FLOAT) return getFp16InFp32OutConvUnitsPerTile();
  if (inputType == HALF && partialType == HALF) return getFp16InFp16OutConvUnitsPerTile();
  if (inputType == QUARTER && partialType == HALF) return getFp8InFp16OutConvUnitsPerTile();
  return 0;
}

bool operator==(const Target &a, const Target &b) {
  return a.type_ == b.type_ && a.arch_ == b.arch_ && a.numIPUs_ == b.numIPUs_ &&
         a.tilesPerIPU_ == b.tilesPerIPU_ && a.numWorkerContexts_ == b.numWorkerContexts_ &&
         a.bytesPerTile_ == b.bytesPerTile_ &&
         a.exchangeBytesPerCycle_ == b.exchangeBytesPerCycle_ &&
         a.dataPathWidth_ == b.dataPathWidth_ && a.tileClockFrequency_ == b.tileClockFrequency_ &&
         a.fp16ConvUnitMaxPipelineDepth_ == b.fp16ConvUnitMaxPipelineDepth_ &&
         a.fp16InFp16OutConvUnitsPerTile_ == b.fp16InFp16OutConvUnitsPerTile_ &&
         a.fp16InFp32OutConvUnitsPerTile_ == b.fp16InFp32OutConvUnitsPerTile_ &&
         a.fp32ConvUnitInputLoadElemsPerCycle_ == b.fp32ConvUnitInputLoadElemsPerCycle_ &&
         a.fp16ConvUnitInputLoadElemsPerCycle_ == b.fp16ConvUnitInputLoadElemsPerCycle_ &&
         a.fp8ConvUnitInputLoadElemsPerCycle_ == b.fp8ConvUnitInputLoadElemsPerCycle_;
}

Target Target::createCPUTarget(bool accurateHalf, unsigned numIPUs) {
  IPUModel model("ipu2");
  model.numIPUs = numIPUs;
  model.tilesPerIPU = 1;
  Target t = model.createTarget();
  t.type_ = TargetType::CPU;
  t.arch_ = "cpu";
  return t;
}

Target Target::createIPUTarget(StringRef system, const OptionFlags &opts) {
  return createIPUTarget(1, system, opts);
}

Target Target::createIPUTarget(unsigned numIPUs, StringRef system, const OptionFlags &opts) {
  IPUModel model(system.str().c_str());
  return createIPUTarget(numIPUs, model.tilesPerIPU, system, opts);
}

Target Target::createIPUTarget(unsigned numIPUs, unsigned tilesPerIPU, StringRef system,
                               const OptionFlags &) {
  IPUModel model(system.str().c_str());
  model.numIPUs = numIPUs;
  model.tilesPerIPU = tilesPerIPU;
  Target t = model.createTarget();
  t.type_ = TargetType::IPU;
  return t;
}

// Keeps every figure of this target (its type too) but the tile counts, so changed
// fields (memory per tile, clock, ...) survive.
Target Target::createVirtualTarget(unsigned numIPUs, unsigned tilesPerIPU) const {
  if (numIPUs == 0 || tilesPerIPU == 0 || static_cast<unsigned long long>(numIPUs) * tilesPerIPU > detail::kMaxTiles)
    throw invalid_machine_model("createVirtualTarget: " + std::to_string(numIPUs) + " IPUs x " +
                                std::to_string(tilesPerIPU) + " tiles: need 1 to " +
                                std::to_string(detail::kMaxTiles) + " tiles in all");
  Target t = *this;
  t.numIPUs_ = numIPUs;
  t.tilesPerIPU_ = tilesPerIPU;
  return t;
}

void copyFloatToDeviceHalf(const Target &, const float *src, void *dst, std::size_t n) {
  auto *out = static_cast<std::uint16_t *>(dst);
  for (std::size_t i = 0; i < n; ++i) out[i] = detail::floatToHalf(src[i]);
}

void copyDeviceHalfToFloat(const Target &, const void *src, float *dst, std::size_t n) {
  const auto *in = static_cast<const std::uint16_t *>(src);
  for (std::size_t i = 0; i < n; ++i) dst[i] = detail::halfToFloat(in[i]);
}

void copyDoubleToDeviceHalf(const Target &, const double *src, void *dst, std::size_t n) {
  auto *out = static_cast<std::uint16_t *>(dst);
  for (std::size_t i = 0; i < n; ++i) out[i] = detail::doubleToHalf(src[i]);
}

void copyDeviceHalfToDouble(const Target &, const void *src, double *dst, std::size_t n) {
  const auto *in = static_cast<const std::uint16_t *>(src);
  for (std::size_t i = 0; i < n; ++i) dst[i] = detail::halfToFloat(in[i]);
}

void Target::serialize(std::ostream &out) const {
  detail::ByteWriter w;
  w.u64(static_cast<unsigned>(type_)).str(arch_).u64(numIPUs_).u64(tilesPerIPU_).u64(numWorkerContexts_)
      .u64(bytesPerTile_).u64(exchangeBytesPerCycle_).u64(memcpyBytesPerCycle_).u64(minIPUSyncDelay_)
      .u64(maxIPUSyncDelay_).u64(globalSyncCycles_).u64(dataPathWidth_).f64(tileClockFrequency_)
      .u64(fp16ConvUnitMaxPipelineDepth_).u64(fp16InFp16OutConvUnitsPerTile_).u64(fp16InFp32OutConvUnitsPerTile_)
      .u64(fp32ConvUnitInputLoadElemsPerCycle_).u64(fp16ConvUnitInputLoadElemsPerCycle_)
      .u64(fp8ConvUnitInputLoadElemsPerCycle_).u64(interleavedMemoryElementIndex_).u64(memoryElementOffsets_.size());
  for (unsigned offset : memoryElementOffsets_) w.u64(offset);
  out.write(reinterpret_cast<const char *>(w.bytes().data()), static_cast<std::streamsize>(w.bytes().size()));
}

Target::Target(std::istream &in) {
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  detail::ByteReader r(bytes, "a serialized Target");
  const auto field = [&r] { return static_cast<unsigned>(r.u64()); };
  const unsigned type = field();
  if (type > static_cast<unsigned>(TargetType::CPU)) r.corrupt();
  type_ = static_cast<TargetType>(type);
  arch_ = r.str();
  numIPUs_ = field();
  tilesPerIPU_ = field();
  numWorkerContexts_ = field();
  bytesPerTile_ = field();
  exchangeBytesPerCycle_ = field();
  memcpyBytesPerCycle_ = field();
  minIPUSyncDelay_ = field();
  maxIPUSyncDelay_ = field();
  globalSyncCycles_ = field();
  dataPathWidth_ = field();
  tileClockFrequency_ = r.f64();
  fp16ConvUnitMaxPipelineDepth_ = field();
  fp16InFp16OutConvUnitsPerTile_ = field();
  fp16InFp32OutConvUnitsPerTile_ = field();
  fp32ConvUnitInputLoadElemsPerCycle_ = field();
  fp16ConvUnitInputLoadElemsPerCycle_ = field();
  fp8ConvUnitInputLoadElemsPerCycle_ = field();
  interleavedMemoryElementIndex_ = field();
  const unsigned numElements = field();
  if (numElements > bytesPerTile_) r.corrupt();
  memoryElementOffsets_.clear();
  for (unsigned i = 0; i < numElements; ++i) memoryElementOffsets_.push_back(field());
  if (!r.atEnd() || numIPUs_ == 0 || tilesPerIPU_ == 0 ||
      static_cast<unsigned long long>(numIPUs_) * tilesPerIPU_ > detail::kMaxTiles)
    r.corrupt();
}

} // namespace poplar
