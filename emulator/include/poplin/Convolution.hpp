#pragma once
// The subset of poplin/Convolution.hpp that matrix multiplication needs.
#include <cstddef>
#include <memory>

namespace poplin {

struct PlanningCacheImpl;

// Remembers the matmuls that have been planned so later calls with the same
// parameters reuse the plan. The emulator's plan is trivial (one BLAS call per
// group), so the cache only records which problems it has seen.
class PlanningCache {
public:
  PlanningCache();
  ~PlanningCache();
  // The number of distinct plans held.
  std::size_t size() const;
  std::unique_ptr<PlanningCacheImpl> impl;
};

} // namespace poplin
