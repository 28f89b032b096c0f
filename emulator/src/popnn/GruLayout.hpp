#pragma once
// What the GRU's forward and backward passes share: where each unit sits in the weights
// and the intermediates, and the checks of the tensors they take.
#include <popnn/Gru.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace popnn {
namespace gru {
namespace detail {

// The forward intermediates of a step, [count][batch][output]: r, u, c, then the step's
// output unless outputFullSequence, then the candidate's recurrent term with resetAfter.
constexpr std::size_t kResetIndex = 0, kUpdateIndex = 1, kCandidateIndex = 2;
inline std::size_t outputIndex() { return 3; }
inline std::size_t recurrentIndex(const GruParams &p) { return p.outputFullSequence ? 3 : 4; }
inline std::size_t numIntermediates(const GruParams &p) {
  return 3 + (p.outputFullSequence ? 0 : 1) + (p.resetAfter ? 1 : 0);
}

inline void checkShape(const char *fn, const char *what, const poplar::Tensor &t,
                       const std::vector<std::size_t> &shape) {
  if (t.shape() != shape) {
    std::string want;
    for (std::size_t d : shape) want += (want.empty() ? "" : ",") + std::to_string(d);
    throw poputil::poplibs_error(std::string(fn) + ": " + what + " must have shape [" + want + "]");
  }
}

inline void checkWeights(const char *fn, const GruParams &p, const GruWeights &w) {
  const std::size_t in = p.rnn.layerSizes[0], out = p.rnn.layerSizes[1];
  checkShape(fn, "inputWeights", w.inputWeights, {BASIC_GRU_CELL_NUM_UNITS, in, out});
  checkShape(fn, "outputWeights", w.outputWeights, {BASIC_GRU_CELL_NUM_UNITS, out, out});
  if (p.resetAfter) checkShape(fn, "biases (resetAfter)", w.biases, {BASIC_GRU_CELL_NUM_UNITS, 2, out});
  else checkShape(fn, "biases", w.biases, {BASIC_GRU_CELL_NUM_UNITS, out});
}

// The position in the weights' and biases' outermost dimension of each unit.
inline std::vector<std::size_t> unitPositions(const char *fn, const GruParams &params) {
  std::vector<BasicGruCellUnit> sorted = params.cellOrder;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != getDefaultBasicGruCellOrder())
    throw poputil::poplibs_error(std::string(fn) + ": cellOrder must name RESET_GATE, UPDATE_GATE and CANDIDATE once each");
  std::vector<std::size_t> position(BASIC_GRU_CELL_NUM_UNITS);
  for (std::size_t i = 0; i < params.cellOrder.size(); ++i) position[params.cellOrder[i]] = i;
  return position;
}

// Step t's attention [batch][timeSteps] as a [batch][output] broadcast like `like`.
inline poplar::Tensor attentionAt(const poplar::Tensor &attention, std::size_t t, const poplar::Tensor &like) {
  return attention.slice(t, t + 1, 1).broadcast(static_cast<unsigned>(like.dim(1)), 1);
}

} // namespace detail
} // namespace gru
} // namespace popnn
