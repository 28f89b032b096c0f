#pragma once
// poplin's matmul and convolution options: every documented key is accepted; the emulator acts
// on those that change results and ignores those that only steer the planner.
#include <poplar/OptionFlags.hpp>
#include <poplar/Type.hpp>

namespace poplin::detail {

struct MatMulOptions {
  poplar::Type partialsType = poplar::FLOAT;
};

// Throws poplar::invalid_option naming the key for unknown keys and bad values.
MatMulOptions parseMatMulOptions(const poplar::OptionFlags &options);
// The convolution options (poplin/Convolution.hpp) have the same form.
MatMulOptions parseConvOptions(const poplar::OptionFlags &options);
// The options of a set of convolutions (poplin/MultiConvolution.hpp): checked only.
void parseMultiConvOptions(const poplar::OptionFlags &options);

} // namespace poplin::detail
