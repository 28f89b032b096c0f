#pragma once
// The QR factorization of a matrix (poplin::experimental): A = Q R with Q orthogonal and R
// upper triangular.
//
// Emulator: Householder reflections in double, in one kernel; the option rowsPerIteration
// (a positive integer, =32) is checked and does not change results.
#include <array>
#include <cstddef>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poplin {
namespace experimental {

// {A [m][n], Q [m][m]} of `type` (FLOAT or HALF), mapped over the tiles; m >= n.
std::array<poplar::Tensor, 2> createQRFactorizationMatrices(poplar::Graph &graph, const poplar::Type &type,
                                                            const std::size_t m, const std::size_t n,
                                                            const poplar::DebugContext &debugContext);

// Overwrites A [M][N] (M >= N) with R and Q [M][M], which should hold the identity, with
// Q H_1 ... H_N, the reflections that make A upper triangular: for an identity Q, the
// original A equals Q R. R's diagonal entries take the sign opposite to the column's
// leading entry (as LAPACK's do).
void QRFactorization(poplar::Graph &graph, poplar::Tensor &A, poplar::Tensor &Q, poplar::program::Sequence &prog,
                     const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

} // namespace experimental
} // namespace poplin
