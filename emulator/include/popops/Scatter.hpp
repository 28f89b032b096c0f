#pragma once
// XLA's scatter (https://www.tensorflow.org/xla/operation_semantics#scatter): operand with
// windows of it replaced by, or combined with, slices of `updates`.
//
// updates' dimensions are its scatter dimensions (those not in updateWindowDims, in order
// the index vectors' batch dimensions of `indices`) and its window dimensions. The window
// of each scatter index starts in operand where its index vector (along indexVectorDim of
// indices; a scalar when indexVectorDim is indices' rank) says through
// scatterDimsToOperandDims, and spans operand's dimensions: 1 in each of insertWindowDims,
// the window dimensions' sizes in the others, in order. The windows are written one
// scatter index after another (a later one wins where they overlap); a window that does
// not fit operand is skipped.
//
// Options: remapOutOfBoundIndices (true, false; =false) starts a window that does not fit
// at index 0 instead; paddingIndexUsed (true, false; =false) skips an index equal to the
// size of its dimension (padding).
#include <cstddef>
#include <functional>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

// Replaces each window of operand with its slice of updates.
void scatter(poplar::Graph &graph, const poplar::Tensor &operand, const poplar::Tensor &indices,
             const poplar::Tensor &updates, std::size_t indexVectorDim, std::vector<unsigned> updateWindowDims,
             std::vector<std::size_t> insertWindowDims, std::vector<unsigned> scatterDimsToOperandDims,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
             const poplar::OptionFlags &optionFlags = {});

// Builds the combination of a window's current values (first) and its updates (second),
// both of the window's shape, returning the values to write.
using UpdateComputationFunc =
    std::function<poplar::Tensor(poplar::Graph &, poplar::Tensor &, poplar::Tensor &, poplar::program::Sequence &)>;

// Writes each window as updateComputation(its current values, its updates); the program
// updateComputation builds runs once per scatter index, in order.
void scatter(poplar::Graph &graph, const poplar::Tensor &operand, const poplar::Tensor &indices,
             const poplar::Tensor &updates, std::size_t indexVectorDim, std::vector<unsigned> updateWindowDims,
             std::vector<std::size_t> insertWindowDims, std::vector<unsigned> scatterDimsToOperandDims,
             UpdateComputationFunc &updateComputation, poplar::program::Sequence &prog,
             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &optionFlags = {});

} // namespace popops
