// poplin/Norms.hpp: per-channel normalisation steps, local and distributed over replicas.
#include <poplin/Norms.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <poputil/TileMapping.hpp>

#include "poplin/NormStatistics.hpp"

namespace poplin {

namespace {

using poplar::Tensor;
using poplar::program::Sequence;

Tensor createNormParam(poplar::Graph &graph, const Tensor &acts, const poplar::Type &type,
                       const poplar::DebugContext &dc, const char *name) {
  detail::checkActs(name, "acts", acts);
  Tensor param = graph.addVariable(type, {acts.dim(1)}, {dc, name});
  poputil::mapTensorLinearly(graph, param);
  return param;
}

detail::Grouping perChannel(const char *fn, const Tensor &acts) {
  detail::checkActs(fn, "acts", acts);
  return detail::Grouping::perChannel(acts.shape());
}

} // namespace

Tensor createNormGamma(poplar::Graph &graph, const Tensor &acts, const poplar::Type &type,
                       const poplar::DebugContext &debugContext) {
  return createNormParam(graph, acts, type, debugContext, "gamma");
}

Tensor createNormGamma(poplar::Graph &graph, const Tensor &acts, const poplar::DebugContext &debugContext) {
  return createNormParam(graph, acts, acts.elementType(), debugContext, "gamma");
}

Tensor createNormBeta(poplar::Graph &graph, const Tensor &acts, const poplar::Type &type,
                      const poplar::DebugContext &debugContext) {
  return createNormParam(graph, acts, type, debugContext, "beta");
}

Tensor createNormBeta(poplar::Graph &graph, const Tensor &acts, const poplar::DebugContext &debugContext) {
  return createNormParam(graph, acts, acts.elementType(), debugContext, "beta");
}

std::pair<Tensor, Tensor> createNormParams(poplar::Graph &graph, const Tensor &acts,
                                           const poplar::DebugContext &debugContext) {
  return {createNormGamma(graph, acts, debugContext), createNormBeta(graph, acts, debugContext)};
}

std::pair<Tensor, Tensor> normStatistics(poplar::Graph &graph, const Tensor &actsUngrouped, float eps, Sequence &prog,
                                         bool unbiasedVarEstimate, bool stableAlgo, const poplar::Type &partialsType,
                                         const poplar::DebugContext &debugContext) {
  const char *fn = "normStatistics";
  return detail::statistics(graph, actsUngrouped, eps, prog, unbiasedVarEstimate, stableAlgo, partialsType,
                            perChannel(fn, actsUngrouped), {debugContext, fn}, fn);
}

std::pair<Tensor, Tensor> distributedNormStatistics(poplar::Graph &replicatedGraph, const Tensor &actsUngrouped,
                                                    float eps, Sequence &prog, bool unbiasedVarEstimate,
                                                    DistributedNormReduceCallback allReduceCallback,
                                                    unsigned normSize, bool stableAlgo,
                                                    const poplar::Type &partialsType,
                                                    const poplar::DebugContext &debugContext) {
  const char *fn = "distributedNormStatistics";
  const auto grouping = perChannel(fn, actsUngrouped);
  return detail::statistics(
      replicatedGraph, actsUngrouped, eps, prog, unbiasedVarEstimate, stableAlgo, partialsType, grouping,
      {debugContext, fn}, fn,
      detail::Distribution::of(fn, replicatedGraph, actsUngrouped, std::move(allReduceCallback), normSize));
}

Tensor normWhiten(poplar::Graph &graph, const Tensor &acts, const Tensor &mean, const Tensor &iStdDev,
                  Sequence &prog, const poplar::DebugContext &debugContext) {
  const char *fn = "normWhiten";
  return detail::whiten(graph, acts, mean, iStdDev, prog, perChannel(fn, acts), {debugContext, fn}, fn);
}

Tensor normalise(poplar::Graph &graph, const Tensor &actsWhitened, const Tensor &gamma, const Tensor &beta,
                 Sequence &prog, const poplar::DebugContext &debugContext) {
  const char *fn = "normalise";
  perChannel(fn, actsWhitened);
  return detail::scaleAndShift(graph, actsWhitened, gamma, beta, prog, {debugContext, fn}, fn);
}

std::pair<Tensor, Tensor> normParamGradients(poplar::Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn,
                                             Sequence &prog, const poplar::Type &partialsType,
                                             const poplar::DebugContext &debugContext) {
  const char *fn = "normParamGradients";
  return detail::paramGradients(graph, actsWhitened, gradsIn, prog, partialsType, {debugContext, fn}, fn);
}

Tensor normGradients(poplar::Graph &graph, const Tensor &gradsIn, const Tensor &gamma, Sequence &prog,
                     const poplar::DebugContext &debugContext) {
  const char *fn = "normGradients";
  detail::checkActs(fn, "gradsIn", gradsIn);
  detail::checkChannelParam(fn, "gamma", gamma, gradsIn);
  std::vector<std::size_t> spread(gradsIn.rank(), 1);
  spread[1] = gamma.numElements();
  namespace pe = popops::expr;
  return popops::map(graph, pe::Cast(pe::Cast(pe::_1, poplar::FLOAT) * pe::Cast(pe::_2, poplar::FLOAT),
                                     gradsIn.elementType()),
                     {gradsIn, gamma.reshape(spread)}, prog, {debugContext, fn});
}

Tensor normStatisticsGradients(poplar::Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn,
                               const Tensor &invStdDev, Sequence &prog, const poplar::Type &partialsType,
                               const poplar::DebugContext &debugContext) {
  const char *fn = "normStatisticsGradients";
  return detail::gradients(graph, actsWhitened, gradsIn, invStdDev, Tensor(), prog, partialsType,
                           perChannel(fn, actsWhitened), {debugContext, fn}, fn);
}

Tensor distributedNormStatisticsGradients(poplar::Graph &replicatedGraph, const Tensor &actsWhitened,
                                          const Tensor &gradsIn, const Tensor &invStdDev, Sequence &prog,
                                          DistributedNormReduceCallback reduceCallback, unsigned normSize,
                                          const poplar::Type &partialsType,
                                          const poplar::DebugContext &debugContext) {
  const char *fn = "distributedNormStatisticsGradients";
  const auto grouping = perChannel(fn, actsWhitened);
  return detail::gradients(
      replicatedGraph, actsWhitened, gradsIn, invStdDev, Tensor(), prog, partialsType, grouping, {debugContext, fn},
      fn, detail::Distribution::of(fn, replicatedGraph, actsWhitened, std::move(reduceCallback), normSize));
}

} // namespace poplin
