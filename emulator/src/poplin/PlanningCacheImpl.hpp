#pragma once
#include <set>

#include <poplin/MatMul.hpp>

namespace poplin {

struct PlanningCacheImpl {
  std::set<MatMulParams> plans;
};

} // namespace poplin
