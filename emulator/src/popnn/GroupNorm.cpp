// popnn::gn: statistics per batch element and group of channels (ln and in are gn
// with one group and with one group per channel).
#include <popnn/GroupNorm.hpp>

#include <poputil/exceptions.hpp>

#include "poplin/NormStatistics.hpp"
#include "popops/KernelSupport.hpp"

namespace popnn {

// The shared body lives in poplin, as poplibs keeps it there (poplin/Norms.hpp).
namespace detail = poplin::detail;
namespace gn {

namespace {

using poplar::Tensor;
using poplar::program::Sequence;

detail::Grouping grouping(const char *fn, const Tensor &acts, std::size_t numGroups,
                          const poplar::OptionFlags &options) {
  detail::checkActs(fn, "acts", acts);
  const bool strided = detail::booleanOption(options, "groupNormStridedChannelGrouping", true);
  return detail::Grouping::perGroup(fn, acts.shape(), numGroups, strided);
}

// The grouping a [B * numGroups] statistic of acts implies.
detail::Grouping groupingOf(const char *fn, const Tensor &acts, const Tensor &statistic, const char *role,
                            const poplar::OptionFlags &options) {
  detail::checkActs(fn, "acts", acts);
  if (statistic.rank() != 1 || statistic.numElements() % acts.dim(0) != 0)
    throw poputil::poplibs_error(std::string(fn) + ": " + role + " " + popops::detail::describe(statistic) +
                                 " must be [B * numGroups] for acts " + popops::detail::describe(acts));
  return grouping(fn, acts, statistic.numElements() / acts.dim(0), options);
}

} // namespace

std::pair<Tensor, Tensor> groupNormStatistics(poplar::Graph &graph, const Tensor acts, float eps, Sequence &prog,
                                              unsigned numGroups, bool unbiasedVarEstimate, bool stableAlgo,
                                              const poplar::Type &partialsType,
                                              const poplar::DebugContext &debugContext,
                                              const poplar::OptionFlags &options) {
  const char *fn = "groupNormStatistics";
  return detail::statistics(graph, acts, eps, prog, unbiasedVarEstimate, stableAlgo, partialsType,
                            grouping(fn, acts, numGroups, options), {debugContext, fn}, fn);
}

Tensor groupNormWhiten(poplar::Graph &graph, const Tensor &acts, const Tensor &mean, const Tensor &invStdDev,
                       Sequence &prog, const poplar::DebugContext &debugContext,
                       const poplar::OptionFlags &options) {
  const char *fn = "groupNormWhiten";
  return detail::whiten(graph, acts, mean, invStdDev, prog, groupingOf(fn, acts, mean, "mean", options),
                        {debugContext, fn}, fn);
}

std::pair<Tensor, Tensor> groupNormalise(poplar::Graph &graph, const Tensor &acts, const Tensor &gamma,
                                         const Tensor &beta, const Tensor &mean, const Tensor &invStdDev,
                                         Sequence &prog, const poplar::DebugContext &debugContext,
                                         const poplar::OptionFlags &options) {
  const char *fn = "groupNormalise";
  return detail::normalise(graph, acts, gamma, beta, mean, invStdDev, prog,
                           groupingOf(fn, acts, mean, "mean", options), {debugContext, fn}, fn);
}

std::pair<Tensor, Tensor> groupNormParamGradients(poplar::Graph &graph, const Tensor &acts, const Tensor &gradsIn,
                                                  const Tensor &mean, const Tensor &iStdDev, Sequence &prog,
                                                  const poplar::Type &partialsType,
                                                  const poplar::DebugContext &debugContext,
                                                  const poplar::OptionFlags &options) {
  const char *fn = "groupNormParamGradients";
  const Tensor whitened = detail::whiten(graph, acts, mean, iStdDev, prog, groupingOf(fn, acts, mean, "mean", options),
                                         {debugContext, fn}, fn);
  return detail::paramGradients(graph, whitened, gradsIn, prog, partialsType, {debugContext, fn}, fn);
}

std::pair<Tensor, Tensor> groupNormParamGradients(poplar::Graph &graph, const Tensor &actsWhitened,
                                                  const Tensor &gradsIn, Sequence &prog,
                                                  const poplar::Type &partialsType,
                                                  const poplar::DebugContext &debugContext,
                                                  const poplar::OptionFlags &options) {
  const char *fn = "groupNormParamGradients";
  detail::booleanOption(options, "groupNormStridedChannelGrouping", true);
  return detail::paramGradients(graph, actsWhitened, gradsIn, prog, partialsType, {debugContext, fn}, fn);
}

Tensor groupNormGradients(poplar::Graph &graph, const Tensor &acts, const Tensor &gradsIn, const Tensor &mean,
                          const Tensor &invStdDev, const Tensor &gamma, Sequence &prog,
                          const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options) {
  const char *fn = "groupNormGradients";
  const auto groups = groupingOf(fn, acts, mean, "mean", options);
  const Tensor whitened = detail::whiten(graph, acts, mean, invStdDev, prog, groups, {debugContext, fn}, fn);
  return detail::gradients(graph, whitened, gradsIn, invStdDev, gamma, prog, partialsType, groups,
                           {debugContext, fn}, fn);
}

Tensor groupNormGradients(poplar::Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn,
                          const Tensor &invStdDev, const Tensor &gamma, Sequence &prog,
                          const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options) {
  const char *fn = "groupNormGradients";
  return detail::gradients(graph, actsWhitened, gradsIn, invStdDev, gamma, prog, partialsType,
                           groupingOf(fn, actsWhitened, invStdDev, "invStdDev", options), {debugContext, fn}, fn);
}

void groupNormParamUpdate(poplar::Graph &graph, const Tensor &gammaDelta, const Tensor &betaDelta, float scale,
                          Tensor &gamma, Tensor &beta, Sequence &prog, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options) {
  detail::booleanOption(options, "groupNormStridedChannelGrouping", true);
  detail::paramUpdate(graph, gammaDelta, betaDelta, scale, gamma, beta, prog, {debugContext, "groupNormParamUpdate"},
                      "groupNormParamUpdate");
}

void groupNormParamUpdate(poplar::Graph &graph, const Tensor &gammaDelta, const Tensor &betaDelta,
                          const Tensor &scale, Tensor &gamma, Tensor &beta, Sequence &prog,
                          const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  detail::booleanOption(options, "groupNormStridedChannelGrouping", true);
  detail::paramUpdate<const Tensor &>(graph, gammaDelta, betaDelta, scale, gamma, beta, prog,
                                      {debugContext, "groupNormParamUpdate"}, "groupNormParamUpdate");
}

} // namespace gn
} // namespace popnn
