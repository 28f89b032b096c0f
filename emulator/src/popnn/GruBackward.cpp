// The GRU's backward pass (gruBwd), weight update (gruWU) and both at once (gruBwdWithWU),
// back through the unrolled steps from the forward intermediates, with poplin products and
// popops maps. The backward intermediates passed from gruBwd to gruWU are, per step, the
// gradients of the pre-activations of r, u and c, then of the candidate's recurrent term
// with resetAfter: [timeSteps][3 or 4][batch][output].
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

constexpr std::size_t kRecurrentGradIndex = 3;

// The operands both passes check and use.
struct Pass {
  poplar::Graph &graph;
  const GruParams &params;
  poplar::program::Sequence &prog;
  const Tensor &init, &fwd, &input, &output;
  const poplar::OptionFlags &options;
  poplin::PlanningCache *cache;
  poplar::DebugContext dc;
  std::vector<std::size_t> at;

  Pass(const char *fn, poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
       const Tensor &init, const Tensor &fwd, const GruWeights &weights, const Tensor &input, const Tensor &output,
       const poplar::DebugContext &debugContext, const poplar::OptionFlags &options, poplin::PlanningCache *cache)
      : graph(graph), params(params), prog(prog), init(init), fwd(fwd), input(input), output(output),
        options(options), cache(cache), dc(debugContext, fn), at(detail::unitPositions(fn, params)) {
    const std::size_t steps = params.rnn.maxTimeSteps, batch = params.rnn.batchSize;
    const std::size_t outSize = params.rnn.layerSizes[1];
    detail::checkWeights(fn, params, weights);
    detail::checkShape(fn, "input", input, {steps, batch, params.rnn.layerSizes[0]});
    detail::checkShape(fn, "fwdOutputInit", init, {batch, outSize});
    detail::checkShape(fn, "fwdIntermediates", fwd, {steps, detail::numIntermediates(params), batch, outSize});
    detail::checkShape(fn, "output", output, stateShape());
  }

  std::vector<std::size_t> stateShape() const {
    const std::size_t batch = params.rnn.batchSize, outSize = params.rnn.layerSizes[1];
    if (params.outputFullSequence) return {params.rnn.maxTimeSteps, batch, outSize};
    return {batch, outSize};
  }
  Tensor previousState(std::size_t t) const {
    if (t == 0) return init;
    return params.outputFullSequence ? output[t - 1] : fwd[t - 1][detail::outputIndex()];
  }
  Tensor unit(const Tensor &w, BasicGruCellUnit u) const { return w[at[u]]; }
  Tensor product(const Tensor &a, const Tensor &b) const {
    return poplin::matMul(graph, a, b, prog, dc, options, cache);
  }
  Tensor mul(const Tensor &a, const Tensor &b) const { return popops::mul(graph, a, b, prog, dc); }
};

// The gradient of an activation from its output: the forward pass keeps outputs only.
void checkActivations(const char *fn, const GruParams &params) {
  for (NonLinearityType type : {params.activation, params.recurrentActivation})
    if (type == NonLinearityType::GELU || type == NonLinearityType::GELU_ERF || type == NonLinearityType::SWISH)
      throw poputil::poplibs_error(std::string(fn) + ": the activations' gradients are taken from their outputs, "
                                                     "so GELU, GELU_ERF and SWISH are supported forward only");
}

// With an attention ([batch][timeSteps]), the kept update gate is (1 - a) u: the gate's
// own gradient is taken at u = kept / (1 - a), and *attentionGrad gets -sum(du' u).
Tensor backward(const Pass &p, const GruWeights &weights, const Tensor &outputGrad, Tensor *inputGrad,
                Tensor &bwdIntermediates, const Tensor *attention = nullptr, Tensor *attentionGrad = nullptr) {
  const std::size_t steps = p.params.rnn.maxTimeSteps;
  const bool resetAfter = p.params.resetAfter;
  const auto transposed = [&](const Tensor &w, BasicGruCellUnit u) { return p.unit(w, u).transpose(); };
  Tensor dh = p.params.outputFullSequence ? outputGrad[steps - 1] : outputGrad;
  std::vector<Tensor> inputGrads(steps), kept(steps), attentionGrads(steps);
  for (std::size_t t = steps; t-- > 0;) {
    if (p.params.outputFullSequence && t + 1 < steps) dh = popops::add(p.graph, dh, outputGrad[t], p.prog, p.dc);
    const Tensor step = p.fwd[t], hPrev = p.previousState(t);
    const Tensor r = step[detail::kResetIndex], u = step[detail::kUpdateIndex], c = step[detail::kCandidateIndex];
    // h = u h' + (1 - u) c
    const Tensor dc = popops::map(p.graph, pe::_1 * (pe::Const(1.0f) - pe::_2), {dh, u}, p.prog, p.dc);
    const Tensor du = popops::map(p.graph, pe::_1 * (pe::_2 - pe::_3), {dh, hPrev, c}, p.prog, p.dc);
    const Tensor cPre = nonLinearityInputGradient(p.graph, p.params.activation, c, dc, p.prog, p.dc);
    Tensor uPre;
    if (attention) {
      const Tensor a = detail::attentionAt(*attention, t, u);
      const Tensor gate = popops::map(p.graph, pe::_1 / (pe::Const(1.0f) - pe::_2), {u, a}, p.prog, p.dc);
      const Tensor dGate = popops::map(p.graph, pe::_1 * (pe::Const(1.0f) - pe::_2), {du, a}, p.prog, p.dc);
      uPre = nonLinearityInputGradient(p.graph, p.params.recurrentActivation, gate, dGate, p.prog, p.dc);
      const Tensor product = popops::map(p.graph, -(pe::_1 * pe::_2), {du, gate}, p.prog, p.dc);
      attentionGrads[t] = popops::reduce(p.graph, product, {1}, popops::Operation::ADD, p.prog, p.dc).expand({0});
    } else {
      uPre = nonLinearityInputGradient(p.graph, p.params.recurrentActivation, u, du, p.prog, p.dc);
    }
    Tensor dr, dhPrev, dq;
    if (resetAfter) { // c = act(x Wc + bc0 + r q), q = h' Uc + bc1
      dr = p.mul(cPre, step[detail::recurrentIndex(p.params)]);
      dq = p.mul(cPre, r);
      dhPrev = p.product(dq, transposed(weights.outputWeights, BASIC_GRU_CELL_CANDIDATE));
    } else { // c = act(x Wc + (r h') Uc + bc)
      const Tensor dResetState = p.product(cPre, transposed(weights.outputWeights, BASIC_GRU_CELL_CANDIDATE));
      dr = p.mul(dResetState, hPrev);
      dhPrev = p.mul(dResetState, r);
    }
    const Tensor rPre = nonLinearityInputGradient(p.graph, p.params.recurrentActivation, r, dr, p.prog, p.dc);
    dh = popops::map(p.graph, pe::_1 + pe::_2 + pe::_3 + pe::_4 * pe::_5,
                     {dhPrev, p.product(rPre, transposed(weights.outputWeights, BASIC_GRU_CELL_RESET_GATE)),
                      p.product(uPre, transposed(weights.outputWeights, BASIC_GRU_CELL_UPDATE_GATE)), dh, u},
                     p.prog, p.dc);
    if (inputGrad && p.params.calcInputGradients)
      inputGrads[t] = popops::map(p.graph, pe::_1 + pe::_2 + pe::_3,
                                  {p.product(rPre, transposed(weights.inputWeights, BASIC_GRU_CELL_RESET_GATE)),
                                   p.product(uPre, transposed(weights.inputWeights, BASIC_GRU_CELL_UPDATE_GATE)),
                                   p.product(cPre, transposed(weights.inputWeights, BASIC_GRU_CELL_CANDIDATE))},
                                  p.prog, p.dc)
                          .expand({0});
    std::vector<Tensor> grads = {rPre.expand({0}), uPre.expand({0}), cPre.expand({0})};
    if (resetAfter) grads.push_back(dq.expand({0}));
    kept[t] = poplar::concat(grads).expand({0});
  }
  if (inputGrad && p.params.calcInputGradients) *inputGrad = poplar::concat(inputGrads);
  if (attention && attentionGrad) *attentionGrad = poplar::concat(attentionGrads).transpose();
  bwdIntermediates = poplar::concat(kept);
  return dh;
}

GruWeights weightUpdate(const Pass &p, const GruWeights &weights, const Tensor &bwd) {
  detail::checkShape("gruWU", "bwdIntermediates", bwd,
                     {p.params.rnn.maxTimeSteps, p.params.resetAfter ? 4u : 3u, p.params.rnn.batchSize,
                      p.params.rnn.layerSizes[1]});
  GruWeights grads;
  grads.inputWeights = p.graph.clone(weights.inputWeights, poplar::DebugContext(p.dc, "inputWeightsGrad"));
  grads.outputWeights = p.graph.clone(weights.outputWeights, poplar::DebugContext(p.dc, "outputWeightsGrad"));
  grads.biases = p.graph.clone(weights.biases, poplar::DebugContext(p.dc, "biasesGrad"));
  for (const Tensor *t : {&grads.inputWeights, &grads.outputWeights, &grads.biases})
    popops::zero(p.graph, *t, p.prog, p.dc);
  // gradient[unit] += a^T b
  const auto accumulate = [&](const Tensor &gradient, BasicGruCellUnit u, const Tensor &a, const Tensor &b) {
    poplin::matMulAcc(p.graph, p.unit(gradient, u), 1.0f, a.transpose(), b, p.prog, p.dc, p.options, p.cache);
  };
  const auto accumulateBias = [&](BasicGruCellUnit u, unsigned side, const Tensor &pre) {
    const Tensor b = p.params.resetAfter ? p.unit(grads.biases, u)[side] : p.unit(grads.biases, u);
    popops::reduceWithOutput(p.graph, pre, b, {0}, popops::ReduceParams(popops::Operation::ADD, true), p.prog,
                             p.dc);
  };
  for (std::size_t t = 0; t < p.params.rnn.maxTimeSteps; ++t) {
    const Tensor x = p.input[t], hPrev = p.previousState(t), step = bwd[t];
    const BasicGruCellUnit units[] = {BASIC_GRU_CELL_RESET_GATE, BASIC_GRU_CELL_UPDATE_GATE, BASIC_GRU_CELL_CANDIDATE};
    for (BasicGruCellUnit u : units) {
      const Tensor pre = step[u]; // the gradients are kept in unit order
      accumulate(grads.inputWeights, u, x, pre);
      accumulateBias(u, 0, pre);
      if (u != BASIC_GRU_CELL_CANDIDATE) {
        accumulate(grads.outputWeights, u, hPrev, pre);
        if (p.params.resetAfter) accumulateBias(u, 1, pre);
      }
    }
    if (p.params.resetAfter) {
      accumulate(grads.outputWeights, BASIC_GRU_CELL_CANDIDATE, hPrev, step[kRecurrentGradIndex]);
      accumulateBias(BASIC_GRU_CELL_CANDIDATE, 1, step[kRecurrentGradIndex]);
    } else {
      const Tensor resetState = p.mul(p.fwd[t][detail::kResetIndex], hPrev);
      accumulate(grads.outputWeights, BASIC_GRU_CELL_CANDIDATE, resetState, step[BASIC_GRU_CELL_CANDIDATE]);
    }
  }
  return grads;
}

// Each backward entry point: the checks, the backward pass (AUGRU's with attentions), then
// the backward intermediates and the weight gradients when asked for.
Tensor backwardEntry(const char *fn, poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                     const Tensor &init, const Tensor &fwd, const GruWeights &weights, const Tensor &input,
                     const Tensor &output, const char *gradName, const Tensor &outputGrad, Tensor *inputGrad,
                     Tensor *bwdIntermediates, GruWeights *weightsGrad, const Tensor *attentions,
                     Tensor *attentionsGrad, const poplar::DebugContext &debugContext,
                     const poplar::OptionFlags &options, poplin::PlanningCache *cache) {
  checkActivations(fn, params);
  const Pass pass(fn, graph, params, prog, init, fwd, weights, input, output, debugContext, options, cache);
  detail::checkShape(fn, gradName, outputGrad, pass.stateShape());
  if (attentions)
    detail::checkShape(fn, "attentions", *attentions, {params.rnn.batchSize, params.rnn.maxTimeSteps});
  Tensor kept;
  const Tensor initGrad = backward(pass, weights, outputGrad, inputGrad, kept, attentions, attentionsGrad);
  if (bwdIntermediates) *bwdIntermediates = kept;
  if (weightsGrad) *weightsGrad = weightUpdate(pass, weights, kept);
  return initGrad;
}

GruWeights weightUpdateEntry(const char *fn, poplar::Graph &graph, const GruParams &params,
                             poplar::program::Sequence &prog, const Tensor &init, const Tensor &fwd,
                             const Tensor &bwd, const GruWeights &weights, const Tensor &input, const Tensor &output,
                             const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                             poplin::PlanningCache *cache) {
  const Pass pass(fn, graph, params, prog, init, fwd, weights, input, output, debugContext, options, cache);
  return weightUpdate(pass, weights, bwd);
}

} // namespace

Tensor gruBwd(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
              const Tensor &fwdOutputInit, const Tensor &fwdIntermediatesSeq, const GruWeights &weights,
              const Tensor &fwdInputSeq, const Tensor &fwdOutput, const Tensor &gradLayerNext, Tensor *inputGrad,
              Tensor *bwdIntermediates, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &options, poplin::PlanningCache *planningCache) {
  return backwardEntry("gruBwd", graph, params, prog, fwdOutputInit, fwdIntermediatesSeq, weights, fwdInputSeq,
                       fwdOutput, "gradLayerNext", gradLayerNext, inputGrad, bwdIntermediates, nullptr, nullptr,
                       nullptr, debugContext, options, planningCache);
}

GruWeights gruWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                 const Tensor &fwdOutputInit, const Tensor &fwdIntermediates, const Tensor &bwdIntermediates,
                 const GruWeights &weights, const Tensor &input, const Tensor &output,
                 const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                 poplin::PlanningCache *planningCache) {
  return weightUpdateEntry("gruWU", graph, params, prog, fwdOutputInit, fwdIntermediates, bwdIntermediates, weights,
                           input, output, debugContext, options, planningCache);
}

Tensor gruBwdWithWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                    const Tensor &fwdOutputInit, const Tensor &fwdIntermediates, const GruWeights &weights,
                    const Tensor &input, const Tensor &output, const Tensor &outputGrad, Tensor *inputGrad,
                    GruWeights &weightsGrad, const poplar::DebugContext &debugContext,
                    const poplar::OptionFlags &options, poplin::PlanningCache *planningCache) {
  return backwardEntry("gruBwdWithWU", graph, params, prog, fwdOutputInit, fwdIntermediates, weights, input, output,
                       "outputGrad", outputGrad, inputGrad, nullptr, &weightsGrad, nullptr, nullptr, debugContext,
                       options, planningCache);
}

Tensor auGruBwd(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                const Tensor &fwdOutputInit, const Tensor &fwdIntermediatesSeq, const GruWeights &weights,
                const Tensor &fwdInputSeq, const Tensor &fwdOutput, const Tensor &gradLayerNext, Tensor *inputGrad,
                Tensor *bwdIntermediates, const Tensor &attentions, Tensor *attentionsGrad,
                const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                poplin::PlanningCache *planningCache) {
  return backwardEntry("auGruBwd", graph, params, prog, fwdOutputInit, fwdIntermediatesSeq, weights, fwdInputSeq,
                       fwdOutput, "gradLayerNext", gradLayerNext, inputGrad, bwdIntermediates, nullptr, &attentions,
                       attentionsGrad, debugContext, options, planningCache);
}

GruWeights auGruWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                   const Tensor &fwdOutputInit, const Tensor &fwdIntermediates, const Tensor &bwdIntermediates,
                   const GruWeights &weights, const Tensor &input, const Tensor &output,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                   poplin::PlanningCache *planningCache) {
  return weightUpdateEntry("auGruWU", graph, params, prog, fwdOutputInit, fwdIntermediates, bwdIntermediates,
                           weights, input, output, debugContext, options, planningCache);
}

Tensor auGruBwdWithWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                      const Tensor &fwdOutputInit, const Tensor &fwdIntermediates, const GruWeights &weights,
                      const Tensor &input, const Tensor &output, const Tensor &outputGrad, Tensor *inputGrad,
                      GruWeights &weightsGrad, const Tensor &attentions, Tensor *attentionsGrad,
                      const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                      poplin::PlanningCache *planningCache) {
  return backwardEntry("auGruBwdWithWU", graph, params, prog, fwdOutputInit, fwdIntermediates, weights, input,
                       output, "outputGrad", outputGrad, inputGrad, nullptr, &weightsGrad, &attentions,
                       attentionsGrad, debugContext, options, planningCache);
}

} // namespace gru
} // namespace popnn
