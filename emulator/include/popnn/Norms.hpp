#pragma once
// What every popnn normalisation shares: the per-channel parameters gamma and beta of
// activations [B][C][...F...], and the flop estimates of a normalisation layer.
#include <cstddef>
#include <cstdint>
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {

// Forward flops for statistics of statisticsSize elements over numActsElements
// activations; computeStats = false counts only the scale and shift (batch norm's
// inference form).
std::uint64_t getNormFwdFlops(std::size_t statisticsSize, std::size_t numActsElements,
                              bool computeStats = true);
// Flops of the gradient with respect to the activations.
std::uint64_t getNormBwdFlops(std::size_t statisticsSize, std::size_t numActsElements);
// Flops of the parameter gradients and their update.
std::uint64_t getNormWuFlops(std::size_t paramsSize, std::size_t numActsElements);

// A [C] variable of the activations' type, mapped linearly.
poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::DebugContext &debugContext = {});
poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::DebugContext &debugContext = {});
// (gamma, beta).
std::pair<poplar::Tensor, poplar::Tensor> createNormParams(poplar::Graph &graph, const poplar::Tensor acts,
                                                           const poplar::DebugContext &debugContext = {});

} // namespace popnn
