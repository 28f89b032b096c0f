#pragma once
// Normalisation building blocks over activations [N][C][...F...], with statistics per
// channel C over the batch and the field (popnn's batch norm is made of them), and their
// distributed forms, whose batch is spread over the replicas of a replicated graph.
#include <functional>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poplin {

// [C] parameters mapped linearly, of `type` or the activations' type.
poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Type &type,
                               const poplar::DebugContext &debugContext = {});
poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::DebugContext &debugContext = {});
poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Type &type,
                              const poplar::DebugContext &debugContext = {});
poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::DebugContext &debugContext = {});
// (gamma, beta).
std::pair<poplar::Tensor, poplar::Tensor> createNormParams(poplar::Graph &graph, const poplar::Tensor &acts,
                                                           const poplar::DebugContext &debugContext = {});

// (mean, invStdDev), each [C].
std::pair<poplar::Tensor, poplar::Tensor>
normStatistics(poplar::Graph &graph, const poplar::Tensor &actsUngrouped, float eps, poplar::program::Sequence &prog,
               bool unbiasedVarEstimate, bool stableAlgo = false, const poplar::Type &partialsType = poplar::FLOAT,
               const poplar::DebugContext &debugContext = {});

// Sums each of `inputsToReduce` over groups of groupSize consecutive replicas and returns
// the sums in the same order (a cross-replica all-reduce with ADD, e.g. gcl's).
using DistributedNormReduceCallback = std::function<std::vector<poplar::Tensor>(
    poplar::Graph &replicatedGraph, const std::vector<poplar::Tensor> &inputsToReduce,
    poplar::program::Sequence &prog, unsigned groupSize, const poplar::DebugContext &debugContext,
    const poplar::OptionFlags &options)>;

// normStatistics over a batch of normSize spread over normSize / N replicas of N each:
// allReduceCallback sums each replica's share of the means. With normSize equal to N, or
// no callback, the statistics are this replica's.
std::pair<poplar::Tensor, poplar::Tensor>
distributedNormStatistics(poplar::Graph &replicatedGraph, const poplar::Tensor &actsUngrouped, float eps,
                          poplar::program::Sequence &prog, bool unbiasedVarEstimate,
                          DistributedNormReduceCallback allReduceCallback, unsigned normSize,
                          bool stableAlgo = false, const poplar::Type &partialsType = poplar::FLOAT,
                          const poplar::DebugContext &debugContext = {});

// (acts - mean) * iStdDev.
poplar::Tensor normWhiten(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &mean,
                          const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {});
// actsWhitened * gamma + beta.
poplar::Tensor normalise(poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gamma,
                         const poplar::Tensor &beta, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {});
// (gammaDelta, betaDelta), each [C].
std::pair<poplar::Tensor, poplar::Tensor>
normParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
                   poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                   const poplar::DebugContext &debugContext = {});
// gradsIn * gamma: the gradient at the whitened activations.
poplar::Tensor normGradients(poplar::Graph &graph, const poplar::Tensor &gradsIn, const poplar::Tensor &gamma,
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
// The gradient at the activations from gradsIn at the whitened ones, through the statistics.
poplar::Tensor normStatisticsGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                       const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                       poplar::program::Sequence &prog,
                                       const poplar::Type &partialsType = poplar::FLOAT,
                                       const poplar::DebugContext &debugContext = {});
// The same for statistics of a batch of normSize spread over replicas (see
// distributedNormStatistics); reduceCallback sums the replicas' shares of the means.
poplar::Tensor distributedNormStatisticsGradients(poplar::Graph &replicatedGraph, const poplar::Tensor &actsWhitened,
                                                  const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                                  poplar::program::Sequence &prog,
                                                  DistributedNormReduceCallback reduceCallback, unsigned normSize,
                                                  const poplar::Type &partialsType = poplar::FLOAT,
                                                  const poplar::DebugContext &debugContext = {});

} // namespace poplin
