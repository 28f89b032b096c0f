#pragma once
#include <string>

namespace poplar {
enum class TargetType { IPU, IPU_MODEL, CPU };
std::string toString(TargetType t);
} // namespace poplar
