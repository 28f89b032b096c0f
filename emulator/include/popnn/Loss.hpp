#pragma once
// Losses and their gradients for classifiers, and row-wise argmax/argmin/top-k.
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {

enum LossType { SUM_SQUARED_LOSS, CROSS_ENTROPY_LOSS };

// modelOutputs [B][C] are probabilities, expected [B] integer labels (INT or
// UNSIGNED_INT); writes loss [B] and deltas [B][C]. CROSS_ENTROPY_LOSS scales the
// deltas by deltasScale / modelOutputScaling (single-element tensors).
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, const poplar::Tensor &deltasScale,
                                  const poplar::Tensor &modelOutputScaling, LossType lossType,
                                  const poplar::DebugContext &debugContext = {});
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, LossType lossType,
                                  const poplar::DebugContext &debugContext = {});
// As above, then calcAccuracy into numCorrect.
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, const poplar::Tensor &deltasScale,
                                  const poplar::Tensor &modelOutputScaling, const poplar::Tensor &numCorrect,
                                  LossType lossType, const poplar::DebugContext &debugContext = {});
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, const poplar::Tensor &numCorrect,
                                  LossType lossType, const poplar::DebugContext &debugContext = {});

// Adds to numCorrect (one element) the number of rows whose first maximum is at the
// label, as poplibs does (zero it before the first batch); masked labels (0xFFFFFFFF)
// never count.
poplar::program::Program calcAccuracy(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                      const poplar::Tensor &expected, const poplar::Tensor &numCorrect,
                                      const poplar::DebugContext &debugContext = {});

// Row-wise index (UNSIGNED_INT [B]) of the first maximum/minimum of a [B][C] tensor.
poplar::Tensor argMax(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});
poplar::Tensor argMin(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});
// (values in the input's type, indices), both [B].
std::pair<poplar::Tensor, poplar::Tensor> maxAndArgMax(poplar::Graph &graph, const poplar::Tensor &input,
                                                       poplar::program::Sequence &prog,
                                                       const poplar::DebugContext &debugContext = {});
std::pair<poplar::Tensor, poplar::Tensor> minAndArgMin(poplar::Graph &graph, const poplar::Tensor &input,
                                                       poplar::program::Sequence &prog,
                                                       const poplar::DebugContext &debugContext = {});

// The K largest elements of each row of a [B][C] tensor, as [B][1][K]; `indices` is set
// to their column indices (UNSIGNED_INT, same shape). Sorted descending when `sort`,
// else in column order. Ties go to the lower column.
poplar::Tensor topK(poplar::Graph &graph, const poplar::Tensor &input, poplar::Tensor &indices, unsigned K,
                    bool sort, poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popnn
