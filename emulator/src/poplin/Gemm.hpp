#pragma once
// The work of a matmul compute set, done by BLAS sgemm on the engine's memory.
#include <cstddef>
#include <functional>
#include <optional>

#include <poplar/Type.hpp>

#include "poplar/Access.hpp"

namespace poplin::detail {

// With half partials, the number of products summed in float before the running
// sum is rounded to half. A model of half partials' precision, not of the
// hardware's exact order of summation.
constexpr std::size_t kHalfPartialsChunk = 16;

// C[g] = alpha * A[g] x B[g], or C[g] += alpha * A[g] x B[g] when accumulating,
// for each group g, with A[g] [m,k], B[g] [k,n] and C[g] [m,n]. Operands are
// FLOAT or HALF; products are always formed in float.
struct GemmProblem {
  std::size_t groups = 1, m = 0, k = 0, n = 0;
  bool accumulate = false;
  // HALF: the running sum is rounded to half as poplibs' half partials are.
  poplar::Type partialsType = poplar::FLOAT;
  float alpha = 1.0f;
};

// The function that computes `problem` each time it is called. `alphaTensor`,
// when given, is a one-element tensor read at every call in place of alpha.
std::function<void()> compileGemm(const GemmProblem &problem, const poplar::detail::Access &a,
                                  const poplar::detail::Access &b,
                                  const poplar::detail::Access &c,
                                  const std::optional<poplar::detail::Access> &alphaTensor);

} // namespace poplin::detail
