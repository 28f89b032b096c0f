#pragma once
// Instance normalisation: group normalisation with one group per channel, so the
// statistics are [B * C], each over one batch element's channel.
#include <cstdint>

#include <popnn/GroupNorm.hpp>

namespace popnn {
namespace in {

std::pair<poplar::Tensor, poplar::Tensor>
instanceNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps, poplar::program::Sequence &prog,
                       bool unbiasedVarEstimate, bool stableAlgo, const poplar::Type &partialsType = poplar::FLOAT,
                       const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

poplar::Tensor instanceNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &mean,
                                  const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});

std::pair<poplar::Tensor, poplar::Tensor>
instanceNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
                  const poplar::Tensor &beta, const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                  poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                  const poplar::OptionFlags &options = {});

std::pair<poplar::Tensor, poplar::Tensor>
instanceNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                           const poplar::Tensor &mean, const poplar::Tensor &iStdDev,
                           poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                           const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

std::pair<poplar::Tensor, poplar::Tensor>
instanceNormParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
                           poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                           const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

poplar::Tensor instanceNormGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                     const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                     const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                     poplar::program::Sequence &prog,
                                     const poplar::Type &partialsType = poplar::FLOAT,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});

poplar::Tensor instanceNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                     const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                     const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                     const poplar::Type &partialsType = poplar::FLOAT,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});

void instanceNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                             const poplar::Tensor &betaDelta, float scale, poplar::Tensor &gamma,
                             poplar::Tensor &beta, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

void instanceNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta,
                             const poplar::Tensor &betaDelta, const poplar::Tensor &scale, poplar::Tensor &gamma,
                             poplar::Tensor &beta, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

// Flops of a layer of numChannels channels (per batch element and channel) of
// actsPerChannel activations each: forward (computeEstimates: with the statistics),
// gradient and parameter update.
std::uint64_t getFwdFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel, bool computeEstimates);
std::uint64_t getBwdFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel);
std::uint64_t getWuFlops(std::uint64_t numChannels, std::uint64_t actsPerChannel);

} // namespace in
} // namespace popnn
