#pragma once
// popops element-wise operations: map and its named wrappers. Input tensors are
// broadcast against each other numpy-style.
#include <stdexcept>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/Expr.hpp>

namespace popops {

poplar::Tensor map(poplar::Graph &graph, const expr::Expr &expr,
                   const std::vector<poplar::Tensor> &ts, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {});
std::vector<poplar::Tensor> map(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                                const std::vector<poplar::Tensor> &ts,
                                poplar::program::Sequence &prog,
                                const poplar::DebugContext &debugContext = {},
                                const poplar::OptionFlags &options = {});
// Writes the result into ts[0], which must already have the broadcast shape and type.
void mapInPlace(poplar::Graph &graph, const expr::Expr &expr,
                const std::vector<poplar::Tensor> &ts, poplar::program::Sequence &prog,
                const poplar::DebugContext &debugContext = {},
                const poplar::OptionFlags &options = {});
void mapInPlace(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                const std::vector<poplar::Tensor> &ts, poplar::program::Sequence &prog,
                const poplar::DebugContext &debugContext = {},
                const poplar::OptionFlags &options = {});
void mapWithOutput(poplar::Graph &graph, const expr::Expr &expr,
                   const std::vector<poplar::Tensor> &ts, const poplar::Tensor &out,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {});
void mapWithOutput(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                   const std::vector<poplar::Tensor> &ts, const std::vector<poplar::Tensor> &outs,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {});

inline poplar::Tensor map(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &t,
                          poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},
                          const poplar::OptionFlags &options = {}) {
  return map(graph, expr::UnaryOp(op, expr::_1), {t}, prog, dc, options);
}
inline poplar::Tensor map(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, poplar::program::Sequence &prog,
                          const poplar::DebugContext &dc = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, prog, dc, options);
}
inline poplar::Tensor map(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &c,
                          poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},
                          const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, prog, dc, options);
}
inline void mapInPlace(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &t,
                       poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},
                       const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::UnaryOp(op, expr::_1), {t}, prog, dc, options);
}
inline void mapInPlace(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                       const poplar::Tensor &b, poplar::program::Sequence &prog,
                       const poplar::DebugContext &dc = {}, const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, prog, dc, options);
}
inline void mapInPlace(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                       const poplar::Tensor &b, const poplar::Tensor &c,
                       poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},
                       const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, prog, dc, options);
}
inline void mapWithOutput(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &in,
                          const poplar::Tensor &out, poplar::program::Sequence &prog,
                          const poplar::DebugContext &dc = {}, const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::UnaryOp(op, expr::_1), {in}, out, prog, dc, options);
}
inline void mapWithOutput(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &out,
                          poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},
                          const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, out, prog, dc, options);
}
inline void mapWithOutput(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &c, const poplar::Tensor &out,
                          poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},
                          const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, out, prog, dc, options);
}

namespace detail {
// Whether a scalar of type constType (floating-point: true_type) may meet elementType.
template <typename constType> bool scalarTypeMatches(poplar::Type elementType, std::true_type) {
  return elementType == poplar::FLOAT || elementType == poplar::HALF;
}
template <typename constType> bool scalarTypeMatches(poplar::Type elementType, std::false_type) {
  return elementType == poplar::equivalent_device_type<constType>().value;
}
} // namespace detail

// A scalar operand must have the tensor's type (a floating-point scalar may meet HALF).
template <typename constType> inline void checkTypes(poplar::Type elementType, constType) {
  if (!detail::scalarTypeMatches<constType>(elementType, std::is_floating_point<constType>()))
    throw std::runtime_error("Type mismatch between Binary op Tensor and constant");
}

namespace detail {
// A one-element constant of `type` on tile 0, for the scalar forms of binary ops.
template <typename constType>
poplar::Tensor scalarConstant(poplar::Graph &graph, poplar::Type type, constType value,
                              const poplar::DebugContext &dc) {
  checkTypes(type, value);
  poplar::Tensor c = graph.addConstant(type, {}, value, dc);
  graph.setTileMapping(c, 0);
  return c;
}
} // namespace detail

#define POPOPS_UNARY_FUNCTION(NAME, OP)                                                          \
  inline poplar::Tensor NAME(poplar::Graph &graph, const poplar::Tensor &A,                       \
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},\
                             const poplar::OptionFlags &options = {}) {                           \
    return map(graph, expr::UnaryOpType::OP, A, prog, dc, options);                               \
  }                                                                                               \
  inline void NAME##WithOutput(poplar::Graph &graph, const poplar::Tensor &A,                     \
                               const poplar::Tensor &out, poplar::program::Sequence &prog,        \
                               const poplar::DebugContext &dc = {},                               \
                               const poplar::OptionFlags &options = {}) {                         \
    mapWithOutput(graph, expr::UnaryOpType::OP, A, out, prog, dc, options);                       \
  }
#define POPOPS_UNARY_IN_PLACE(NAME, OP)                                                          \
  inline void NAME##InPlace(poplar::Graph &graph, const poplar::Tensor &A,                        \
                            poplar::program::Sequence &prog, const poplar::DebugContext &dc = {}, \
                            const poplar::OptionFlags &options = {}) {                            \
    mapInPlace(graph, expr::UnaryOpType::OP, A, prog, dc, options);                               \
  }

#define POPOPS_UNARY(NAME, OP) POPOPS_UNARY_FUNCTION(NAME, OP) POPOPS_UNARY_IN_PLACE(NAME, OP)
POPOPS_UNARY(abs, ABSOLUTE)
POPOPS_UNARY(asin, ASIN)
POPOPS_UNARY(bitwiseNot, BITWISE_NOT)
POPOPS_UNARY(cbrt, CBRT)
POPOPS_UNARY(ceil, CEIL)
POPOPS_UNARY(cos, COS)
POPOPS_UNARY(countLeadingZeros, COUNT_LEADING_ZEROS)
POPOPS_UNARY(erf, ERF)
POPOPS_UNARY(exp, EXPONENT)
POPOPS_UNARY(exp2, EXPONENT2)
POPOPS_UNARY(expm1, EXPONENT_MINUS_ONE)
POPOPS_UNARY(floor, FLOOR)
POPOPS_UNARY(geluErf, GELU_ERF)
POPOPS_UNARY(inv, INVERSE)
POPOPS_UNARY_FUNCTION(isFinite, IS_FINITE)
POPOPS_UNARY(log, LOGARITHM)
POPOPS_UNARY(log1p, LOGARITHM_ONE_PLUS)
POPOPS_UNARY(logicalNot, LOGICAL_NOT)
POPOPS_UNARY(nearbyint, NEARBY_INT)
POPOPS_UNARY(neg, NEGATE)
POPOPS_UNARY(popcount, POPCOUNT)
POPOPS_UNARY(round, ROUND)
POPOPS_UNARY(rsqrt, RSQRT)
POPOPS_UNARY(sigmoid, SIGMOID)
POPOPS_UNARY(signum, SIGNUM)
POPOPS_UNARY(sin, SIN)
POPOPS_UNARY(sqrt, SQRT)
POPOPS_UNARY(square, SQUARE)
POPOPS_UNARY(tan, TAN)
POPOPS_UNARY(tanh, TANH)
#undef POPOPS_UNARY
#undef POPOPS_UNARY_FUNCTION
#undef POPOPS_UNARY_IN_PLACE

#define POPOPS_BINARY(NAME, OP)                                                                  \
  inline poplar::Tensor NAME(poplar::Graph &graph, const poplar::Tensor &A,                       \
                             const poplar::Tensor &B, poplar::program::Sequence &prog,            \
                             const poplar::DebugContext &dc = {},                                 \
                             const poplar::OptionFlags &options = {}) {                           \
    return map(graph, expr::BinaryOpType::OP, A, B, prog, dc, options);                           \
  }                                                                                               \
  template <typename constType, typename = typename std::enable_if<std::is_arithmetic<constType>::value>::type> \
  inline poplar::Tensor NAME(poplar::Graph &graph, const poplar::Tensor &A, const constType B,    \
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},\
                             const poplar::OptionFlags &options = {}) {                           \
    return NAME(graph, A, detail::scalarConstant(graph, A.elementType(), B, dc), prog, dc, options);\
  }                                                                                               \
  template <typename constType, typename = typename std::enable_if<std::is_arithmetic<constType>::value>::type> \
  inline poplar::Tensor NAME(poplar::Graph &graph, const constType A, const poplar::Tensor &B,    \
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},\
                             const poplar::OptionFlags &options = {}) {                           \
    return NAME(graph, detail::scalarConstant(graph, B.elementType(), A, dc), B, prog, dc, options);\
  }                                                                                               \
  inline void NAME##InPlace(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,\
                            poplar::program::Sequence &prog, const poplar::DebugContext &dc = {}, \
                            const poplar::OptionFlags &options = {}) {                            \
    mapInPlace(graph, expr::BinaryOpType::OP, A, B, prog, dc, options);                           \
  }                                                                                               \
  template <typename constType, typename = typename std::enable_if<std::is_arithmetic<constType>::value>::type> \
  inline void NAME##InPlace(poplar::Graph &graph, const poplar::Tensor &A, const constType B,      \
                            poplar::program::Sequence &prog, const poplar::DebugContext &dc = {}, \
                            const poplar::OptionFlags &options = {}) {                            \
    NAME##InPlace(graph, A, detail::scalarConstant(graph, A.elementType(), B, dc), prog, dc, options);\
  }                                                                                               \
  inline void NAME##WithOutput(poplar::Graph &graph, const poplar::Tensor &A,                     \
                               const poplar::Tensor &B, const poplar::Tensor &out,                \
                               poplar::program::Sequence &prog,                                   \
                               const poplar::DebugContext &dc = {},                               \
                               const poplar::OptionFlags &options = {}) {                         \
    mapWithOutput(graph, expr::BinaryOpType::OP, A, B, out, prog, dc, options);                   \
  }                                                                                               \
  template <typename constType,                                                                   \
            typename = typename std::enable_if<std::is_arithmetic<constType>::value>::type>       \
  inline void NAME##WithOutput(poplar::Graph &graph, const poplar::Tensor &A, const constType B,  \
                               const poplar::Tensor &out, poplar::program::Sequence &prog,        \
                               const poplar::DebugContext &dc = {},                               \
                               const poplar::OptionFlags &options = {}) {                         \
    NAME##WithOutput(graph, A, detail::scalarConstant(graph, A.elementType(), B, dc), out, prog,   \
                     dc, options);                                                                \
  }                                                                                               \
  template <typename constType,                                                                   \
            typename = typename std::enable_if<std::is_arithmetic<constType>::value>::type>       \
  inline void NAME##WithOutput(poplar::Graph &graph, const constType A, const poplar::Tensor &B,  \
                               const poplar::Tensor &out, poplar::program::Sequence &prog,        \
                               const poplar::DebugContext &dc = {},                               \
                               const poplar::OptionFlags &options = {}) {                         \
    NAME##WithOutput(graph, detail::scalarConstant(graph, B.elementType(), A, dc), B, out, prog,   \
                     dc, options);                                                                \
  }

POPOPS_BINARY(add, ADD)
POPOPS_BINARY(atan2, ATAN2)
POPOPS_BINARY(bitwiseAnd, BITWISE_AND)
POPOPS_BINARY(bitwiseOr, BITWISE_OR)
POPOPS_BINARY(bitwiseXor, BITWISE_XOR)
POPOPS_BINARY(bitwiseXnor, BITWISE_XNOR)
POPOPS_BINARY(div, DIVIDE)
POPOPS_BINARY(eq, EQUAL)
POPOPS_BINARY(gt, GREATER_THAN)
POPOPS_BINARY(gteq, GREATER_THAN_EQUAL)
// The normalisation-statistics ops as plain binary ops, in the operands' type:
// invStdDevToVariance(A, B) = 1 / A^2 - B, varianceToInvStdDev(A, B) = 1 / sqrt(A + B).
// With the conversions below (which take a destination type), a call with just four
// arguments is ambiguous, as in the SDK.
POPOPS_BINARY(invStdDevToVariance, INV_STD_DEV_TO_VARIANCE)
POPOPS_BINARY(logicalAnd, LOGICAL_AND)
POPOPS_BINARY(logicalOr, LOGICAL_OR)
POPOPS_BINARY(lt, LESS_THAN)
POPOPS_BINARY(lteq, LESS_THAN_EQUAL)
POPOPS_BINARY(max, MAXIMUM)
POPOPS_BINARY(min, MINIMUM)
POPOPS_BINARY(mul, MULTIPLY)
POPOPS_BINARY(neq, NOT_EQUAL)
POPOPS_BINARY(pow, POWER)
POPOPS_BINARY(rem, REMAINDER)
POPOPS_BINARY(shiftLeft, SHIFT_LEFT)
POPOPS_BINARY(shiftRight, SHIFT_RIGHT)
POPOPS_BINARY(shiftRightSignExtend, SHIFT_RIGHT_SIGN_EXTEND)
POPOPS_BINARY(sub, SUBTRACT)
POPOPS_BINARY(varianceToInvStdDev, VARIANCE_TO_INV_STD_DEV)
#undef POPOPS_BINARY

// select: conditions ? A : B.  clamp: min(max(values, minimums), maximums).
inline poplar::Tensor select(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             const poplar::Tensor &conditions, poplar::program::Sequence &prog,
                             const poplar::DebugContext &dc = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOpType::SELECT, A, B, conditions, prog, dc, options);
}
inline void selectInPlace(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                          const poplar::Tensor &conditions, poplar::program::Sequence &prog,
                          const poplar::DebugContext &dc = {}, const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOpType::SELECT, A, B, conditions, prog, dc, options);
}
inline void selectWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             const poplar::Tensor &conditions, const poplar::Tensor &out,
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},
                             const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::TernaryOpType::SELECT, A, B, conditions, out, prog, dc, options);
}
inline poplar::Tensor clamp(poplar::Graph &graph, const poplar::Tensor &values,
                            const poplar::Tensor &minimums, const poplar::Tensor &maximums,
                            poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},
                            const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOpType::CLAMP, values, minimums, maximums, prog, dc, options);
}
inline void clampInPlace(poplar::Graph &graph, const poplar::Tensor &values,
                         const poplar::Tensor &minimums, const poplar::Tensor &maximums,
                         poplar::program::Sequence &prog, const poplar::DebugContext &dc = {},
                         const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOpType::CLAMP, values, minimums, maximums, prog, dc, options);
}
inline void clampWithOutput(poplar::Graph &graph, const poplar::Tensor &values,
                            const poplar::Tensor &minimums, const poplar::Tensor &maximums,
                            const poplar::Tensor &out, poplar::program::Sequence &prog,
                            const poplar::DebugContext &dc = {}, const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::TernaryOpType::CLAMP, values, minimums, maximums, out, prog, dc, options);
}

// Normalisation statistics: invStdDev = 1 / sqrt(variance + epsilon) and back
// (variance = 1 / invStdDev^2 - epsilon), computed in float and cast to dstType.
poplar::Tensor varianceToInvStdDev(poplar::Graph &graph, const poplar::Tensor &src,
                                   const poplar::Tensor &epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType = poplar::HALF,
                                   const poplar::DebugContext &debugContext = {});
poplar::Tensor invStdDevToVariance(poplar::Graph &graph, const poplar::Tensor &src,
                                   const poplar::Tensor &epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType = poplar::FLOAT,
                                   const poplar::DebugContext &debugContext = {});
poplar::Tensor varianceToInvStdDev(poplar::Graph &graph, const poplar::Tensor &src, const float epsilon,
                                   poplar::program::Sequence &prog, const poplar::Type dstType = poplar::HALF,
                                   const poplar::DebugContext &debugContext = {});
poplar::Tensor invStdDevToVariance(poplar::Graph &graph, const poplar::Tensor &src, const float epsilon,
                                   poplar::program::Sequence &prog, const poplar::Type dstType = poplar::FLOAT,
                                   const poplar::DebugContext &debugContext = {});

} // namespace popops
