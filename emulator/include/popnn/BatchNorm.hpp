#pragma once
// Batch normalisation of activations [B][C][...F...]: statistics per channel, over the
// batch and the field, so mean and invStdDev are [C]. FLOAT or HALF activations.
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplin/Norms.hpp>

namespace popnn {
namespace bn {

// (mean, invStdDev); unbiasedVarEstimate divides the variance by N - 1, stableAlgo
// subtracts the mean before summing squares. Sums accumulate in partialsType (or the
// activations' type when that is wider).
std::pair<poplar::Tensor, poplar::Tensor>
batchNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps, poplar::program::Sequence &prog,
                    bool unbiasedVarEstimate, bool stableAlgo = false,
                    const poplar::Type &partialsType = poplar::FLOAT,
                    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

// batchNormStatistics over a batch of normBatchSize spread over the replicas of
// replicatedGraph, normBatchSize / B of them (poplin::distributedNormStatistics).
std::pair<poplar::Tensor, poplar::Tensor>
distributedBatchNormStatistics(poplar::Graph &replicatedGraph, const poplar::Tensor acts, float eps,
                               poplar::program::Sequence &prog, bool unbiasedVarEstimate,
                               poplin::DistributedNormReduceCallback reduceCallback, unsigned normBatchSize,
                               bool stableAlgo = false, const poplar::Type &partialsType = poplar::FLOAT,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {});

// (acts - mean) * invStdDev.
poplar::Tensor batchNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &mean,
                               const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {});

// (whitened * gamma + beta, whitened).
std::pair<poplar::Tensor, poplar::Tensor>
batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
               const poplar::Tensor &beta, const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {});

// Inference: acts * combinedMultiplicand + addend, both [C] (gamma * invStdDev and
// beta - gamma * mean * invStdDev).
poplar::Tensor batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::Tensor &combinedMultiplicand, const poplar::Tensor &addend,
                              poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                              const poplar::OptionFlags &options = {});

// (gammaDelta, betaDelta), each [C].
std::pair<poplar::Tensor, poplar::Tensor>
batchNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                        const poplar::Tensor &mean, const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                        const poplar::Type &partialsType = poplar::FLOAT,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
std::pair<poplar::Tensor, poplar::Tensor>
batchNormParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
                        poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

// The gradient with respect to acts, through the statistics too.
poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                                  const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});

// batchNormGradients for statistics of a batch of normBatchSize spread over replicas
// (see distributedBatchNormStatistics); reduceCallback sums the replicas' shares.
poplar::Tensor distributedBatchNormGradients(poplar::Graph &replicatedGraph, const poplar::Tensor &actsWhitened,
                                             const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                             const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                             poplin::DistributedNormReduceCallback reduceCallback,
                                             unsigned normBatchSize,
                                             const poplar::Type &partialsType = poplar::FLOAT,
                                             const poplar::DebugContext &debugContext = {},
                                             const poplar::OptionFlags &options = {});
poplar::Tensor distributedBatchNormGradients(poplar::Graph &replicatedGraph, const poplar::Tensor &acts,
                                             const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                             const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                             poplar::program::Sequence &prog,
                                             poplin::DistributedNormReduceCallback reduceCallback,
                                             unsigned normBatchSize,
                                             const poplar::Type &partialsType = poplar::FLOAT,
                                             const poplar::DebugContext &debugContext = {},
                                             const poplar::OptionFlags &options = {});

// gamma += gammaDelta * scale, beta += betaDelta * scale.
void batchNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta, const poplar::Tensor &betaDelta,
                          float scale, poplar::Tensor &gamma, poplar::Tensor &beta, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
void batchNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta, const poplar::Tensor &betaDelta,
                          const poplar::Tensor &scale, poplar::Tensor &gamma, poplar::Tensor &beta,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {});

} // namespace bn
} // namespace popnn
