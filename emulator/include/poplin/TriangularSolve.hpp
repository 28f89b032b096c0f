#pragma once
// Triangular solves: X with A X = B (leftSide) or X A = B, for A [..., N, N] lower or upper
// triangular (the other triangle is not read; with unitDiagonal nor is the diagonal, taken
// as ones) and B [..., N, K] (leftSide) or [..., K, N].
//
// Emulator: substitution row by row (N steps of popops maps); the options and the planning
// cache do not change results; the matmul pre-plan parameters are not provided.
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplin/MatMul.hpp>

namespace poplin {

// Tensors of aShape (of inputType) and bShape mapped over the tiles.
poplar::Tensor createTriangularSolveInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                             const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                                             const std::vector<std::size_t> &bShape, bool leftSide,
                                             const poplar::DebugContext &debugContext,
                                             const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
poplar::Tensor createTriangularSolveInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                             const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                                             const std::vector<std::size_t> &bShape, bool leftSide,
                                             const poplar::DebugContext &debugContext,
                                             const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

// a with the unused triangle zeroed and, with unitDiagonal, ones on the diagonal.
poplar::Tensor triangularMask(poplar::Graph &graph, const poplar::Tensor &a, bool lower, bool unitDiagonal,
                              poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

poplar::Tensor triangularSolve(poplar::Graph &graph, const poplar::Tensor &a, const poplar::Tensor &b, bool leftSide,
                               bool lower, bool unitDiagonal, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                               PlanningCache *cache = nullptr);

} // namespace poplin
