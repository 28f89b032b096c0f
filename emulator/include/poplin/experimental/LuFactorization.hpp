#pragma once
// The LU factorization of a matrix (poplin::experimental).
//
// Emulator: Gaussian elimination without pivoting, in double in one kernel; a zero pivot
// gives infinities and NaNs, as a division by zero does.
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poplin {
namespace experimental {

// input [M][N] (FLOAT or HALF) = L U: returns L [M][M], lower triangular with a unit
// diagonal, and U [M][N], upper triangular, both FLOAT.
std::pair<poplar::Tensor, poplar::Tensor> LUFactorization(poplar::Graph &graph, poplar::Tensor &input,
                                                          poplar::program::Sequence &seq,
                                                          const poplar::DebugContext &debugContext = {});

} // namespace experimental
} // namespace poplin
