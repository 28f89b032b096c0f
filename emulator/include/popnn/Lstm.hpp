#pragma once
// Long short-term memory (popnn::lstm): forward, backward and weight-update passes, with
//   f_t = recurrentActivation(x_t W_f + h_{t-1} U_f + b_f)   (and i_t, o_t alike)
//   g_t = activation(x_t W_g + h_{t-1} U_g + b_g)            (the candidate)
//   c_t = f_t o c_{t-1} + i_t o g_t,   h_t = o_t o activation(c_t)
// Weights [4][input][output] and [4][output][output], biases [4][output], in cellOrder.
//
// Emulator: the time loop is unrolled in the program; run-time step counts (an RnnParams
// with varTimeSteps) are refused; the options are those of poplibs' LSTM, accepted and not
// acted on.
#include <cstdint>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/MatMul.hpp>
#include <popnn/LstmDef.hpp>
#include <popnn/NonLinearityDef.hpp>
#include <popnn/Rnn.hpp>

namespace popnn {
namespace lstm {

// {FORGET_GATE, INPUT_GATE, CANDIDATE, OUTPUT_GATE}.
std::vector<BasicLstmCellUnit> getDefaultBasicLstmCellOrder();

struct LstmParams {
  rnn::RnnParams rnn;
  poplar::Type dataType;               // deprecated in the SDK: rnn.dataType
  std::size_t batchSize;               // deprecated: rnn.batchSize
  std::size_t timeSteps;               // deprecated: rnn.maxTimeSteps
  std::vector<std::size_t> layerSizes; // deprecated: rnn.layerSizes
  // Return every step's output [timeSteps][batch][output], else the last [batch][output].
  bool outputFullSequence = true;
  bool doInputWeightCalc = true;
  bool calcInputGradients = true;
  bool preserveFinalState = false;
  // The unit each index of the weights' and biases' outermost dimension holds.
  std::vector<BasicLstmCellUnit> cellOrder = getDefaultBasicLstmCellOrder();
  NonLinearityType activation = NonLinearityType::TANH;
  NonLinearityType recurrentActivation = NonLinearityType::SIGMOID;

  LstmParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
             std::vector<std::size_t> layerSizes, NonLinearityType activation = NonLinearityType::TANH,
             NonLinearityType recurrentActivation = NonLinearityType::SIGMOID);
  LstmParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
             const poplar::Tensor &timeSteps, std::vector<std::size_t> layerSizes,
             NonLinearityType activation = NonLinearityType::TANH,
             NonLinearityType recurrentActivation = NonLinearityType::SIGMOID);
};

// The flops of each pass: the multiply-adds of the four gates' products, two flops each
// (element-wise work is not counted). Per step and batch element: forward 8 O (I + O)
// (8 O O without doInputWeightCalc), backward 8 O (O + I) (8 O O without
// calcInputGradients), weight update 8 O (I + O).
uint64_t getBasicLstmCellFwdFlops(const LstmParams &params);
// The products the passes run for each gate and step (each once, in this order), for
// planning: forward [batch][input] x [input][output] and [batch][output] x
// [output][output]; unless opts has inferenceOnly "true", backward [batch][output] x
// [output][input] (with calcInputGradients) and weight update [input][batch] x
// [batch][output] and [output][batch] x [batch][output]. Inputs and outputs are the data
// type; the emulator's passes give their products no options, so neither do these.
std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>> getMatMulPrePlanParameters(LstmParams params,
                                                                                           poplar::OptionFlags opts);
uint64_t getBasicLstmCellBwdFlops(const LstmParams &params);
uint64_t getBasicLstmCellWuFlops(const LstmParams &params);

// The output h and cell state c, each [batch][output].
struct LstmState {
  poplar::Tensor output;
  poplar::Tensor cellState;
  // [2][batch][output]: output then cell state.
  poplar::Tensor getAsTensor() const;
};

// [timeSteps][batchSize][inputSize].
poplar::Tensor createInput(poplar::Graph &graph, const LstmParams &params, const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options = {}, poplin::PlanningCache *planningCache = nullptr);
// [batchSize][outputSize] each.
poplar::Tensor createInitialOutput(poplar::Graph &graph, const LstmParams &params,
                                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options = {},
                                   poplin::PlanningCache *planningCache = nullptr);
poplar::Tensor createInitialCellState(poplar::Graph &graph, const LstmParams &params,
                                      const poplar::DebugContext &debugContext,
                                      const poplar::OptionFlags &options = {},
                                      poplin::PlanningCache *planningCache = nullptr);
LstmState createInitialState(poplar::Graph &graph, const LstmParams &params, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options = {}, poplin::PlanningCache *planningCache = nullptr);
void zeroInitialState(poplar::Graph &graph, const LstmState &initialState, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});

struct LstmWeights {
  poplar::Tensor inputWeights;  // [4][inputSize][outputSize]
  poplar::Tensor outputWeights; // [4][outputSize][outputSize]
  poplar::Tensor biases;        // [4][outputSize]
};

std::pair<poplar::Tensor, poplar::Tensor> createWeightsKernel(poplar::Graph &graph, const LstmParams &params,
                                                              const poplar::DebugContext &debugContext,
                                                              const poplar::OptionFlags &options = {},
                                                              poplin::PlanningCache *planningCache = nullptr);
poplar::Tensor createWeightsBiases(poplar::Graph &graph, const LstmParams &params,
                                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options = {},
                                   poplin::PlanningCache *planningCache = nullptr);
LstmWeights createWeights(poplar::Graph &graph, const LstmParams &params, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options = {}, poplin::PlanningCache *planningCache = nullptr);

// The LSTM over `in` [timeSteps][batch][input] from stateInit: {the output (see
// outputFullSequence), the final cell state [batch][output]}. `intermediates`, when given,
// is set to what the backward pass takes.
std::pair<poplar::Tensor, poplar::Tensor> lstmFwd(poplar::Graph &graph, const LstmParams &params,
                                                  const LstmState &stateInit, const poplar::Tensor &in,
                                                  const LstmWeights &weights, poplar::Tensor *intermediates,
                                                  poplar::program::Sequence &fwdProg,
                                                  const poplar::DebugContext &debugContext = {},
                                                  const poplar::OptionFlags &options = {},
                                                  poplin::PlanningCache *planningCache = nullptr);

// The gradient of the initial state from the forward pass's intermediates, input and
// output and the output's gradient (plus, when given, the last step's state gradient or
// cell-state gradient); sets *inputSeqGrad (when given and calcInputGradients) and
// *bwdIntermediates (when given, for lstmWU). The activations must have gradients from
// their outputs (not GELU, GELU_ERF or SWISH).
LstmState lstmBwd(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                  const LstmState &fwdStateInit, const poplar::Tensor &fwdIntermediates, const LstmWeights &weights,
                  const poplar::Tensor &input, const poplar::Tensor &output, const poplar::Tensor &outputGrad,
                  const LstmState *lastStepStateGrad, poplar::Tensor *inputSeqGrad, poplar::Tensor *bwdIntermediates,
                  const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                  poplin::PlanningCache *planningCache = nullptr);
LstmState lstmBwd(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                  const LstmState &fwdStateInit, const poplar::Tensor &fwdIntermediates, const LstmWeights &weights,
                  const poplar::Tensor &input, const poplar::Tensor &output, const poplar::Tensor &outputGrad,
                  const poplar::Tensor *lastCellStateGrad, poplar::Tensor *inputSeqGrad,
                  poplar::Tensor *bwdIntermediates, const poplar::DebugContext &debugContext = {},
                  const poplar::OptionFlags &options = {}, poplin::PlanningCache *planningCache = nullptr);
// The weight gradients (new tensors shaped as weights) from both passes' intermediates.
LstmWeights lstmWU(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                   const LstmState &fwdStateInit, const poplar::Tensor &fwdIntermediates,
                   const poplar::Tensor &bwdIntermediates, const LstmWeights &weights, const poplar::Tensor &input,
                   const poplar::Tensor &output, const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {}, poplin::PlanningCache *planningCache = nullptr);
LstmState lstmBwdWithWU(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                        const LstmState &fwdStateInit, const poplar::Tensor &fwdIntermediates,
                        const LstmWeights &weights, const poplar::Tensor &input, const poplar::Tensor &output,
                        const poplar::Tensor &outputGrad, const LstmState *lastStepStateGrad,
                        poplar::Tensor *inputSeqGrad, LstmWeights &weightsGrad,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                        poplin::PlanningCache *planningCache = nullptr);
LstmState lstmBwdWithWU(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                        const LstmState &fwdStateInit, const poplar::Tensor &fwdIntermediates,
                        const LstmWeights &weights, const poplar::Tensor &input, const poplar::Tensor &output,
                        const poplar::Tensor &outputGrad, const poplar::Tensor *lastCellStateGrad,
                        poplar::Tensor *inputSeqGrad, LstmWeights &weightsGrad,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                        poplin::PlanningCache *planningCache = nullptr);

} // namespace lstm
} // namespace popnn
