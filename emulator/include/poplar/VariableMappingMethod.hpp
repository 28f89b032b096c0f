#pragma once
namespace poplar {
enum class VariableMappingMethod { NONE, LINEAR };
} // namespace poplar
