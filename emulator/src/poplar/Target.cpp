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

bool operator==(const Target &a, const Target &b) {
  return a.type_ == b.type_ && a.arch_ == b.arch_ && a.numIPUs_ == b.numIPUs_ &&
         a.tilesPerIPU_ == b.tilesPerIPU_ && a.numWorkerContexts_ == b.numWorkerContexts_ &&
         a.bytesPerTile_ == b.bytesPerTile_ &&
         a.exchangeBytesPerCycle_ == b.exchangeBytesPerCycle_ &&
         a.dataPathWidth_ == b.dataPathWidth_ && a.tileClockFrequency_ == b.tileClockFrequency_;
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

// Keeps every figure of `base` but the tile counts. The model is built from the
// base's figures rather than from its architecture name, so changed fields
// (memory per tile, clock, ...) survive and a "cpu" base is accepted.
Target createVirtualTarget(const Target &base, unsigned numIPUs, unsigned tilesPerIPU) {
  IPUModel model("ipu2");
  model.IPUVersion = base.getTargetArchString().str();
  model.numIPUs = numIPUs;
  model.tilesPerIPU = tilesPerIPU;
  model.numWorkerContexts = base.getNumWorkerContexts();
  model.memoryBytesPerTile = base.getBytesPerTile();
  model.tileClockFrequency = base.getTileClockFrequency();
  model.exchangeBytesPerCycle = base.getExchangeBytesPerCycle();
  model.memcpyBytesPerCycle = base.getMemcpyBytesPerCycle();
  model.dataPathWidth = base.getDataPathWidth();
  model.minIPUSyncDelay = base.getMinIPUSyncDelay();
  model.globalSyncCycles = base.getGlobalSyncCycles();
  return model.createTarget();
}

void copyFloatToDeviceHalf(const Target &, const float *src, void *dst, std::size_t n) {
  auto *out = static_cast<std::uint16_t *>(dst);
  for (std::size_t i = 0; i < n; ++i) out[i] = detail::floatToHalf(src[i]);
}

void copyDeviceHalfToFloat(const Target &, const void *src, float *dst, std::size_t n) {
  const auto *in = static_cast<const std::uint16_t *>(src);
  for (std::size_t i = 0; i < n; ++i) dst[i] = detail::halfToFloat(in[i]);
}

void Target::serialize(std::ostream &out) const {
  detail::ByteWriter w;
  w.u64(static_cast<unsigned>(type_)).str(arch_).u64(numIPUs_).u64(tilesPerIPU_).u64(numWorkerContexts_)
      .u64(bytesPerTile_).u64(exchangeBytesPerCycle_).u64(memcpyBytesPerCycle_).u64(minIPUSyncDelay_)
      .u64(maxIPUSyncDelay_).u64(globalSyncCycles_).u64(dataPathWidth_).f64(tileClockFrequency_);
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
  if (!r.atEnd() || numIPUs_ == 0 || tilesPerIPU_ == 0 ||
      static_cast<unsigned long long>(numIPUs_) * tilesPerIPU_ > detail::kMaxTiles)
    r.corrupt();
}

} // namespace poplar
