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
    interleavedMemoryElementIndex = 8;
    // 125 TFLOPS of half at 1.6 GHz on 1216 tiles: 64 flops, 32 MACs a cycle per tile.
    fp16InFp16OutConvUnitsPerTile = fp16InFp32OutConvUnitsPerTile = 8;
  } else if (IPUVersion == "ipu2" || IPUVersion == "ipu21") {
    tilesPerIPU = 1472;
    memoryBytesPerTile = 624 * 1024;
    tileClockFrequency = IPUVersion == "ipu2" ? 1.33e9 : 1.85e9;
    interleavedMemoryElementIndex = 13;
    // 250 TFLOPS of half at 1.33 GHz on 1472 tiles: twice ipu1's AMP units.
    fp16InFp16OutConvUnitsPerTile = fp16InFp32OutConvUnitsPerTile = 16;
  } else {
    throw invalid_machine_model("Unknown IPU version '" + IPUVersion +
                                "'; expected \"ipu1\", \"ipu2\" or \"ipu21\"");
  }
}

namespace {

// 16 KiB elements below the interleaved index, 32 KiB ones from there; a memory too
// small for the non-interleaved elements has only those that start inside it.
std::vector<unsigned> memoryElementOffsets(unsigned bytesPerTile, unsigned interleavedIndex) {
  std::vector<unsigned> offsets;
  for (unsigned long long offset = 0; offset < bytesPerTile;
       offset += offsets.size() <= interleavedIndex ? 16 * 1024 : 32 * 1024)
    offsets.push_back(static_cast<unsigned>(offset));
  return offsets;
}

} // namespace

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
  for (const auto &c : globalExchangeConstraints)
    for (const auto &f : c.flows)
      if (f.src >= numIPUs || f.dst >= numIPUs)
        throw invalid_machine_model("IPUModel globalExchangeConstraints: flow " + std::to_string(f.src) + " -> " +
                                    std::to_string(f.dst) + " names an IPU the model lacks (numIPUs=" +
                                    std::to_string(numIPUs) + ")");
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
  t.interleavedMemoryElementIndex_ = interleavedMemoryElementIndex;
  t.memoryElementOffsets_ = memoryElementOffsets(memoryBytesPerTile, interleavedMemoryElementIndex);
  t.fp16ConvUnitMaxPipelineDepth_ = fp16ConvUnitMaxPipelineDepth;
  t.fp16InFp16OutConvUnitsPerTile_ = fp16InFp16OutConvUnitsPerTile;
  t.fp16InFp32OutConvUnitsPerTile_ = fp16InFp32OutConvUnitsPerTile;
  t.fp32ConvUnitInputLoadElemsPerCycle_ = fp32ConvUnitInputLoadElemsPerCycle;
  t.fp16ConvUnitInputLoadElemsPerCycle_ = fp16ConvUnitInputLoadElemsPerCycle;
  t.fp8ConvUnitInputLoadElemsPerCycle_ = fp8ConvUnitInputLoadElemsPerCycle;
  return t;
}

} // namespace poplar
