// The GRU forward pass, composed of poplin matrix products and popops element-wise maps,
// one unrolled step at a time.
#include <popnn/Gru.hpp>

#include <poplin/MatMul.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <string>

#include "CellFlops.hpp"
#include "GruLayout.hpp"

namespace popnn {
namespace gru {

namespace {

using poplar::Tensor;
namespace pe = popops::expr;

std::size_t inputSize(const GruParams &p) { return p.rnn.layerSizes[0]; }
std::size_t outputSize(const GruParams &p) { return p.rnn.layerSizes[1]; }

Tensor linearVariable(poplar::Graph &graph, const GruParams &params, std::vector<std::size_t> shape,
                      const poplar::DebugContext &dc, const char *name) {
  Tensor t = graph.addVariable(params.rnn.dataType, shape, poplar::DebugContext(dc, name));
  poputil::mapTensorLinearly(graph, t);
  return t;
}

} // namespace

const std::vector<BasicGruCellUnit> getDefaultBasicGruCellOrder() {
  return {BASIC_GRU_CELL_RESET_GATE, BASIC_GRU_CELL_UPDATE_GATE, BASIC_GRU_CELL_CANDIDATE};
}

GruParams::GruParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
                     std::vector<std::size_t> layerSizes, NonLinearityType activation,
                     NonLinearityType recurrentActivation)
    : rnn(dataType, batchSize, timeSteps, layerSizes), dataType(dataType), batchSize(batchSize),
      timeSteps(timeSteps), layerSizes(layerSizes), activation(activation),
      recurrentActivation(recurrentActivation) {}

GruParams::GruParams(const GruParams &other) = default;

Tensor createInput(poplar::Graph &graph, const GruParams &params, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &, poplin::PlanningCache *) {
  return rnn::createInputTensor(graph, params.rnn, 1, poplar::DebugContext(debugContext, "gru"));
}

Tensor createInitialState(poplar::Graph &graph, const GruParams &params, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &, poplin::PlanningCache *) {
  return rnn::createInitialState(graph, params.rnn, true, 1, 1, poplar::DebugContext(debugContext, "gru"))[0];
}

// Each unit's [in, out] and [out, out] matrices in plain rows: the forward multiplies by W[u]
// and the backward by W[u]^T, and both products read plain rows where they lie (the few-rows
// kernel takes a transposed B too); the column panels createMatMulGroupedInputRHS gives a
// wide B for few rows would leave the backward's W[u]^T to be gathered at every step.
std::pair<Tensor, Tensor> createWeightsKernel(poplar::Graph &graph, const GruParams &params,
                                              const poplar::DebugContext &debugContext, const poplar::OptionFlags &,
                                              poplin::PlanningCache *) {
  return {linearVariable(graph, params, {BASIC_GRU_CELL_NUM_UNITS, inputSize(params), outputSize(params)},
                         debugContext, "inputWeights"),
          linearVariable(graph, params, {BASIC_GRU_CELL_NUM_UNITS, outputSize(params), outputSize(params)},
                         debugContext, "outputWeights")};
}

Tensor createWeightsBiases(poplar::Graph &graph, const GruParams &params, const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &, poplin::PlanningCache *) {
  if (params.resetAfter)
    return linearVariable(graph, params, {BASIC_GRU_CELL_NUM_UNITS, 2, outputSize(params)}, debugContext, "biases");
  return linearVariable(graph, params, {BASIC_GRU_CELL_NUM_UNITS, outputSize(params)}, debugContext, "biases");
}

GruWeights createWeights(poplar::Graph &graph, const GruParams &params, const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options, poplin::PlanningCache *planningCache) {
  GruWeights w;
  std::tie(w.inputWeights, w.outputWeights) =
      createWeightsKernel(graph, params, debugContext, options, planningCache);
  w.biases = createWeightsBiases(graph, params, debugContext, options, planningCache);
  return w;
}

Tensor createAttention(poplar::Graph &graph, const GruParams &params, const poplar::DebugContext &debugContext,
                       const poplar::OptionFlags &) {
  return rnn::createRecurrentTensor(graph, params.rnn, 1, 1, poplar::DebugContext(debugContext, "attention"))
      .squeeze({2})
      .transpose();
}

namespace {

// gruFwd, and AUGRU's when `attention` ([batch][timeSteps]) is given.
Tensor gruForward(const char *fn, poplar::Graph &graph, const GruParams &params, const Tensor &stateInit,
               const Tensor &in, const GruWeights &weights, Tensor *intermediates, const Tensor *attention,
               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
               const poplar::OptionFlags &options) {
  const std::size_t steps = params.rnn.maxTimeSteps, batch = params.rnn.batchSize;
  detail::checkShape(fn, "in", in, {steps, batch, inputSize(params)});
  detail::checkShape(fn, "stateInit", stateInit, {batch, outputSize(params)});
  detail::checkWeights(fn, params, weights);
  if (attention) detail::checkShape(fn, "attScores", *attention, {batch, steps});
  const std::vector<std::size_t> at = detail::unitPositions(fn, params);
  const poplar::DebugContext dc(debugContext, fn);

  // Per unit, the bias (both of r's and u's with resetAfter) and, with resetAfter, the
  // candidate's recurrent bias, as [batch][output] broadcasts.
  const auto rows = [&](const Tensor &b) { return b.expand({0}).broadcast(static_cast<unsigned>(batch), 0); };
  const auto bias = [&](BasicGruCellUnit u, unsigned side) {
    return rows(params.resetAfter ? weights.biases[at[u]][side] : weights.biases[at[u]]);
  };
  const auto product = [&](const Tensor &x, const Tensor &w, BasicGruCellUnit u) {
    return poplin::matMul(graph, x, w[at[u]], prog, dc, options);
  };
  const auto gate = [&](const Tensor &x, const Tensor &h, BasicGruCellUnit u) {
    Tensor pre = popops::map(graph, pe::_1 + pe::_2 + pe::_3,
                             {product(x, weights.inputWeights, u), product(h, weights.outputWeights, u), bias(u, 0)},
                             prog, dc);
    if (params.resetAfter) popops::addInPlace(graph, pre, bias(u, 1), prog, dc);
    return popnn::nonLinearity(graph, params.recurrentActivation, pre, prog, dc);
  };

  Tensor h = stateInit;
  std::vector<Tensor> outputs, kept;
  for (std::size_t t = 0; t < steps; ++t) {
    const Tensor x = in[t];
    const Tensor r = gate(x, h, BASIC_GRU_CELL_RESET_GATE);
    Tensor u = gate(x, h, BASIC_GRU_CELL_UPDATE_GATE);
    if (attention)
      popops::mapInPlace(graph, pe::_1 * (pe::Const(1.0f) - pe::_2), {u, detail::attentionAt(*attention, t, u)},
                         prog, dc);
    const Tensor xc = product(x, weights.inputWeights, BASIC_GRU_CELL_CANDIDATE);
    Tensor candidate, recurrent;
    if (params.resetAfter) {
      recurrent = popops::add(graph, product(h, weights.outputWeights, BASIC_GRU_CELL_CANDIDATE),
                              bias(BASIC_GRU_CELL_CANDIDATE, 1), prog, dc);
      candidate = popops::map(graph, pe::_1 + pe::_2 + pe::_3 * pe::_4,
                              {xc, bias(BASIC_GRU_CELL_CANDIDATE, 0), r, recurrent}, prog, dc);
    } else {
      const Tensor resetState = popops::mul(graph, r, h, prog, dc);
      candidate = popops::map(graph, pe::_1 + pe::_2 + pe::_3,
                              {xc, product(resetState, weights.outputWeights, BASIC_GRU_CELL_CANDIDATE),
                               bias(BASIC_GRU_CELL_CANDIDATE, 0)},
                              prog, dc);
    }
    popnn::nonLinearityInPlace(graph, params.activation, candidate, prog, dc);
    h = popops::map(graph, pe::_1 * pe::_2 + (pe::Const(1.0f) - pe::_1) * pe::_3, {u, h, candidate}, prog, dc);
    outputs.push_back(h.expand({0}));
    std::vector<Tensor> step = {r.expand({0}), u.expand({0}), candidate.expand({0})};
    if (!params.outputFullSequence) step.push_back(h.expand({0}));
    if (params.resetAfter) step.push_back(recurrent.expand({0}));
    kept.push_back(poplar::concat(step).expand({0}));
  }
  if (intermediates) *intermediates = poplar::concat(kept);
  return params.outputFullSequence ? poplar::concat(outputs) : h;
}

} // namespace

Tensor gruFwd(poplar::Graph &graph, const GruParams &params, const Tensor &stateInit, const Tensor &in,
              const GruWeights &weights, Tensor *intermediates, poplar::program::Sequence &prog,
              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
              poplin::PlanningCache *) {
  return gruForward("gruFwd", graph, params, stateInit, in, weights, intermediates, nullptr, prog, debugContext,
                    options);
}

Tensor auGruFwd(poplar::Graph &graph, const GruParams &params, const Tensor &stateInit, const Tensor &in,
                const GruWeights &weights, Tensor *intermediates, const Tensor &attScores,
                poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                const poplar::OptionFlags &options, poplin::PlanningCache *) {
  return gruForward("auGruFwd", graph, params, stateInit, in, weights, intermediates, &attScores, prog,
                    debugContext, options);
}

uint64_t getBasicGruCellFwdFlops(const GruParams &params) {
  return gatedCellFlops(params.rnn, BASIC_GRU_CELL_NUM_UNITS, true);
}
uint64_t getBasicGruCellBwdFlops(const GruParams &params) {
  return gatedCellFlops(params.rnn, BASIC_GRU_CELL_NUM_UNITS, params.calcInputGradients);
}
uint64_t getBasicGruCellWuFlops(const GruParams &params) {
  return gatedCellFlops(params.rnn, BASIC_GRU_CELL_NUM_UNITS, true);
}

} // namespace gru
} // namespace popnn
