#pragma once
// Cycle estimates of custom vertices (Graph::setPerfEstimate, registerPerfEstimator).
#include <cstdint>
#include <functional>

namespace poplar {

class Target;
class VertexIntrospector;

struct VertexPerfEstimate {
  VertexPerfEstimate() : cycles(0), flops(0) {}
  // Implicit, so an estimator may return a plain cycle count.
  VertexPerfEstimate(std::uint64_t cycles, std::uint64_t flops = 0) : cycles(cycles), flops(flops) {}
  std::uint64_t cycles;
  std::uint64_t flops;
};

// Estimates the cost of one vertex of a type from its fields (sizes, initial
// values) and the target; Graph::registerPerfEstimator makes it the estimate of
// every vertex of that type without one of its own, evaluated when the engine is built.
typedef std::function<VertexPerfEstimate(const VertexIntrospector &vertex, const Target &target)> PerfEstimateFunc;

} // namespace poplar
