// popnn::lstm: parameters, tensor creation and the forward pass, unrolled over the steps
// with poplin products and popops maps.
#include <popnn/Lstm.hpp>

#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>

#include "CellFlops.hpp"
#include "LstmLayout.hpp"

namespace popnn {
namespace lstm {

namespace {

using poplar::Tensor;
namespace pe = popops::expr;

Tensor lstmVariable(poplar::Graph &graph, const LstmParams &params, std::vector<std::size_t> shape,
                    const poplar::DebugContext &dc, const char *name) {
  Tensor t = graph.addVariable(params.rnn.dataType, shape, poplar::DebugContext(dc, name));
  poputil::mapTensorLinearly(graph, t);
  return t;
}

} // namespace

std::vector<BasicLstmCellUnit> getDefaultBasicLstmCellOrder() {
  return {BASIC_LSTM_CELL_FORGET_GATE, BASIC_LSTM_CELL_INPUT_GATE, BASIC_LSTM_CELL_CANDIDATE,
          BASIC_LSTM_CELL_OUTPUT_GATE};
}

LstmParams::LstmParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
                       std::vector<std::size_t> layerSizes, NonLinearityType activation,
                       NonLinearityType recurrentActivation)
    : rnn(dataType, batchSize, timeSteps, layerSizes), dataType(dataType), batchSize(batchSize),
      timeSteps(timeSteps), layerSizes(layerSizes), activation(activation),
      recurrentActivation(recurrentActivation) {}

LstmParams::LstmParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
                       const poplar::Tensor &timeSteps, std::vector<std::size_t> layerSizes,
                       NonLinearityType activation, NonLinearityType recurrentActivation)
    : rnn(dataType, batchSize, maxTimeSteps, timeSteps, layerSizes), dataType(dataType), batchSize(batchSize),
      timeSteps(maxTimeSteps), layerSizes(layerSizes), activation(activation),
      recurrentActivation(recurrentActivation) {}

Tensor LstmState::getAsTensor() const { return poplar::concat(output.expand({0}), cellState.expand({0})); }

Tensor createInput(poplar::Graph &graph, const LstmParams &params, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options, poplin::PlanningCache *) {
  detail::checkOptions("createInput", options);
  return rnn::createInputTensor(graph, params.rnn, 1, poplar::DebugContext(debugContext, "lstm"));
}

Tensor createInitialOutput(poplar::Graph &graph, const LstmParams &params, const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, poplin::PlanningCache *) {
  detail::checkOptions("createInitialOutput", options);
  return lstmVariable(graph, params, detail::stateShape(params), debugContext, "initialOutput");
}

Tensor createInitialCellState(poplar::Graph &graph, const LstmParams &params,
                              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                              poplin::PlanningCache *) {
  detail::checkOptions("createInitialCellState", options);
  return lstmVariable(graph, params, detail::stateShape(params), debugContext, "initialCellState");
}

LstmState createInitialState(poplar::Graph &graph, const LstmParams &params, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, poplin::PlanningCache *cache) {
  return {createInitialOutput(graph, params, debugContext, options, cache),
          createInitialCellState(graph, params, debugContext, options, cache)};
}

void zeroInitialState(poplar::Graph &graph, const LstmState &state, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext) {
  popops::zero(graph, state.getAsTensor(), prog, debugContext);
}

std::pair<Tensor, Tensor> createWeightsKernel(poplar::Graph &graph, const LstmParams &params,
                                              const poplar::DebugContext &debugContext,
                                              const poplar::OptionFlags &options, poplin::PlanningCache *) {
  detail::checkOptions("createWeightsKernel", options);
  const std::size_t in = params.rnn.layerSizes[0], out = params.rnn.layerSizes[1];
  return {lstmVariable(graph, params, {BASIC_LSTM_CELL_NUM_UNITS, in, out}, debugContext, "inputWeights"),
          lstmVariable(graph, params, {BASIC_LSTM_CELL_NUM_UNITS, out, out}, debugContext, "outputWeights")};
}

Tensor createWeightsBiases(poplar::Graph &graph, const LstmParams &params, const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, poplin::PlanningCache *) {
  detail::checkOptions("createWeightsBiases", options);
  return lstmVariable(graph, params, {BASIC_LSTM_CELL_NUM_UNITS, params.rnn.layerSizes[1]}, debugContext, "biases");
}

LstmWeights createWeights(poplar::Graph &graph, const LstmParams &params, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options, poplin::PlanningCache *cache) {
  LstmWeights w;
  std::tie(w.inputWeights, w.outputWeights) = createWeightsKernel(graph, params, debugContext, options, cache);
  w.biases = createWeightsBiases(graph, params, debugContext, options, cache);
  return w;
}

std::pair<Tensor, Tensor> lstmFwd(poplar::Graph &graph, const LstmParams &params, const LstmState &stateInit,
                                  const Tensor &in, const LstmWeights &weights, Tensor *intermediates,
                                  poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options, poplin::PlanningCache *cache) {
  const char *fn = "lstmFwd";
  detail::checkParams(fn, params);
  detail::checkOptions(fn, options);
  const std::size_t steps = params.rnn.maxTimeSteps, batch = params.rnn.batchSize;
  detail::checkShape(fn, "in", in, {steps, batch, params.rnn.layerSizes[0]});
  detail::checkShape(fn, "stateInit.output", stateInit.output, detail::stateShape(params));
  detail::checkShape(fn, "stateInit.cellState", stateInit.cellState, detail::stateShape(params));
  detail::checkWeights(fn, params, weights);
  const std::vector<std::size_t> at = detail::unitPositions(params);
  const poplar::DebugContext dc(debugContext, fn);
  const auto unit = [&](const Tensor &x, const Tensor &h, BasicLstmCellUnit u) {
    Tensor pre = popops::map(graph, pe::_1 + pe::_2 + pe::_3,
                             {poplin::matMul(graph, x, weights.inputWeights[at[u]], prog, dc, {}, cache),
                              poplin::matMul(graph, h, weights.outputWeights[at[u]], prog, dc, {}, cache),
                              weights.biases[at[u]].expand({0}).broadcast(static_cast<unsigned>(batch), 0)},
                             prog, dc);
    const NonLinearityType type = u == BASIC_LSTM_CELL_CANDIDATE ? params.activation : params.recurrentActivation;
    popnn::nonLinearityInPlace(graph, type, pre, prog, dc);
    return pre;
  };
  Tensor h = stateInit.output, c = stateInit.cellState;
  std::vector<Tensor> outputs, kept;
  for (std::size_t t = 0; t < steps; ++t) {
    const Tensor f = unit(in[t], h, BASIC_LSTM_CELL_FORGET_GATE), i = unit(in[t], h, BASIC_LSTM_CELL_INPUT_GATE);
    const Tensor g = unit(in[t], h, BASIC_LSTM_CELL_CANDIDATE), o = unit(in[t], h, BASIC_LSTM_CELL_OUTPUT_GATE);
    c = popops::map(graph, pe::_1 * pe::_2 + pe::_3 * pe::_4, {f, c, i, g}, prog, dc);
    const Tensor activated = popnn::nonLinearity(graph, params.activation, c, prog, dc);
    h = popops::mul(graph, o, activated, prog, dc);
    outputs.push_back(h.expand({0}));
    std::vector<Tensor> step = {f, i, g, o, c, activated, h};
    for (Tensor &s : step) s = s.expand({0});
    kept.push_back(poplar::concat(step).expand({0}));
  }
  if (intermediates) *intermediates = poplar::concat(kept);
  return {params.outputFullSequence ? poplar::concat(outputs) : h, c};
}

std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>> getMatMulPrePlanParameters(LstmParams params,
                                                                                           poplar::OptionFlags opts) {
  const char *fn = "lstm::getMatMulPrePlanParameters";
  detail::checkOptions(fn, opts);
  const auto inference = opts.find("inferenceOnly");
  const bool inferenceOnly = inference != opts.end() && inference->second == "true";
  if (inference != opts.end() && !inferenceOnly && inference->second != "false")
    throw poplar::invalid_option(std::string(fn) + ": inferenceOnly must be true or false, not '" +
                                 inference->second + "'");
  const std::size_t batch = params.rnn.batchSize, in = params.rnn.layerSizes.at(0), out = params.rnn.layerSizes.at(1);
  std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>> products;
  auto add = [&](std::vector<std::size_t> a, std::vector<std::size_t> b) {
    products.push_back({poplin::MatMulParams{params.rnn.dataType, params.rnn.dataType, a, b}, {}});
  };
  add({batch, in}, {in, out});
  add({batch, out}, {out, out});
  if (!inferenceOnly) {
    if (params.calcInputGradients) add({batch, out}, {out, in});
    add({in, batch}, {batch, out});
    add({out, batch}, {batch, out});
  }
  return products;
}

uint64_t getBasicLstmCellFwdFlops(const LstmParams &params) {
  return gatedCellFlops(params.rnn, BASIC_LSTM_CELL_NUM_UNITS, params.doInputWeightCalc);
}
uint64_t getBasicLstmCellBwdFlops(const LstmParams &params) {
  return gatedCellFlops(params.rnn, BASIC_LSTM_CELL_NUM_UNITS, params.calcInputGradients);
}
uint64_t getBasicLstmCellWuFlops(const LstmParams &params) {
  return gatedCellFlops(params.rnn, BASIC_LSTM_CELL_NUM_UNITS, true);
}

} // namespace lstm
} // namespace popnn
