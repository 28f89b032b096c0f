// The GRU's combined backward pass and weight update (gruBwdWithWU), back through the
// unrolled steps from the forward intermediates, with poplin products and popops maps.
#include <popnn/Gru.hpp>

#include <poplin/MatMul.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>

#include <string>

#include "GruLayout.hpp"

namespace popnn {
namespace gru {

namespace {

using poplar::Tensor;
namespace pe = popops::expr;

// The gradient of an activation from its output: the forward pass keeps outputs only.
void checkActivation(NonLinearityType type, const char *which) {
  if (type == NonLinearityType::GELU || type == NonLinearityType::GELU_ERF || type == NonLinearityType::SWISH)
    throw poputil::poplibs_error(std::string("gruBwdWithWU: the ") + which +
                                 " has no gradient from its output alone; the emulator supports it forward only");
}

} // namespace

Tensor gruBwdWithWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                    const Tensor &fwdOutputInit, const Tensor &fwdIntermediates, const GruWeights &weights,
                    const Tensor &input, const Tensor &output, const Tensor &outputGrad, Tensor *inputGrad,
                    GruWeights &weightsGrad, const poplar::DebugContext &debugContext,
                    const poplar::OptionFlags &options, poplin::PlanningCache *planningCache) {
  const char *fn = "gruBwdWithWU";
  const std::size_t steps = params.rnn.maxTimeSteps, batch = params.rnn.batchSize;
  const std::size_t inSize = params.rnn.layerSizes[0], outSize = params.rnn.layerSizes[1];
  detail::checkWeights(fn, params, weights);
  detail::checkShape(fn, "input", input, {steps, batch, inSize});
  detail::checkShape(fn, "fwdOutputInit", fwdOutputInit, {batch, outSize});
  detail::checkShape(fn, "fwdIntermediates", fwdIntermediates,
                     {steps, detail::numIntermediates(params), batch, outSize});
  const std::vector<std::size_t> stateShape = params.outputFullSequence
                                                  ? std::vector<std::size_t>{steps, batch, outSize}
                                                  : std::vector<std::size_t>{batch, outSize};
  detail::checkShape(fn, "output", output, stateShape);
  detail::checkShape(fn, "outputGrad", outputGrad, stateShape);
  checkActivation(params.activation, "activation");
  checkActivation(params.recurrentActivation, "recurrentActivation");
  const std::vector<std::size_t> at = detail::unitPositions(fn, params);
  const poplar::DebugContext dc(debugContext, fn);

  weightsGrad.inputWeights = graph.clone(weights.inputWeights, poplar::DebugContext(dc, "inputWeightsGrad"));
  weightsGrad.outputWeights = graph.clone(weights.outputWeights, poplar::DebugContext(dc, "outputWeightsGrad"));
  weightsGrad.biases = graph.clone(weights.biases, poplar::DebugContext(dc, "biasesGrad"));
  for (const Tensor *t : {&weightsGrad.inputWeights, &weightsGrad.outputWeights, &weightsGrad.biases})
    popops::zero(graph, *t, prog, dc);

  const auto transposed = [&](const Tensor &w, BasicGruCellUnit u) { return w[at[u]].transpose(); };
  const auto product = [&](const Tensor &a, const Tensor &b) {
    return poplin::matMul(graph, a, b, prog, dc, options, planningCache);
  };
  // gradient[unit] += a^T b
  const auto accumulate = [&](const Tensor &gradient, BasicGruCellUnit u, const Tensor &a, const Tensor &b) {
    poplin::matMulAcc(graph, gradient[at[u]], 1.0f, a.transpose(), b, prog, dc, options, planningCache);
  };
  const auto accumulateBias = [&](BasicGruCellUnit u, unsigned side, const Tensor &pre) {
    const Tensor b = params.resetAfter ? weightsGrad.biases[at[u]][side] : weightsGrad.biases[at[u]];
    popops::reduceWithOutput(graph, pre, b, {0}, popops::ReduceParams(popops::Operation::ADD, true), prog, dc);
  };
  const auto previousState = [&](std::size_t t) {
    if (t == 0) return fwdOutputInit;
    return params.outputFullSequence ? output[t - 1] : fwdIntermediates[t - 1][detail::outputIndex()];
  };

  Tensor dh = params.outputFullSequence ? outputGrad[steps - 1] : outputGrad;
  std::vector<Tensor> inputGrads(steps);
  for (std::size_t t = steps; t-- > 0;) {
    if (params.outputFullSequence && t + 1 < steps) dh = popops::add(graph, dh, outputGrad[t], prog, dc);
    const Tensor step = fwdIntermediates[t], x = input[t], hPrev = previousState(t);
    const Tensor r = step[detail::kResetIndex], u = step[detail::kUpdateIndex], c = step[detail::kCandidateIndex];
    // h = u h' + (1 - u) c
    const Tensor dc_ = popops::map(graph, pe::_1 * (pe::Const(1.0f) - pe::_2), {dh, u}, prog, dc);
    const Tensor du = popops::map(graph, pe::_1 * (pe::_2 - pe::_3), {dh, hPrev, c}, prog, dc);
    const Tensor cPre = nonLinearityInputGradient(graph, params.activation, c, dc_, prog, dc);
    const Tensor uPre = nonLinearityInputGradient(graph, params.recurrentActivation, u, du, prog, dc);
    Tensor dr, dhPrev;
    if (params.resetAfter) { // c = act(x Wc + bc0 + r q), q = h' Uc + bc1
      const Tensor q = step[detail::recurrentIndex(params)];
      dr = popops::mul(graph, cPre, q, prog, dc);
      const Tensor dq = popops::mul(graph, cPre, r, prog, dc);
      dhPrev = product(dq, transposed(weights.outputWeights, BASIC_GRU_CELL_CANDIDATE));
      accumulate(weightsGrad.outputWeights, BASIC_GRU_CELL_CANDIDATE, hPrev, dq);
      accumulateBias(BASIC_GRU_CELL_CANDIDATE, 1, dq);
    } else { // c = act(x Wc + (r h') Uc + bc)
      const Tensor dResetState = product(cPre, transposed(weights.outputWeights, BASIC_GRU_CELL_CANDIDATE));
      dr = popops::mul(graph, dResetState, hPrev, prog, dc);
      dhPrev = popops::mul(graph, dResetState, r, prog, dc);
      accumulate(weightsGrad.outputWeights, BASIC_GRU_CELL_CANDIDATE, popops::mul(graph, r, hPrev, prog, dc), cPre);
    }
    const Tensor rPre = nonLinearityInputGradient(graph, params.recurrentActivation, r, dr, prog, dc);
    dhPrev = popops::map(graph, pe::_1 + pe::_2 + pe::_3 + pe::_4 * pe::_5,
                         {dhPrev, product(rPre, transposed(weights.outputWeights, BASIC_GRU_CELL_RESET_GATE)),
                          product(uPre, transposed(weights.outputWeights, BASIC_GRU_CELL_UPDATE_GATE)), dh, u},
                         prog, dc);
    if (inputGrad && params.calcInputGradients)
      inputGrads[t] = popops::map(graph, pe::_1 + pe::_2 + pe::_3,
                                  {product(rPre, transposed(weights.inputWeights, BASIC_GRU_CELL_RESET_GATE)),
                                   product(uPre, transposed(weights.inputWeights, BASIC_GRU_CELL_UPDATE_GATE)),
                                   product(cPre, transposed(weights.inputWeights, BASIC_GRU_CELL_CANDIDATE))},
                                  prog, dc)
                          .expand({0});
    const std::pair<BasicGruCellUnit, Tensor> units[] = {
        {BASIC_GRU_CELL_RESET_GATE, rPre}, {BASIC_GRU_CELL_UPDATE_GATE, uPre}, {BASIC_GRU_CELL_CANDIDATE, cPre}};
    for (const auto &unit : units) {
      accumulate(weightsGrad.inputWeights, unit.first, x, unit.second);
      accumulateBias(unit.first, 0, unit.second);
      if (unit.first == BASIC_GRU_CELL_CANDIDATE) continue;
      accumulate(weightsGrad.outputWeights, unit.first, hPrev, unit.second);
      if (params.resetAfter) accumulateBias(unit.first, 1, unit.second);
    }
    dh = dhPrev;
  }
  if (inputGrad && params.calcInputGradients) *inputGrad = poplar::concat(inputGrads);
  return dh;
}

} // namespace gru
} // namespace popnn
