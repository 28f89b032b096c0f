#pragma once
// The vanilla RNN layer (popnn::rnn), a step at a time or over a sequence:
//   y_s = nonLinearity(x_s Wff + y_{s-1} Wfb + b)
// with Wff [inputSize][outputSize] (weightsInput), Wfb [outputSize][outputSize]
// (weightsFeedback), b [outputSize]; states are [batchSize][outputSize].
//
// Emulator: the partials type, inferenceOnly and the planning cache do not change results.
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/MatMul.hpp>
#include <popnn/NonLinearityDef.hpp>

namespace popnn {
namespace rnn {

// The products this layer runs (each once, in this order), for planning: forward
// [numSteps * batch][input] x [input][output] (hasFeedforwardWeights) and
// [batch][output] x [output][output]; unless inferenceOnly, backward
// [batch][output] x [output][input] and weight update [input][batch] x [batch][output] and
// [output][batch] x [batch][output]. Inputs and outputs are dType; the options carry
// partialsType.
std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>>
getMatMulPrePlanParameters(std::size_t numSteps, std::size_t batchSize, std::size_t inputSize,
                           std::size_t outputSize, const poplar::Type &dType,
                           const poplar::Type &partialsType = poplar::FLOAT, bool inferenceOnly = false,
                           bool hasFeedforwardWeights = true);

// The flops of a pass over sequenceSize steps: the multiply-adds of its matrix products,
// two flops each (element-wise work is not counted). Per step and batch element:
// forward 2 O (I + O) (2 O O without weightInput), backward 2 O (O + I) (2 O O without
// calcInputGrad), weight update 2 O (I + O).
uint64_t getFwdFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize, unsigned outputSize,
                     bool weightInput = true);
uint64_t getBwdFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize, unsigned outputSize,
                     bool calcInputGrad = true);
uint64_t getWuFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize, unsigned outputSize);

// [numSteps][batchSize][inputSize].
poplar::Tensor createInput(poplar::Graph &graph, unsigned numSteps, unsigned batchSize, unsigned inputSize,
                           unsigned outputSize, const poplar::Type &dType,
                           const poplar::Type &partialsType = poplar::FLOAT, bool inferenceOnly = false,
                           const poplar::DebugContext &debugContext = {},
                           poplin::PlanningCache *planningCache = nullptr);
// [batchSize][outputSize], zeroed in prog when initState.
poplar::Tensor createFwdState(poplar::Graph &graph, const poplar::Type &dType, unsigned batchSize,
                              unsigned outputSize, poplar::program::Sequence &prog, bool initState,
                              bool inferenceOnly, const poplar::DebugContext &debugContext = {},
                              poplin::PlanningCache *planningCache = nullptr);
// The previous output in a forward state: the state itself.
poplar::Tensor getOutputFromFwdState(const poplar::Tensor &fwdState);
// [inputSize][outputSize] and [outputSize][outputSize].
poplar::Tensor createWeightsInput(poplar::Graph &graph, unsigned sequenceSize, unsigned batchSize,
                                  unsigned inputSize, unsigned outputSize, const poplar::Type &dType,
                                  const poplar::Type &partialsType = poplar::FLOAT, bool inferenceOnly = false,
                                  const poplar::DebugContext &debugContext = {},
                                  poplin::PlanningCache *planningCache = nullptr);
poplar::Tensor createWeightsFeedback(poplar::Graph &graph, unsigned batchSize, unsigned outputSize,
                                     const poplar::Type &dType, const poplar::Type &partialsType = poplar::FLOAT,
                                     bool inferenceOnly = false, const poplar::DebugContext &debugContext = {},
                                     poplin::PlanningCache *planningCache = nullptr);
// actIn [numSteps][batch][input] times weights: [numSteps][batch][output].
poplar::Tensor forwardWeightInput(poplar::Graph &graph, const poplar::Tensor &actIn, const poplar::Tensor &weights,
                                  poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                                  bool inferenceOnly = false, const poplar::DebugContext &debugContext = {},
                                  poplin::PlanningCache *planningCache = nullptr);
// The recurrence over feedFwdIn's steps from initState (the previous output): every
// step's output [numSteps][batch][output].
poplar::Tensor forwardIterate(poplar::Graph &graph, const poplar::Tensor &feedFwdIn, const poplar::Tensor &initState,
                              const poplar::Tensor &feedbackWeights, const poplar::Tensor &biases,
                              poplar::program::Sequence &prog, popnn::NonLinearityType nonLinearityType,
                              const poplar::Type &partialsType = poplar::FLOAT, bool inferenceOnly = false,
                              const poplar::DebugContext &debugContext = {},
                              poplin::PlanningCache *planningCache = nullptr);
// [batchSize][outputSize], zeroed in prog.
poplar::Tensor createBwdState(poplar::Graph &graph, const poplar::Type &dType, unsigned batchSize,
                              unsigned outputSize, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext = {},
                              poplin::PlanningCache *planningCache = nullptr);
// One step back: the state becomes nonLinearity'(actOut) o (nextLayerGrad + bwdState Wfb^T);
// returns {the gradient at the step's input, state Wff^T; the new state}.
std::pair<poplar::Tensor, poplar::Tensor>
backwardGradientStep(poplar::Graph &graph, const poplar::Tensor &nextLayerGrad, const poplar::Tensor &bwdState,
                     const poplar::Tensor &actOut, const poplar::Tensor &weightsInput,
                     const poplar::Tensor &weightsFeedback, poplar::program::Sequence &prog,
                     popnn::NonLinearityType nonLinearityType, const poplar::Type &partialsType = poplar::FLOAT,
                     const poplar::DebugContext &debugContext = {}, poplin::PlanningCache *planningCache = nullptr);
// As above, the new state alone.
poplar::Tensor backwardGradientStep(poplar::Graph &graph, const poplar::Tensor &nextLayerGrad,
                                    const poplar::Tensor &bwdState, const poplar::Tensor &actOut,
                                    const poplar::Tensor &weightsFeedback, poplar::program::Sequence &prog,
                                    popnn::NonLinearityType nonLinearityType,
                                    const poplar::Type &partialsType = poplar::FLOAT,
                                    const poplar::DebugContext &debugContext = {},
                                    poplin::PlanningCache *planningCache = nullptr);
// Adds the step's deltas: actIn^T bwdState, prevOut^T bwdState and bwdState summed over
// the batch.
void paramDeltaUpdate(poplar::Graph &graph, const poplar::Tensor &bwdState, const poplar::Tensor &actIn,
                      const poplar::Tensor &prevOut, poplar::Tensor &weightsInputDeltasAcc,
                      poplar::Tensor &weightsFeedbackDeltasAcc, poplar::Tensor &biasDeltasAcc,
                      poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                      const poplar::DebugContext &debugContext = {}, poplin::PlanningCache *planningCache = nullptr);
// The layer over prevLayerActs' steps (weighted by feedFwdWeights unless weightedIn is
// given): every step's state [numSteps][batch][output].
poplar::Tensor rnnFwdSequence(poplar::Graph &graph, poplar::program::Sequence &prog,
                              const poplar::Tensor &fwdStateInit, const poplar::Tensor *weightedIn,
                              const poplar::Tensor &biases, const poplar::Tensor &feedFwdWeights,
                              const poplar::Tensor &feedbackWeights, const poplar::Tensor &prevLayerActs,
                              const popnn::NonLinearityType &nonLinearityType, const poplar::Type &partialsType,
                              bool inferenceOnly, const poplar::DebugContext &debugContext = {},
                              poplin::PlanningCache *planningCache = nullptr);
// Back over the steps: {the input gradients [numSteps][batch][input] (invalid when
// ignoreInputGradientCalc), and with doWU the deltas of feedFwdWeights, feedbackWeights and
// biases (invalid otherwise)}.
std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor, poplar::Tensor>
rnnBwdSequence(poplar::Graph &graph, bool doWU, bool ignoreInputGradientCalc, poplar::program::Sequence &prog,
               const poplar::Tensor &fwdStateInit, const poplar::Tensor &fwdState, const poplar::Tensor &biases,
               const poplar::Tensor &feedFwdWeights, const poplar::Tensor &feedbackWeights,
               const poplar::Tensor &outGradient, const poplar::Tensor &actIn,
               const popnn::NonLinearityType &nonLinearityType, const poplar::Type &partialsType,
               const poplar::DebugContext &debugContext = {}, poplin::PlanningCache *planningCache = nullptr);

} // namespace rnn
} // namespace popnn
