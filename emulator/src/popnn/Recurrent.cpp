// popnn/Recurrent.hpp: the vanilla RNN's steps as poplin products and popops maps; the
// sequence forms unroll the steps.
#include <popnn/Recurrent.hpp>

#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <string>
#include <vector>

namespace popnn {
namespace rnn {

namespace {

using poplar::Tensor;

Tensor rnnVariable(poplar::Graph &graph, const poplar::Type &type, std::vector<std::size_t> shape,
                   const poplar::DebugContext &dc, const char *name) {
  Tensor t = graph.addVariable(type, shape, poplar::DebugContext(dc, name));
  poputil::mapTensorLinearly(graph, t);
  return t;
}

void checkRank(const char *fn, const char *what, const Tensor &t, unsigned rank) {
  if (!t.valid() || t.rank() != rank)
    throw poputil::poplibs_error(std::string(fn) + ": " + what + " must have rank " + std::to_string(rank));
}

using Shape = std::vector<std::size_t>;

// The flops of one [m][k] x [k][n] product.
uint64_t productFlops(uint64_t m, uint64_t k, uint64_t n) { return 2 * m * k * n; }

} // namespace

std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>>
getMatMulPrePlanParameters(std::size_t numSteps, std::size_t batchSize, std::size_t inputSize,
                           std::size_t outputSize, const poplar::Type &dType, const poplar::Type &partialsType,
                           bool inferenceOnly, bool hasFeedforwardWeights) {
  if (partialsType != poplar::FLOAT && partialsType != poplar::HALF)
    throw poputil::poplibs_error("rnn::getMatMulPrePlanParameters: partialsType " + partialsType.toString().str() +
                                 " must be FLOAT or HALF");
  const poplar::OptionFlags options{{"partialsType", partialsType == poplar::HALF ? "half" : "float"}};
  std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>> products;
  auto add = [&](Shape a, Shape b) { products.push_back({poplin::MatMulParams{dType, dType, a, b}, options}); };
  if (hasFeedforwardWeights) add({numSteps * batchSize, inputSize}, {inputSize, outputSize});
  add({batchSize, outputSize}, {outputSize, outputSize});
  if (!inferenceOnly) {
    add({batchSize, outputSize}, {outputSize, inputSize});
    add({inputSize, batchSize}, {batchSize, outputSize});
    add({outputSize, batchSize}, {batchSize, outputSize});
  }
  return products;
}

uint64_t getFwdFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize, unsigned outputSize,
                     bool weightInput) {
  const uint64_t rows = uint64_t(sequenceSize) * batchSize;
  return (weightInput ? productFlops(rows, inputSize, outputSize) : 0) + productFlops(rows, outputSize, outputSize);
}

uint64_t getBwdFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize, unsigned outputSize,
                     bool calcInputGrad) {
  const uint64_t rows = uint64_t(sequenceSize) * batchSize;
  return productFlops(rows, outputSize, outputSize) + (calcInputGrad ? productFlops(rows, outputSize, inputSize) : 0);
}

uint64_t getWuFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize, unsigned outputSize) {
  const uint64_t rows = uint64_t(sequenceSize) * batchSize;
  return productFlops(inputSize, rows, outputSize) + productFlops(outputSize, rows, outputSize);
}

Tensor createInput(poplar::Graph &graph, unsigned numSteps, unsigned batchSize, unsigned inputSize, unsigned,
                   const poplar::Type &dType, const poplar::Type &, bool, const poplar::DebugContext &debugContext,
                   poplin::PlanningCache *) {
  return rnnVariable(graph, dType, {numSteps, batchSize, inputSize}, debugContext, "input");
}

Tensor createFwdState(poplar::Graph &graph, const poplar::Type &dType, unsigned batchSize, unsigned outputSize,
                      poplar::program::Sequence &prog, bool initState, bool, const poplar::DebugContext &debugContext,
                      poplin::PlanningCache *) {
  Tensor state = rnnVariable(graph, dType, {batchSize, outputSize}, debugContext, "fwdState");
  if (initState) popops::zero(graph, state, prog, debugContext);
  return state;
}

Tensor getOutputFromFwdState(const Tensor &fwdState) { return fwdState; }

Tensor createWeightsInput(poplar::Graph &graph, unsigned, unsigned, unsigned inputSize, unsigned outputSize,
                          const poplar::Type &dType, const poplar::Type &, bool,
                          const poplar::DebugContext &debugContext, poplin::PlanningCache *) {
  return rnnVariable(graph, dType, {inputSize, outputSize}, debugContext, "weightsInput");
}

Tensor createWeightsFeedback(poplar::Graph &graph, unsigned, unsigned outputSize, const poplar::Type &dType,
                             const poplar::Type &, bool, const poplar::DebugContext &debugContext,
                             poplin::PlanningCache *) {
  return rnnVariable(graph, dType, {outputSize, outputSize}, debugContext, "weightsFeedback");
}

Tensor forwardWeightInput(poplar::Graph &graph, const Tensor &actIn, const Tensor &weights,
                          poplar::program::Sequence &prog, const poplar::Type &, bool,
                          const poplar::DebugContext &debugContext, poplin::PlanningCache *cache) {
  checkRank("forwardWeightInput", "actIn", actIn, 3);
  const Tensor flat = actIn.reshape({actIn.dim(0) * actIn.dim(1), actIn.dim(2)});
  const Tensor product = poplin::matMul(graph, flat, weights, prog, debugContext, {}, cache);
  return product.reshape({actIn.dim(0), actIn.dim(1), product.dim(1)});
}

Tensor forwardIterate(poplar::Graph &graph, const Tensor &feedFwdIn, const Tensor &initState,
                      const Tensor &feedbackWeights, const Tensor &biases, poplar::program::Sequence &prog,
                      popnn::NonLinearityType nonLinearityType, const poplar::Type &, bool,
                      const poplar::DebugContext &debugContext, poplin::PlanningCache *cache) {
  checkRank("forwardIterate", "feedFwdIn", feedFwdIn, 3);
  checkRank("forwardIterate", "initState", initState, 2);
  const Tensor bias = biases.expand({0}).broadcast(static_cast<unsigned>(feedFwdIn.dim(1)), 0);
  std::vector<Tensor> outputs;
  Tensor y = initState;
  for (std::size_t s = 0; s < feedFwdIn.dim(0); ++s) {
    y = poplin::matMul(graph, y, feedbackWeights, prog, debugContext, {}, cache);
    popops::addInPlace(graph, y, feedFwdIn[s], prog, debugContext);
    popops::addInPlace(graph, y, bias, prog, debugContext);
    popnn::nonLinearityInPlace(graph, nonLinearityType, y, prog, debugContext);
    outputs.push_back(y.expand({0}));
  }
  return poplar::concat(outputs);
}

Tensor createBwdState(poplar::Graph &graph, const poplar::Type &dType, unsigned batchSize, unsigned outputSize,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                      poplin::PlanningCache *) {
  Tensor state = rnnVariable(graph, dType, {batchSize, outputSize}, debugContext, "bwdState");
  popops::zero(graph, state, prog, debugContext);
  return state;
}

Tensor backwardGradientStep(poplar::Graph &graph, const Tensor &nextLayerGrad, const Tensor &bwdState,
                            const Tensor &actOut, const Tensor &weightsFeedback, poplar::program::Sequence &prog,
                            popnn::NonLinearityType nonLinearityType, const poplar::Type &,
                            const poplar::DebugContext &debugContext, poplin::PlanningCache *cache) {
  Tensor t = poplin::matMul(graph, bwdState, weightsFeedback.transpose(), prog, debugContext, {}, cache);
  popops::addInPlace(graph, t, nextLayerGrad, prog, debugContext);
  return nonLinearityInputGradient(graph, nonLinearityType, actOut, t, prog, debugContext);
}

std::pair<Tensor, Tensor> backwardGradientStep(poplar::Graph &graph, const Tensor &nextLayerGrad,
                                               const Tensor &bwdState, const Tensor &actOut,
                                               const Tensor &weightsInput, const Tensor &weightsFeedback,
                                               poplar::program::Sequence &prog,
                                               popnn::NonLinearityType nonLinearityType,
                                               const poplar::Type &partialsType,
                                               const poplar::DebugContext &debugContext,
                                               poplin::PlanningCache *cache) {
  const Tensor state = backwardGradientStep(graph, nextLayerGrad, bwdState, actOut, weightsFeedback, prog,
                                            nonLinearityType, partialsType, debugContext, cache);
  return {poplin::matMul(graph, state, weightsInput.transpose(), prog, debugContext, {}, cache), state};
}

void paramDeltaUpdate(poplar::Graph &graph, const Tensor &bwdState, const Tensor &actIn, const Tensor &prevOut,
                      Tensor &weightsInputDeltasAcc, Tensor &weightsFeedbackDeltasAcc, Tensor &biasDeltasAcc,
                      poplar::program::Sequence &prog, const poplar::Type &, const poplar::DebugContext &debugContext,
                      poplin::PlanningCache *cache) {
  poplin::matMulAcc(graph, weightsInputDeltasAcc, 1.0f, actIn.transpose(), bwdState, prog, debugContext, {}, cache);
  poplin::matMulAcc(graph, weightsFeedbackDeltasAcc, 1.0f, prevOut.transpose(), bwdState, prog, debugContext, {},
                    cache);
  popops::reduceWithOutput(graph, bwdState, biasDeltasAcc, {0}, popops::ReduceParams(popops::Operation::ADD, true),
                           prog, debugContext);
}

Tensor rnnFwdSequence(poplar::Graph &graph, poplar::program::Sequence &prog, const Tensor &fwdStateInit,
                      const Tensor *weightedIn, const Tensor &biases, const Tensor &feedFwdWeights,
                      const Tensor &feedbackWeights, const Tensor &prevLayerActs,
                      const popnn::NonLinearityType &nonLinearityType, const poplar::Type &partialsType,
                      bool inferenceOnly, const poplar::DebugContext &debugContext, poplin::PlanningCache *cache) {
  const Tensor in = weightedIn ? *weightedIn
                               : forwardWeightInput(graph, prevLayerActs, feedFwdWeights, prog, partialsType,
                                                    inferenceOnly, debugContext, cache);
  return forwardIterate(graph, in, fwdStateInit, feedbackWeights, biases, prog, nonLinearityType, partialsType,
                        inferenceOnly, debugContext, cache);
}

std::tuple<Tensor, Tensor, Tensor, Tensor>
rnnBwdSequence(poplar::Graph &graph, bool doWU, bool ignoreInputGradientCalc, poplar::program::Sequence &prog,
               const Tensor &fwdStateInit, const Tensor &fwdState, const Tensor &biases, const Tensor &feedFwdWeights,
               const Tensor &feedbackWeights, const Tensor &outGradient, const Tensor &actIn,
               const popnn::NonLinearityType &nonLinearityType, const poplar::Type &partialsType,
               const poplar::DebugContext &debugContext, poplin::PlanningCache *cache) {
  checkRank("rnnBwdSequence", "fwdState", fwdState, 3);
  const std::size_t steps = fwdState.dim(0);
  Tensor inputDeltas, feedbackDeltas, biasDeltas;
  if (doWU) {
    inputDeltas = graph.clone(feedFwdWeights, poplar::DebugContext(debugContext, "feedFwdWeightsDelta"));
    feedbackDeltas = graph.clone(feedbackWeights, poplar::DebugContext(debugContext, "feedbackWeightsDelta"));
    biasDeltas = graph.clone(biases, poplar::DebugContext(debugContext, "biasesDelta"));
    for (const Tensor *t : {&inputDeltas, &feedbackDeltas, &biasDeltas}) popops::zero(graph, *t, prog, debugContext);
  }
  Tensor state = createBwdState(graph, fwdState.elementType(), static_cast<unsigned>(fwdState.dim(1)),
                                static_cast<unsigned>(fwdState.dim(2)), prog, debugContext, cache);
  std::vector<Tensor> inputGrads(steps);
  for (std::size_t s = steps; s-- > 0;) {
    if (ignoreInputGradientCalc) {
      state = backwardGradientStep(graph, outGradient[s], state, fwdState[s], feedbackWeights, prog,
                                   nonLinearityType, partialsType, debugContext, cache);
    } else {
      Tensor gradient;
      std::tie(gradient, state) = backwardGradientStep(graph, outGradient[s], state, fwdState[s], feedFwdWeights,
                                                       feedbackWeights, prog, nonLinearityType, partialsType,
                                                       debugContext, cache);
      inputGrads[s] = gradient.expand({0});
    }
    if (doWU)
      paramDeltaUpdate(graph, state, actIn[s], s == 0 ? fwdStateInit : fwdState[s - 1], inputDeltas, feedbackDeltas,
                       biasDeltas, prog, partialsType, debugContext, cache);
  }
  return std::make_tuple(ignoreInputGradientCalc ? Tensor() : poplar::concat(inputGrads), inputDeltas,
                         feedbackDeltas, biasDeltas);
}

} // namespace rnn
} // namespace popnn
