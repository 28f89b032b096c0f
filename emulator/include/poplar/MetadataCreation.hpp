#pragma once
// One-element QUARTER_METADATA tensors holding a format and scale, for quarter
// tensors (Graph::addVariable(QUARTER, metadata, ...)) and casts to quarter.
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Quarter.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {

// A variable with this format and scale as its initial value, mapped to tile 0.
Tensor createVariableMetadataTensor(Graph &graph, QuarterMetadata::Format format, int scale,
                                    const DebugContext &debugContext = {});
// A constant holding this format and scale, mapped to tile 0.
Tensor createConstantMetadataTensor(Graph &graph, QuarterMetadata::Format format, int scale,
                                    const DebugContext &debugContext = {});

} // namespace poplar
