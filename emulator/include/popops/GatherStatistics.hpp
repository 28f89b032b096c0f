#pragma once
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>

namespace popops {

// Counts of input's elements (or their absolute values) between ascending `levels`
// (N of them): entry 0 counts elements below levels[0], entry i those in
// [levels[i-1], levels[i]), entry N those at or above levels[N-1]. Returns N + 1
// counts, UNSIGNED_INT, or FLOAT with the option useFloatArithmetic=true.
poplar::Tensor histogram(poplar::Graph &graph, const poplar::Tensor &input, const poplar::Tensor &levels,
                         bool absoluteOfInput, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
// As above into `output` (N + 1 elements, FLOAT or UNSIGNED_INT), adding to what it holds
// when updateOutput is true. The options are checked as above; output's type decides the
// arithmetic.
void histogram(poplar::Graph &graph, const poplar::Tensor &input, poplar::Tensor &output, bool updateOutput,
               const poplar::Tensor &levels, bool absoluteOfInput, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

} // namespace popops
