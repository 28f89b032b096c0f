#include <poplin/Convolution.hpp>
#include <poplin/MatMul.hpp>

#include <tuple>

#include "PlanningCacheImpl.hpp"

namespace poplin {

PlanningCache::PlanningCache() : impl(std::make_unique<PlanningCacheImpl>()) {}
PlanningCache::~PlanningCache() = default;
std::size_t PlanningCache::size() const { return impl->plans.size() + impl->convolutions.size(); }

poplin::PlanningCache &matmul::PlanningCache::getImpl() { return *this; }

bool operator<(const MatMulParams &a, const MatMulParams &b) {
  return std::tie(a.inputType, a.outputType, a.aShape, a.bShape) <
         std::tie(b.inputType, b.outputType, b.aShape, b.bShape);
}

} // namespace poplin
