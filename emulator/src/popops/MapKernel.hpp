#pragma once
// The kernel behind popops::map, for libraries that add element-wise work to
// their own compute sets (popnn's ComputeSet overloads).
#include <vector>

#include <poplar/Tensor.hpp>
#include <popops/Expr.hpp>

#include "ExprTypes.hpp"
#include "poplar/Kernel.hpp"

namespace popops::detail {

// Resolves the types of `e` over `ts` and checks `out` has the broadcast shape and result type.
TypedExpr planMap(const expr::Expr &e, const std::vector<poplar::Tensor> &ts, const poplar::Tensor &out);
// Evaluates `typed` over `ts` (broadcast to out's shape) into `out`.
poplar::detail::Kernel mapKernel(const TypedExpr &typed, const std::vector<poplar::Tensor> &ts,
                                 const poplar::Tensor &out);

} // namespace popops::detail
