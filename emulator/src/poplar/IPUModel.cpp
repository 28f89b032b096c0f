#include <poplar/IPUModel.hpp>
#include <poplar/Internals.hpp>
#include <poplar/exceptions.hpp>

#include <string>

namespace poplar {

IPUModel::IPUModel(const char *version) : IPUVersion(version ? version : "") {
  if (IPUVersion == "ipu1") {
    tilesPerIPU = 1216;
    memoryBytesPerTile = 256 * 1024;
    tileClockFrequency = 1.6e9;
  } else if (IPUVersion == "ipu2" || IPUVersion == "ipu21") {
    tilesPerIPU = 1472;
    memoryBytesPerTile = 624 * 1024;
    tileClockFrequency = IPUVersion == "ipu2" ? 1.33e9 : 1.85e9;
  } else {
    throw invalid_machine_model("Unknown IPU version '" + IPUVersion +
                                "'; expected \"ipu1\", \"ipu2\" or \"ipu21\"");
  }
}

Target IPUModel::createTarget() const {
  if (numIPUs == 0 || tilesPerIPU == 0)
    throw invalid_machine_model("IPUModel needs at least one IPU and one tile per IPU (numIPUs=" +
                                std::to_string(numIPUs) +
                                ", tilesPerIPU=" + std::to_string(tilesPerIPU) + ")");
  if (static_cast<unsigned long long>(numIPUs) * tilesPerIPU > detail::kMaxTiles)
    throw invalid_machine_model("IPUModel has too many tiles: numIPUs=" + std::to_string(numIPUs) +
                                " x tilesPerIPU=" + std::to_string(tilesPerIPU) + " is more than " +
                                std::to_string(detail::kMaxTiles));
  if (dataPathWidth == 0 || dataPathWidth % 8)
    throw invalid_machine_model("IPUModel dataPathWidth must be a positive multiple of 8 bits");
  Target t;
  t.type_ = TargetType::IPU_MODEL;
  t.arch_ = IPUVersion;
  t.numIPUs_ = numIPUs;
  t.tilesPerIPU_ = tilesPerIPU;
  t.numWorkerContexts_ = numWorkerContexts;
  t.bytesPerTile_ = memoryBytesPerTile;
  t.exchangeBytesPerCycle_ = exchangeBytesPerCycle;
  t.memcpyBytesPerCycle_ = memcpyBytesPerCycle;
  t.minIPUSyncDelay_ = minIPUSyncDelay;
  t.maxIPUSyncDelay_ = minIPUSyncDelay;
  t.globalSyncCycles_ = globalSyncCycles;
  t.dataPathWidth_ = dataPathWidth;
  t.tileClockFrequency_ = tileClockFrequency;
  return t;
}

} // namespace poplar
