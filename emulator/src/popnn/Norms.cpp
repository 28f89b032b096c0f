// popnn/Norms.hpp: the parameters every normalisation shares and its flop estimates.
#include <popnn/Norms.hpp>

#include <poplin/Norms.hpp>

namespace popnn {

// Counted as poplibs counts them: a multiply or an add per element of each pass.
std::uint64_t getNormFwdFlops(std::size_t statisticsSize, std::size_t numActsElements, bool computeStats) {
  const std::uint64_t scaleAndShift = 2 * static_cast<std::uint64_t>(numActsElements);
  if (!computeStats) return scaleAndShift;
  // The sums of the activations and of their squares, five operations per statistic
  // (two divisions by the count, the variance and eps), then subtract and multiply.
  const std::uint64_t sums = 2 * static_cast<std::uint64_t>(numActsElements);
  const std::uint64_t whiten = 2 * static_cast<std::uint64_t>(numActsElements);
  return sums + 5 * static_cast<std::uint64_t>(statisticsSize) + whiten + scaleAndShift;
}

std::uint64_t getNormBwdFlops(std::size_t statisticsSize, std::size_t numActsElements) {
  // gradsIn * gamma, then through the statistics: a product, two reductions, the
  // subtractions and the product by invStdDev (7 per element), two scalings per statistic.
  return 8 * static_cast<std::uint64_t>(numActsElements) + 2 * static_cast<std::uint64_t>(statisticsSize);
}

std::uint64_t getNormWuFlops(std::size_t paramsSize, std::size_t numActsElements) {
  // gradsIn * whitened and the two reductions; a scale and an add per parameter of two.
  return 3 * static_cast<std::uint64_t>(numActsElements) + 4 * static_cast<std::uint64_t>(paramsSize);
}

poplar::Tensor createNormGamma(poplar::Graph &graph, const poplar::Tensor &acts,
                               const poplar::DebugContext &debugContext) {
  return poplin::createNormGamma(graph, acts, debugContext);
}

poplar::Tensor createNormBeta(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::DebugContext &debugContext) {
  return poplin::createNormBeta(graph, acts, debugContext);
}

std::pair<poplar::Tensor, poplar::Tensor> createNormParams(poplar::Graph &graph, const poplar::Tensor acts,
                                                           const poplar::DebugContext &debugContext) {
  return {createNormGamma(graph, acts, debugContext), createNormBeta(graph, acts, debugContext)};
}

} // namespace popnn
