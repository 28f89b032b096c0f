// popnn::bn: statistics per channel, over the batch and the field.
#include <popnn/BatchNorm.hpp>

#include "poplin/NormStatistics.hpp"

namespace popnn {

// The shared body lives in poplin, as poplibs keeps it there (poplin/Norms.hpp).
namespace detail = poplin::detail;
namespace bn {

namespace {

using poplar::Tensor;
using poplar::program::Sequence;

detail::Grouping perChannel(const char *fn, const Tensor &acts, const poplar::OptionFlags &options) {
  detail::checkActs(fn, "acts", acts);
  detail::checkNoOptions(options);
  return detail::Grouping::perChannel(acts.shape());
}

} // namespace

std::pair<Tensor, Tensor> batchNormStatistics(poplar::Graph &graph, const Tensor acts, float eps, Sequence &prog,
                                              bool unbiasedVarEstimate, bool stableAlgo,
                                              const poplar::Type &partialsType,
                                              const poplar::DebugContext &debugContext,
                                              const poplar::OptionFlags &options) {
  const char *fn = "batchNormStatistics";
  return detail::statistics(graph, acts, eps, prog, unbiasedVarEstimate, stableAlgo, partialsType,
                            perChannel(fn, acts, options), {debugContext, fn}, fn);
}

std::pair<Tensor, Tensor> distributedBatchNormStatistics(poplar::Graph &replicatedGraph, const Tensor acts, float eps,
                                                         Sequence &prog, bool unbiasedVarEstimate,
                                                         poplin::DistributedNormReduceCallback reduceCallback,
                                                         unsigned normBatchSize, bool stableAlgo,
                                                         const poplar::Type &partialsType,
                                                         const poplar::DebugContext &debugContext,
                                                         const poplar::OptionFlags &options) {
  const char *fn = "distributedBatchNormStatistics";
  const auto grouping = perChannel(fn, acts, options);
  return detail::statistics(
      replicatedGraph, acts, eps, prog, unbiasedVarEstimate, stableAlgo, partialsType, grouping, {debugContext, fn},
      fn, detail::Distribution::of(fn, replicatedGraph, acts, std::move(reduceCallback), normBatchSize));
}

Tensor batchNormWhiten(poplar::Graph &graph, const Tensor &acts, const Tensor &mean, const Tensor &invStdDev,
                       Sequence &prog, const poplar::DebugContext &debugContext,
                       const poplar::OptionFlags &options) {
  const char *fn = "batchNormWhiten";
  return detail::whiten(graph, acts, mean, invStdDev, prog, perChannel(fn, acts, options), {debugContext, fn}, fn);
}

std::pair<Tensor, Tensor> batchNormalise(poplar::Graph &graph, const Tensor &acts, const Tensor &gamma,
                                         const Tensor &beta, const Tensor &mean, const Tensor &invStdDev,
                                         Sequence &prog, const poplar::DebugContext &debugContext,
                                         const poplar::OptionFlags &options) {
  const char *fn = "batchNormalise";
  return detail::normalise(graph, acts, gamma, beta, mean, invStdDev, prog, perChannel(fn, acts, options),
                           {debugContext, fn}, fn);
}

Tensor batchNormalise(poplar::Graph &graph, const Tensor &acts, const Tensor &combinedMultiplicand,
                      const Tensor &addend, Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options) {
  const char *fn = "batchNormalise";
  perChannel(fn, acts, options);
  return detail::scaleAndShift(graph, acts, combinedMultiplicand, addend, prog, {debugContext, fn}, fn);
}

std::pair<Tensor, Tensor> batchNormParamGradients(poplar::Graph &graph, const Tensor &acts, const Tensor &gradsIn,
                                                  const Tensor &mean, const Tensor &iStdDev, Sequence &prog,
                                                  const poplar::Type &partialsType,
                                                  const poplar::DebugContext &debugContext,
                                                  const poplar::OptionFlags &options) {
  const char *fn = "batchNormParamGradients";
  const Tensor whitened =
      detail::whiten(graph, acts, mean, iStdDev, prog, perChannel(fn, acts, options), {debugContext, fn}, fn);
  return detail::paramGradients(graph, whitened, gradsIn, prog, partialsType, {debugContext, fn}, fn);
}

std::pair<Tensor, Tensor> batchNormParamGradients(poplar::Graph &graph, const Tensor &actsWhitened,
                                                  const Tensor &gradsIn, Sequence &prog,
                                                  const poplar::Type &partialsType,
                                                  const poplar::DebugContext &debugContext,
                                                  const poplar::OptionFlags &options) {
  const char *fn = "batchNormParamGradients";
  perChannel(fn, actsWhitened, options);
  return detail::paramGradients(graph, actsWhitened, gradsIn, prog, partialsType, {debugContext, fn}, fn);
}

Tensor batchNormGradients(poplar::Graph &graph, const Tensor &acts, const Tensor &gradsIn, const Tensor &mean,
                          const Tensor &invStdDev, const Tensor &gamma, Sequence &prog,
                          const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options) {
  const char *fn = "batchNormGradients";
  const auto grouping = perChannel(fn, acts, options);
  const Tensor whitened = detail::whiten(graph, acts, mean, invStdDev, prog, grouping, {debugContext, fn}, fn);
  return detail::gradients(graph, whitened, gradsIn, invStdDev, gamma, prog, partialsType, grouping,
                           {debugContext, fn}, fn);
}

Tensor batchNormGradients(poplar::Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn,
                          const Tensor &invStdDev, const Tensor &gamma, Sequence &prog,
                          const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options) {
  const char *fn = "batchNormGradients";
  return detail::gradients(graph, actsWhitened, gradsIn, invStdDev, gamma, prog, partialsType,
                           perChannel(fn, actsWhitened, options), {debugContext, fn}, fn);
}

Tensor distributedBatchNormGradients(poplar::Graph &replicatedGraph, const Tensor &actsWhitened,
                                     const Tensor &gradsIn, const Tensor &invStdDev, const Tensor &gamma,
                                     Sequence &prog, poplin::DistributedNormReduceCallback reduceCallback,
                                     unsigned normBatchSize, const poplar::Type &partialsType,
                                     const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  const char *fn = "distributedBatchNormGradients";
  const auto grouping = perChannel(fn, actsWhitened, options);
  return detail::gradients(
      replicatedGraph, actsWhitened, gradsIn, invStdDev, gamma, prog, partialsType, grouping, {debugContext, fn}, fn,
      detail::Distribution::of(fn, replicatedGraph, actsWhitened, std::move(reduceCallback), normBatchSize));
}

Tensor distributedBatchNormGradients(poplar::Graph &replicatedGraph, const Tensor &acts, const Tensor &gradsIn,
                                     const Tensor &mean, const Tensor &invStdDev, const Tensor &gamma,
                                     Sequence &prog, poplin::DistributedNormReduceCallback reduceCallback,
                                     unsigned normBatchSize, const poplar::Type &partialsType,
                                     const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  const char *fn = "distributedBatchNormGradients";
  const auto grouping = perChannel(fn, acts, options);
  const auto distribution =
      detail::Distribution::of(fn, replicatedGraph, acts, std::move(reduceCallback), normBatchSize);
  const Tensor whitened =
      detail::whiten(replicatedGraph, acts, mean, invStdDev, prog, grouping, {debugContext, fn}, fn);
  return detail::gradients(replicatedGraph, whitened, gradsIn, invStdDev, gamma, prog, partialsType, grouping,
                           {debugContext, fn}, fn, distribution);
}

void batchNormParamUpdate(poplar::Graph &graph, const Tensor &gammaDelta, const Tensor &betaDelta, float scale,
                          Tensor &gamma, Tensor &beta, Sequence &prog, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options) {
  detail::checkNoOptions(options);
  detail::paramUpdate(graph, gammaDelta, betaDelta, scale, gamma, beta, prog, {debugContext, "batchNormParamUpdate"},
                      "batchNormParamUpdate");
}

void batchNormParamUpdate(poplar::Graph &graph, const Tensor &gammaDelta, const Tensor &betaDelta,
                          const Tensor &scale, Tensor &gamma, Tensor &beta, Sequence &prog,
                          const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  detail::checkNoOptions(options);
  detail::paramUpdate<const Tensor &>(graph, gammaDelta, betaDelta, scale, gamma, beta, prog,
                                      {debugContext, "batchNormParamUpdate"}, "batchNormParamUpdate");
}

} // namespace bn
} // namespace popnn
