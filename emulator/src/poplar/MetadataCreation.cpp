#include <poplar/MetadataCreation.hpp>

#include "QuarterFormat.hpp"

namespace poplar {

namespace {

// The metadata byte of (format, scale); QuarterMetadata checks both.
unsigned metadataValue(QuarterMetadata::Format format, int scale) {
  if (scale < -32 || scale > 31)
    throw poplar_error("quarter metadata: scale " + std::to_string(scale) + " is outside [-32, 31]");
  return detail::metadataByte(QuarterMetadata(format, static_cast<std::int8_t>(scale)));
}

} // namespace

Tensor createVariableMetadataTensor(Graph &graph, QuarterMetadata::Format format, int scale,
                                    const DebugContext &debugContext) {
  const unsigned value = metadataValue(format, scale);
  Tensor metadata = graph.addVariable(QUARTER_METADATA, {1}, debugContext);
  graph.setTileMapping(metadata, 0);
  graph.setInitialValue(metadata, value);
  return metadata;
}

Tensor createConstantMetadataTensor(Graph &graph, QuarterMetadata::Format format, int scale,
                                    const DebugContext &debugContext) {
  Tensor metadata = graph.addConstant(QUARTER_METADATA, {1}, metadataValue(format, scale), debugContext);
  graph.setTileMapping(metadata, 0);
  return metadata;
}

} // namespace poplar
