#pragma once
// Cholesky factors of symmetric positive definite matrices a [..., N, N]: L with
// L L^T = a (lower), or its transpose U with U^T U = a. Only a's lower triangle is read.
//
// Emulator: the factorisation runs column by column (N steps of popops maps); the
// `blockSize` option and the planning cache do not change results; the matmul pre-plan
// parameters are not provided.
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplin/MatMul.hpp>

namespace poplin {

// A tensor of `shape` ([N, N] or [B, N, N]) mapped over the tiles.
poplar::Tensor createCholeskyInput(poplar::Graph &graph, const poplar::Type &type,
                                   const std::vector<std::size_t> &shape, bool lower,
                                   const poplar::DebugContext &debugContext,
                                   const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

// The factor as a new tensor; the other triangle is zero.
poplar::Tensor cholesky(poplar::Graph &graph, const poplar::Tensor &a, bool lower, poplar::program::Sequence &prog,
                        const poplar::DebugContext &debugContext = {}, poplar::OptionFlags options = {},
                        PlanningCache *cache = nullptr);
// The factor written over a.
void choleskyInPlace(poplar::Graph &graph, const poplar::Tensor &a, bool lower, poplar::program::Sequence &prog,
                     const poplar::DebugContext &debugContext = {}, poplar::OptionFlags options = {},
                     PlanningCache *cache = nullptr);

} // namespace poplin
