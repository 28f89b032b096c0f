#pragma once
#include <set>

#include <poplin/ConvParams.hpp>
#include <poplin/MatMul.hpp>

namespace poplin {

struct PlanningCacheImpl {
  std::set<MatMulParams> plans;
  std::set<ConvParams> convolutions;
};

} // namespace poplin
