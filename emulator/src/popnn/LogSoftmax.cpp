// popnn/LogSoftmax.hpp: t - log(sum(exp(t))) per innermost row, the log-sum-exp a
// LOG_ADD reduction (which subtracts each row's maximum first, so it does not overflow).
#include <popnn/LogSoftmax.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Reduce.hpp>
#include <poputil/exceptions.hpp>

#include "popops/KernelSupport.hpp"

namespace popnn {

namespace {

namespace pe = popops::expr;
using poplar::Tensor;

// The log-sum-exp of each innermost row of t, in FLOAT, shaped to broadcast against t.
Tensor rowLogSumExp(poplar::Graph &graph, const Tensor &t, poplar::program::Sequence &prog,
                    const poplar::DebugContext &dc, const char *fn) {
  if (t.rank() == 0 || t.numElements() == 0 ||
      (t.elementType() != poplar::FLOAT && t.elementType() != poplar::HALF))
    throw poputil::poplibs_error(std::string(fn) + ": t " + popops::detail::describe(t) +
                                 " must be a non-empty FLOAT or HALF tensor of rank 1 or more");
  const std::size_t innermost = t.rank() - 1;
  const Tensor rows = popops::reduce(graph, t, poplar::FLOAT, {innermost}, popops::Operation::LOG_ADD, prog,
                                     {dc, "logSumExp"});
  return rows.expand({innermost});
}

pe::Cast logSoftmaxOf(const poplar::Type &type) {
  return pe::Cast(pe::Cast(pe::_1, poplar::FLOAT) - pe::_2, type);
}

} // namespace

void logSoftmaxInPlace(poplar::Graph &graph, Tensor t, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext) {
  const char *fn = "logSoftmaxInPlace";
  const Tensor logSumExp = rowLogSumExp(graph, t, prog, {debugContext, fn}, fn);
  popops::mapInPlace(graph, logSoftmaxOf(t.elementType()), {t, logSumExp}, prog, {debugContext, fn});
}

Tensor logSoftmax(poplar::Graph &graph, Tensor t, poplar::program::Sequence &prog,
                  const poplar::DebugContext &debugContext) {
  const char *fn = "logSoftmax";
  const Tensor logSumExp = rowLogSumExp(graph, t, prog, {debugContext, fn}, fn);
  return popops::map(graph, logSoftmaxOf(t.elementType()), {t, logSumExp}, prog, {debugContext, fn});
}

} // namespace popnn
