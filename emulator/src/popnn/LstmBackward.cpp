// The LSTM's backward pass (lstmBwd), weight update (lstmWU) and both (lstmBwdWithWU),
// back through the unrolled steps from the forward intermediates. The backward
// intermediates passed from lstmBwd to lstmWU are, per step, the gradients of the four
// units' pre-activations in unit order: [timeSteps][4][batch][output].
#include <popnn/Lstm.hpp>

#include <poplin/MatMul.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>

#include "LstmLayout.hpp"

namespace popnn {
namespace lstm {

namespace {

using poplar::Tensor;
namespace pe = popops::expr;

const BasicLstmCellUnit kLstmUnits[] = {BASIC_LSTM_CELL_FORGET_GATE, BASIC_LSTM_CELL_INPUT_GATE,
                                        BASIC_LSTM_CELL_CANDIDATE, BASIC_LSTM_CELL_OUTPUT_GATE};

// The operands every pass checks and uses.
struct LstmPass {
  poplar::Graph &graph;
  const LstmParams &params;
  poplar::program::Sequence &prog;
  const LstmState &init;
  const Tensor &fwd, &input;
  const LstmWeights &weights;
  poplin::PlanningCache *cache;
  poplar::DebugContext dc;
  std::vector<std::size_t> at;

  LstmPass(const char *fn, poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
           const LstmState &init, const Tensor &fwd, const LstmWeights &weights, const Tensor &input,
           const Tensor &output, const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
           poplin::PlanningCache *cache)
      : graph(graph), params(params), prog(prog), init(init), fwd(fwd), input(input), weights(weights),
        cache(cache), dc(debugContext, fn), at(detail::unitPositions(params)) {
    detail::checkParams(fn, params);
    detail::checkOptions(fn, options);
    for (NonLinearityType type : {params.activation, params.recurrentActivation})
      detail::check(type != NonLinearityType::GELU && type != NonLinearityType::GELU_ERF &&
                        type != NonLinearityType::SWISH,
                    fn, "the activations' gradients are taken from their outputs, so GELU, GELU_ERF and SWISH "
                        "are supported forward only");
    const std::size_t steps = params.rnn.maxTimeSteps;
    detail::checkWeights(fn, params, weights);
    detail::checkShape(fn, "input", input, {steps, params.rnn.batchSize, params.rnn.layerSizes[0]});
    detail::checkShape(fn, "fwdStateInit.output", init.output, detail::stateShape(params));
    detail::checkShape(fn, "fwdStateInit.cellState", init.cellState, detail::stateShape(params));
    std::vector<std::size_t> fwdShape = detail::stateShape(params);
    fwdShape.insert(fwdShape.begin(), {steps, detail::kNumIntermediates});
    detail::checkShape(fn, "fwdIntermediates", fwd, fwdShape);
    detail::checkShape(fn, "output", output, detail::outputShape(params));
  }

  Tensor previous(std::size_t t, std::size_t index, const Tensor &initial) const {
    return t == 0 ? initial : fwd[t - 1][index];
  }
  Tensor product(const Tensor &a, const Tensor &b) const {
    return poplin::matMul(graph, a, b, prog, dc, {}, cache);
  }
  // sum over the units of pre[u] w[u]^T: the gradient flowing to the unit's operand.
  Tensor back(const std::vector<Tensor> &pre, const Tensor &w) const {
    Tensor sum = product(pre[0], w[at[kLstmUnits[0]]].transpose());
    for (std::size_t u = 1; u < pre.size(); ++u)
      popops::addInPlace(graph, sum, product(pre[u], w[at[kLstmUnits[u]]].transpose()), prog, dc);
    return sum;
  }
};

// Returns the initial state's gradient; dh, dc start from the last step's state gradients.
LstmState lstmBackwardPass(const LstmPass &p, const Tensor &outputGrad, Tensor dh, Tensor dc, Tensor *inputGrad,
                   Tensor &bwdIntermediates) {
  const std::size_t steps = p.params.rnn.maxTimeSteps;
  std::vector<Tensor> inputGrads(steps), kept(steps);
  for (std::size_t t = steps; t-- > 0;) {
    if (p.params.outputFullSequence) dh = popops::add(p.graph, dh, outputGrad[t], p.prog, p.dc);
    else if (t + 1 == steps) dh = popops::add(p.graph, dh, outputGrad, p.prog, p.dc);
    const Tensor step = p.fwd[t], cPrev = p.previous(t, detail::kCellIndex, p.init.cellState);
    const Tensor f = step[BASIC_LSTM_CELL_FORGET_GATE], i = step[BASIC_LSTM_CELL_INPUT_GATE];
    const Tensor g = step[BASIC_LSTM_CELL_CANDIDATE], o = step[BASIC_LSTM_CELL_OUTPUT_GATE];
    const Tensor activated = step[detail::kCellActivationIndex];
    // h = o act(c): the cell's gradient gains dh o act'(c).
    const Tensor dActivated = popops::mul(p.graph, dh, o, p.prog, p.dc);
    popops::addInPlace(p.graph, dc,
                       nonLinearityInputGradient(p.graph, p.params.activation, activated, dActivated, p.prog, p.dc),
                       p.prog, p.dc);
    // c = f c' + i g
    const Tensor df = popops::mul(p.graph, dc, cPrev, p.prog, p.dc), di = popops::mul(p.graph, dc, g, p.prog, p.dc);
    const Tensor dg = popops::mul(p.graph, dc, i, p.prog, p.dc);
    const Tensor dOut = popops::mul(p.graph, dh, activated, p.prog, p.dc);
    const NonLinearityType rec = p.params.recurrentActivation;
    const std::vector<Tensor> pre = {nonLinearityInputGradient(p.graph, rec, f, df, p.prog, p.dc),
                                     nonLinearityInputGradient(p.graph, rec, i, di, p.prog, p.dc),
                                     nonLinearityInputGradient(p.graph, p.params.activation, g, dg, p.prog, p.dc),
                                     nonLinearityInputGradient(p.graph, rec, o, dOut, p.prog, p.dc)};
    dc = popops::mul(p.graph, dc, f, p.prog, p.dc);
    dh = p.back(pre, p.weights.outputWeights);
    if (inputGrad && p.params.calcInputGradients) inputGrads[t] = p.back(pre, p.weights.inputWeights).expand({0});
    std::vector<Tensor> units(pre);
    for (Tensor &u : units) u = u.expand({0});
    kept[t] = poplar::concat(units).expand({0});
  }
  if (inputGrad && p.params.calcInputGradients) *inputGrad = poplar::concat(inputGrads);
  bwdIntermediates = poplar::concat(kept);
  return {dh, dc};
}

// The last step's state gradients: zeros plus whatever the caller gives.
std::pair<Tensor, Tensor> lastGradients(const LstmPass &p, const char *fn, const Tensor *output,
                                        const Tensor *cell) {
  Tensor dh = p.graph.clone(p.init.output, poplar::DebugContext(p.dc, "lastOutputGrad"));
  Tensor dc = p.graph.clone(p.init.cellState, poplar::DebugContext(p.dc, "lastCellStateGrad"));
  popops::zero(p.graph, dh, p.prog, p.dc);
  popops::zero(p.graph, dc, p.prog, p.dc);
  if (output) {
    detail::checkShape(fn, "lastStepStateGrad->output", *output, detail::stateShape(p.params));
    popops::addInPlace(p.graph, dh, *output, p.prog, p.dc);
  }
  if (cell) {
    detail::checkShape(fn, "last cell state gradient", *cell, detail::stateShape(p.params));
    popops::addInPlace(p.graph, dc, *cell, p.prog, p.dc);
  }
  return {dh, dc};
}

LstmWeights lstmWeightUpdate(const LstmPass &p, const Tensor &bwd) {
  std::vector<std::size_t> shape = detail::stateShape(p.params);
  shape.insert(shape.begin(), {p.params.rnn.maxTimeSteps, BASIC_LSTM_CELL_NUM_UNITS});
  detail::checkShape("lstmWU", "bwdIntermediates", bwd, shape);
  LstmWeights grads;
  grads.inputWeights = p.graph.clone(p.weights.inputWeights, poplar::DebugContext(p.dc, "inputWeightsGrad"));
  grads.outputWeights = p.graph.clone(p.weights.outputWeights, poplar::DebugContext(p.dc, "outputWeightsGrad"));
  grads.biases = p.graph.clone(p.weights.biases, poplar::DebugContext(p.dc, "biasesGrad"));
  for (const Tensor *t : {&grads.inputWeights, &grads.outputWeights, &grads.biases})
    popops::zero(p.graph, *t, p.prog, p.dc);
  for (std::size_t t = 0; t < p.params.rnn.maxTimeSteps; ++t) {
    const Tensor x = p.input[t], hPrev = p.previous(t, detail::kOutputIndex, p.init.output);
    for (BasicLstmCellUnit u : kLstmUnits) {
      const Tensor pre = bwd[t][u];
      poplin::matMulAcc(p.graph, grads.inputWeights[p.at[u]], 1.0f, x.transpose(), pre, p.prog, p.dc, {}, p.cache);
      poplin::matMulAcc(p.graph, grads.outputWeights[p.at[u]], 1.0f, hPrev.transpose(), pre, p.prog, p.dc, {},
                        p.cache);
      popops::reduceWithOutput(p.graph, pre, grads.biases[p.at[u]], {0},
                               popops::ReduceParams(popops::Operation::ADD, true), p.prog, p.dc);
    }
  }
  return grads;
}

LstmState lstmBackwardAll(const char *fn, poplar::Graph &graph, const LstmParams &params,
                          poplar::program::Sequence &prog, const LstmState &init, const Tensor &fwd,
                          const LstmWeights &weights, const Tensor &input, const Tensor &output,
                          const Tensor &outputGrad, const Tensor *lastOutput, const Tensor *lastCell,
                          Tensor *inputGrad, Tensor *bwdIntermediates, LstmWeights *weightsGrad,
                          const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                          poplin::PlanningCache *cache) {
  const LstmPass pass(fn, graph, params, prog, init, fwd, weights, input, output, debugContext, options, cache);
  detail::checkShape(fn, "outputGrad", outputGrad, detail::outputShape(params));
  const std::pair<Tensor, Tensor> last = lastGradients(pass, fn, lastOutput, lastCell);
  Tensor kept;
  const LstmState initGrad = lstmBackwardPass(pass, outputGrad, last.first, last.second, inputGrad, kept);
  if (bwdIntermediates) *bwdIntermediates = kept;
  if (weightsGrad) *weightsGrad = lstmWeightUpdate(pass, kept);
  return initGrad;
}

} // namespace

LstmState lstmBwd(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                  const LstmState &fwdStateInit, const Tensor &fwdIntermediates, const LstmWeights &weights,
                  const Tensor &input, const Tensor &output, const Tensor &outputGrad,
                  const LstmState *lastStepStateGrad, Tensor *inputSeqGrad, Tensor *bwdIntermediates,
                  const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                  poplin::PlanningCache *cache) {
  return lstmBackwardAll("lstmBwd", graph, params, prog, fwdStateInit, fwdIntermediates, weights, input, output,
                         outputGrad, lastStepStateGrad ? &lastStepStateGrad->output : nullptr,
                         lastStepStateGrad ? &lastStepStateGrad->cellState : nullptr, inputSeqGrad,
                         bwdIntermediates, nullptr, debugContext, options, cache);
}

LstmState lstmBwd(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                  const LstmState &fwdStateInit, const Tensor &fwdIntermediates, const LstmWeights &weights,
                  const Tensor &input, const Tensor &output, const Tensor &outputGrad, const Tensor *lastCellStateGrad,
                  Tensor *inputSeqGrad, Tensor *bwdIntermediates, const poplar::DebugContext &debugContext,
                  const poplar::OptionFlags &options, poplin::PlanningCache *cache) {
  return lstmBackwardAll("lstmBwd", graph, params, prog, fwdStateInit, fwdIntermediates, weights, input, output,
                         outputGrad, nullptr, lastCellStateGrad, inputSeqGrad, bwdIntermediates, nullptr,
                         debugContext, options, cache);
}

LstmWeights lstmWU(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                   const LstmState &fwdStateInit, const Tensor &fwdIntermediates, const Tensor &bwdIntermediates,
                   const LstmWeights &weights, const Tensor &input, const Tensor &output,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                   poplin::PlanningCache *cache) {
  const LstmPass pass("lstmWU", graph, params, prog, fwdStateInit, fwdIntermediates, weights, input, output,
                      debugContext, options, cache);
  return lstmWeightUpdate(pass, bwdIntermediates);
}

LstmState lstmBwdWithWU(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                        const LstmState &fwdStateInit, const Tensor &fwdIntermediates, const LstmWeights &weights,
                        const Tensor &input, const Tensor &output, const Tensor &outputGrad,
                        const LstmState *lastStepStateGrad, Tensor *inputSeqGrad, LstmWeights &weightsGrad,
                        const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                        poplin::PlanningCache *cache) {
  return lstmBackwardAll("lstmBwdWithWU", graph, params, prog, fwdStateInit, fwdIntermediates, weights, input,
                         output, outputGrad, lastStepStateGrad ? &lastStepStateGrad->output : nullptr,
                         lastStepStateGrad ? &lastStepStateGrad->cellState : nullptr, inputSeqGrad, nullptr,
                         &weightsGrad, debugContext, options, cache);
}

LstmState lstmBwdWithWU(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                        const LstmState &fwdStateInit, const Tensor &fwdIntermediates, const LstmWeights &weights,
                        const Tensor &input, const Tensor &output, const Tensor &outputGrad,
                        const Tensor *lastCellStateGrad, Tensor *inputSeqGrad, LstmWeights &weightsGrad,
                        const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                        poplin::PlanningCache *cache) {
  return lstmBackwardAll("lstmBwdWithWU", graph, params, prog, fwdStateInit, fwdIntermediates, weights, input,
                         output, outputGrad, nullptr, lastCellStateGrad, inputSeqGrad, nullptr, &weightsGrad,
                         debugContext, options, cache);
}

} // namespace lstm
} // namespace popnn
