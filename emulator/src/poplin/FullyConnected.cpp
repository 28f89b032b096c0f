// poplin/FullyConnected.hpp: the products of a fully connected layer's passes.
#include <poplin/FullyConnected.hpp>

namespace poplin {
namespace fc {

std::vector<std::pair<MatMulParams, poplar::OptionFlags>>
getMatMulPrePlanParameters(FullyConnectedParams parameters, poplar::OptionFlags matmulOptions, poplar::Type type,
                           bool inferenceOnly) {
  const std::size_t g = parameters.numGroups, b = parameters.batchSize, in = parameters.inputSize,
                    out = parameters.outputSize;
  std::vector<std::pair<MatMulParams, poplar::OptionFlags>> products;
  auto add = [&](const char *pass, std::vector<std::size_t> a, std::vector<std::size_t> bShape) {
    poplar::OptionFlags options = matmulOptions;
    options.set("fullyConnectedPass", pass);
    products.push_back({MatMulParams{type, type, std::move(a), std::move(bShape)}, std::move(options)});
  };
  add(inferenceOnly ? "INFERENCE_FWD" : "TRAINING_FWD", {g, b, in}, {g, in, out});
  if (!inferenceOnly) {
    add("TRAINING_BWD", {g, b, out}, {g, out, in});
    add("TRAINING_WU", {g, in, b}, {g, b, out});
  }
  return products;
}

} // namespace fc
} // namespace poplin
