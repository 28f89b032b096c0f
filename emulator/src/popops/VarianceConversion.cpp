// varianceToInvStdDev / invStdDevToVariance: one map each, computed in float.
#include <popops/ElementWise.hpp>

#include <poputil/exceptions.hpp>

namespace popops {

namespace {

using poplar::Tensor;

Tensor convert(poplar::Graph &graph, expr::BinaryOpType op, const Tensor &src, const expr::Expr &epsilon,
               const std::vector<Tensor> &operands, poplar::program::Sequence &prog, const poplar::Type &dstType,
               const poplar::DebugContext &dc, const char *fn) {
  if (dstType != poplar::FLOAT && dstType != poplar::HALF)
    throw poputil::poplibs_error(std::string(fn) + ": the destination type " + dstType.toString().str() +
                                 " must be FLOAT or HALF");
  if (src.elementType() != poplar::FLOAT && src.elementType() != poplar::HALF)
    throw poputil::poplibs_error(std::string(fn) + ": the source " + src.getVarStr() + " must be FLOAT or HALF");
  const expr::Cast asFloat(expr::_1, poplar::FLOAT);
  return map(graph, expr::Cast(expr::BinaryOp(op, asFloat, epsilon), dstType), operands, prog, {dc, fn});
}

} // namespace

Tensor varianceToInvStdDev(poplar::Graph &graph, const Tensor &src, const Tensor &epsilon,
                           poplar::program::Sequence &prog, const poplar::Type dstType,
                           const poplar::DebugContext &debugContext) {
  return convert(graph, expr::BinaryOpType::VARIANCE_TO_INV_STD_DEV, src, expr::Cast(expr::_2, poplar::FLOAT),
                 {src, epsilon}, prog, dstType, debugContext, "varianceToInvStdDev");
}

Tensor invStdDevToVariance(poplar::Graph &graph, const Tensor &src, const Tensor &epsilon,
                           poplar::program::Sequence &prog, const poplar::Type dstType,
                           const poplar::DebugContext &debugContext) {
  return convert(graph, expr::BinaryOpType::INV_STD_DEV_TO_VARIANCE, src, expr::Cast(expr::_2, poplar::FLOAT),
                 {src, epsilon}, prog, dstType, debugContext, "invStdDevToVariance");
}

Tensor varianceToInvStdDev(poplar::Graph &graph, const Tensor &src, const float epsilon,
                           poplar::program::Sequence &prog, const poplar::Type dstType,
                           const poplar::DebugContext &debugContext) {
  return convert(graph, expr::BinaryOpType::VARIANCE_TO_INV_STD_DEV, src, expr::Const(epsilon), {src}, prog,
                 dstType, debugContext, "varianceToInvStdDev");
}

Tensor invStdDevToVariance(poplar::Graph &graph, const Tensor &src, const float epsilon,
                           poplar::program::Sequence &prog, const poplar::Type dstType,
                           const poplar::DebugContext &debugContext) {
  return convert(graph, expr::BinaryOpType::INV_STD_DEV_TO_VARIANCE, src, expr::Const(epsilon), {src}, prog,
                 dstType, debugContext, "invStdDevToVariance");
}

} // namespace popops
