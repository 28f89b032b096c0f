#include <popops/NaN.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <poputil/exceptions.hpp>

#include "KernelSupport.hpp"

namespace popops {

namespace {

// Whether `test` holds for any element of src: one map, then a logical-or reduction.
poplar::Tensor anyElement(poplar::Graph &graph, const poplar::Tensor &src, const expr::Expr &test,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext, const char *fn) {
  if (src.elementType() != poplar::FLOAT && src.elementType() != poplar::HALF)
    throw poputil::poplibs_error(std::string(fn) + ": src " + detail::describe(src) + " must be FLOAT or HALF");
  const poplar::Tensor hits = map(graph, test, {src.flatten()}, prog, {debugContext, fn});
  return reduce(graph, hits, poplar::BOOL, {0}, Operation::LOGICAL_OR, prog, {debugContext, fn});
}

} // namespace

poplar::Tensor hasNaN(poplar::Graph &graph, const poplar::Tensor &src, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext) {
  return anyElement(graph, src, expr::IsNaN(expr::_1), prog, debugContext, "hasNaN");
}

poplar::Tensor hasNaNOrInf(poplar::Graph &graph, const poplar::Tensor &src, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext) {
  return anyElement(graph, src, expr::Not(expr::IsFinite(expr::_1)), prog, debugContext, "hasNaNOrInf");
}

} // namespace popops
