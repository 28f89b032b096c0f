#pragma once
// What the LSTM's forward and backward passes share: where each unit sits in the weights,
// the forward intermediates of a step, the option names and the operand checks.
#include <popnn/Lstm.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace popnn {
namespace lstm {
namespace detail {

// A step's forward intermediates, [kNumIntermediates][batch][output]: the four units'
// activations in unit order, the cell state c_t, activation(c_t) and the output h_t.
constexpr std::size_t kCellIndex = 4, kCellActivationIndex = 5, kOutputIndex = 6, kNumIntermediates = 7;

inline void check(bool ok, const char *fn, const std::string &what) {
  if (!ok) throw poputil::poplibs_error(std::string(fn) + ": " + what);
}

inline void checkShape(const char *fn, const char *what, const poplar::Tensor &t,
                       const std::vector<std::size_t> &shape) {
  std::string want;
  for (std::size_t d : shape) want += (want.empty() ? "" : ",") + std::to_string(d);
  check(t.valid() && t.shape() == shape, fn, std::string(what) + " must have shape [" + want + "]");
}

// poplibs' LSTM options; their values change how poplibs lays the work out, not results.
inline void checkOptions(const char *fn, const poplar::OptionFlags &options) {
  static const char *const known[] = {"availableMemoryProportion", "partialsType", "weightAccumulatorsType",
                                      "preCalcWeights", "recomputationMode", "numShards", "rnnCodeReuse",
                                      "inferenceOnly"};
  for (const auto &option : options)
    if (std::find_if(std::begin(known), std::end(known), [&](const char *k) { return option.first == k; }) ==
        std::end(known))
      throw poplar::invalid_option(std::string(fn) + ": unknown option '" + option.first + "'");
}

inline void checkParams(const char *fn, const LstmParams &p) {
  check(!p.rnn.variableTimeSteps(), fn, "run-time step counts (varTimeSteps) are not supported by the emulator");
  std::vector<BasicLstmCellUnit> sorted = p.cellOrder;
  std::sort(sorted.begin(), sorted.end());
  check(sorted == getDefaultBasicLstmCellOrder(), fn,
        "cellOrder must name FORGET_GATE, INPUT_GATE, CANDIDATE and OUTPUT_GATE once each");
}

inline void checkWeights(const char *fn, const LstmParams &p, const LstmWeights &w) {
  const std::size_t in = p.rnn.layerSizes[0], out = p.rnn.layerSizes[1];
  checkShape(fn, "inputWeights", w.inputWeights, {BASIC_LSTM_CELL_NUM_UNITS, in, out});
  checkShape(fn, "outputWeights", w.outputWeights, {BASIC_LSTM_CELL_NUM_UNITS, out, out});
  checkShape(fn, "biases", w.biases, {BASIC_LSTM_CELL_NUM_UNITS, out});
}

// The position in the weights' outermost dimension of each unit.
inline std::vector<std::size_t> unitPositions(const LstmParams &params) {
  std::vector<std::size_t> position(BASIC_LSTM_CELL_NUM_UNITS);
  for (std::size_t i = 0; i < params.cellOrder.size(); ++i) position[params.cellOrder[i]] = i;
  return position;
}

inline std::vector<std::size_t> stateShape(const LstmParams &p) { return {p.rnn.batchSize, p.rnn.layerSizes[1]}; }
inline std::vector<std::size_t> outputShape(const LstmParams &p) {
  if (p.outputFullSequence) return {p.rnn.maxTimeSteps, p.rnn.batchSize, p.rnn.layerSizes[1]};
  return stateShape(p);
}

} // namespace detail
} // namespace lstm
} // namespace popnn
