#pragma once
// Fully connected layers as grouped matrix products (poplin::fc): the products such a
// layer runs, for planning them ahead.
#include <cstddef>
#include <utility>
#include <vector>

#include <poplar/OptionFlags.hpp>
#include <poplar/Type.hpp>
#include <poplin/MatMul.hpp>

namespace poplin {
namespace fc {

struct FullyConnectedParams {
  std::size_t numGroups;  // independent layers of this shape, done together
  std::size_t batchSize;  // samples in the layer's input
  std::size_t inputSize;  // inputs of each sample
  std::size_t outputSize; // outputs of each sample
};

// The grouped products of the layer's passes, each with matmulOptions and its
// `fullyConnectedPass` set (the only option changed): forward [groups][batch][input] x
// [groups][input][output] (INFERENCE_FWD when inferenceOnly, else TRAINING_FWD); unless
// inferenceOnly, backward [groups][batch][output] x [groups][output][input] (TRAINING_BWD)
// and weight update [groups][input][batch] x [groups][batch][output] (TRAINING_WU).
// Inputs and outputs are `type`.
std::vector<std::pair<MatMulParams, poplar::OptionFlags>>
getMatMulPrePlanParameters(FullyConnectedParams parameters, poplar::OptionFlags matmulOptions, poplar::Type type,
                           bool inferenceOnly);

} // namespace fc
} // namespace poplin
