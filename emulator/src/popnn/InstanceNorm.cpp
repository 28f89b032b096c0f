// popnn::in: group normalisation with one group per channel, and its flop estimates.
#include <popnn/InstanceNorm.hpp>
#include <popnn/Norms.hpp>

namespace popnn {
namespace in {

std::pair<poplar::Tensor, poplar::Tensor>
instanceNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps, poplar::program::Sequence &prog,
                       bool unbiasedVarEstimate, bool stableAlgo, const poplar::Type &partialsType,
                       const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  // A rank below 2 reaches gn's check of the activations as zero groups.
  const unsigned channels = acts.rank() < 2 ? 0 : static_cast<unsigned>(acts.dim(1));
  return gn::groupNormStatistics(graph, acts, eps, prog, channels, unbiasedVarEstimate, stableAlgo, partialsType,
                                 debugContext, options);
}

poplar::Tensor instanceNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &mean,
                                  const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                                  const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return gn::groupNormWhiten(graph, acts, mean, invStdDev, prog, debugContext, options);
}

std::pair<poplar::Tensor, poplar::Tensor>
instanceNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
                  const poplar::Tensor &beta, const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                  poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                  const poplar::OptionFlags &options) {
  return gn::groupNormalise(graph, acts, gamma, beta, mean, invStdDev, prog, debugContext, options);
}

std::pair<poplar::Tensor, poplar::Tensor>
instanceNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                           const poplar::Tensor &mean, const poplar::Tensor &iStdDev,
                           poplar::program::Sequence &prog, const poplar::Type &partialsType,
                           const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return gn::groupNormParamGradients(graph, acts, gradsIn, mean, iStdDev, prog, partialsType, debugContext,
                                     options);
}

std::pair<poplar::Tensor, poplar::Tensor>
instanceNormParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
                           poplar::program::Sequence &prog, const poplar::Type &partialsType,
                           const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return gn::groupNormParamGradients(graph, actsWhitened, gradsIn, prog, partialsType, debugContext, options);
}

poplar::Tensor instanceNormGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                     const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                     const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                     poplar::program::Sequence &prog, const poplar::Type &partialsType,
                                     const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return gn::groupNormGradients(graph, acts, gradsIn, mean, invStdDev, gamma, prog, partialsType, debugContext,
                                options);
}

poplar::Tensor instanceNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                     const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                     const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                     const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
                                     const poplar::OptionFlags &options) {
  return gn::groupNormGradients(graph, actsWhitened, gradsIn, invStdDev, gamma, prog, partialsType, debugContext,
                                options);
}

void instanceNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                             const poplar::Tensor &betaDelta, float scale, poplar::Tensor &gamma,
                             poplar::Tensor &beta, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  gn::groupNormParamUpdate(graph, gammaDelta, betaDelta, scale, gamma, beta, prog, debugContext, options);
}

void instanceNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                             const poplar::Tensor &betaDelta, const poplar::Tensor &scale, poplar::Tensor &gamma,
                             poplar::Tensor &beta, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  gn::groupNormParamUpdate(graph, gammaDelta, betaDelta, scale, gamma, beta, prog, debugContext, options);
}

// As poplibs counts them: numChannels statistics, actsPerChannel counting the batch too.
std::uint64_t getFwdFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel, bool computeEstimates) {
  return getNormFwdFlops(numChannels, numChannels * actsPerChannel, computeEstimates);
}

std::uint64_t getBwdFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel) {
  return getNormBwdFlops(numChannels, numChannels * actsPerChannel);
}

std::uint64_t getWuFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel) {
  return getNormWuFlops(numChannels, numChannels * actsPerChannel);
}

} // namespace in
} // namespace popnn
