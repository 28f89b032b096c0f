#pragma once
// Gated recurrent units (popnn::gru): forward, backward and weight-update passes, with
//   r_t = recurrentActivation(x_t W_r + h_{t-1} U_r + b_r)
//   u_t = recurrentActivation(x_t W_u + h_{t-1} U_u + b_u)
//   c_t = activation(x_t W_c + (r_t o h_{t-1}) U_c + b_c)
//   h_t = u_t o h_{t-1} + (1 - u_t) o c_t
// and with resetAfter, c_t = activation(x_t W_c + b_c[0] + r_t o (h_{t-1} U_c + b_c[1])),
// where the r and u gates add both of their biases.
//
// AUGRU scales the update gate by the step's attention a_t (per batch element) before it
// is used: u_t = (1 - a_t) u_t, and its intermediates keep that scaled gate.
//
// Emulator: run-time step counts are not provided yet. The time loops are unrolled in
// the program.
#include <cstdint>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/MatMul.hpp>
#include <popnn/GruDef.hpp>
#include <popnn/NonLinearityDef.hpp>
#include <popnn/Rnn.hpp>

namespace popnn {
namespace gru {

// {RESET_GATE, UPDATE_GATE, CANDIDATE}.
const std::vector<BasicGruCellUnit> getDefaultBasicGruCellOrder();

struct GruParams {
  rnn::RnnParams rnn;
  poplar::Type dataType;              // deprecated in the SDK: rnn.dataType
  std::size_t batchSize;              // deprecated: rnn.batchSize
  std::size_t timeSteps;              // deprecated: rnn.maxTimeSteps
  std::vector<std::size_t> layerSizes; // deprecated: rnn.layerSizes
  // Return every step's output [timeSteps][batch][output], else the last [batch][output].
  bool outputFullSequence = true;
  bool calcInputGradients = true;
  // The unit each index of the weights' and biases' outermost dimension holds.
  std::vector<BasicGruCellUnit> cellOrder = getDefaultBasicGruCellOrder();
  // Apply the reset gate after the candidate's recurrent weights (biases [3][2][output]).
  bool resetAfter = false;
  NonLinearityType activation = NonLinearityType::TANH;
  NonLinearityType recurrentActivation = NonLinearityType::SIGMOID;

  GruParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
            std::vector<std::size_t> layerSizes, NonLinearityType activation = NonLinearityType::TANH,
            NonLinearityType recurrentActivation = NonLinearityType::SIGMOID);
  GruParams(const GruParams &other);
};

// The flops of each pass: the multiply-adds of the three gates' products, two flops each
// (element-wise work is not counted). Per step and batch element: forward 6 O (I + O),
// backward 6 O (O + I) (6 O O without calcInputGradients), weight update 6 O (I + O).
uint64_t getBasicGruCellFwdFlops(const GruParams &params);
uint64_t getBasicGruCellBwdFlops(const GruParams &params);
uint64_t getBasicGruCellWuFlops(const GruParams &params);

// [timeSteps][batchSize][inputSize].
poplar::Tensor createInput(poplar::Graph &graph, const GruParams &params, const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options = {},
                           poplin::PlanningCache *planningCache = nullptr);
// [batchSize][outputSize].
poplar::Tensor createInitialState(poplar::Graph &graph, const GruParams &params,
                                  const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                                  poplin::PlanningCache *cache);

struct GruWeights {
  poplar::Tensor inputWeights;  // [3][inputSize][outputSize]
  poplar::Tensor outputWeights; // [3][outputSize][outputSize]
  poplar::Tensor biases;        // [3][outputSize], or [3][2][outputSize] (input, recurrent) with resetAfter
};

std::pair<poplar::Tensor, poplar::Tensor> createWeightsKernel(poplar::Graph &graph, const GruParams &params,
                                                              const poplar::DebugContext &debugContext,
                                                              const poplar::OptionFlags &options = {},
                                                              poplin::PlanningCache *planningCache = nullptr);
poplar::Tensor createWeightsBiases(poplar::Graph &graph, const GruParams &params,
                                   const poplar::DebugContext &debugContext,
                                   const poplar::OptionFlags &options = {},
                                   poplin::PlanningCache *planningCache = nullptr);
GruWeights createWeights(poplar::Graph &graph, const GruParams &params, const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options = {},
                         poplin::PlanningCache *planningCache = nullptr);

// The attention of AUGRU, [batchSize][timeSteps].
poplar::Tensor createAttention(poplar::Graph &graph, const GruParams &params, const poplar::DebugContext &debugContext,
                               const poplar::OptionFlags &options = {});

// The GRU over `in` [timeSteps][batch][input] from stateInit [batch][output]; see the top.
// `intermediates`, when given, is set to [timeSteps][n][batch][output]: r, u, c, then the
// step's output unless outputFullSequence, then the candidate's recurrent term h U_c + b_c[1] with resetAfter.
poplar::Tensor gruFwd(poplar::Graph &graph, const GruParams &params, const poplar::Tensor &stateInit,
                      const poplar::Tensor &in, const GruWeights &weights, poplar::Tensor *intermediates,
                      poplar::program::Sequence &fwdProg, const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, poplin::PlanningCache *planningCache = nullptr);

// From the forward pass's intermediates, input and output and the gradient of its output:
// sets weightsGrad (new tensors shaped as weights) to the loss's gradient with respect to
// the weights, *inputGrad (when given and calcInputGradients) to the input's, and returns
// the initial state's. The activations must have gradients from their outputs (not GELU,
// GELU_ERF or SWISH).
// The backward pass alone: returns the initial state's gradient, sets *inputGrad as
// gruBwdWithWU does and *bwdIntermediates (when given) to what gruWU takes.
poplar::Tensor gruBwd(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                      const poplar::Tensor &fwdOutputInit, const poplar::Tensor &fwdIntermediatesSeq,
                      const GruWeights &weights, const poplar::Tensor &fwdInputSeq, const poplar::Tensor &fwdOutput,
                      const poplar::Tensor &gradLayerNext, poplar::Tensor *inputGrad,
                      poplar::Tensor *bwdIntermediates, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options_, poplin::PlanningCache *planningCache);
// The weight gradients (new tensors shaped as weights) from both passes' intermediates.
GruWeights gruWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                 const poplar::Tensor &fwdOutputInit, const poplar::Tensor &fwdIntermediates,
                 const poplar::Tensor &bwdIntermediates, const GruWeights &weights, const poplar::Tensor &input,
                 const poplar::Tensor &output, const poplar::DebugContext &debugContext,
                 const poplar::OptionFlags &options_, poplin::PlanningCache *planningCache);
poplar::Tensor gruBwdWithWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                            const poplar::Tensor &fwdOutputInit, const poplar::Tensor &fwdIntermediates,
                            const GruWeights &weights, const poplar::Tensor &input, const poplar::Tensor &output,
                            const poplar::Tensor &outputGrad, poplar::Tensor *inputGrad, GruWeights &weightsGrad,
                            const poplar::DebugContext &debugContext, const poplar::OptionFlags &options_,
                            poplin::PlanningCache *planningCache);

// AUGRU: as gruFwd with the attention attScores [batch][timeSteps] (see the top).
poplar::Tensor auGruFwd(poplar::Graph &graph, const GruParams &params, const poplar::Tensor &stateInit,
                        const poplar::Tensor &in, const GruWeights &weights, poplar::Tensor *intermediates,
                        const poplar::Tensor &attScores, poplar::program::Sequence &fwdProg,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                        poplin::PlanningCache *planningCache = nullptr);
// AUGRU's backward pass, as gruBwd, also setting *attentionsGrad (when given) to the
// attention's gradient [batch][timeSteps].
poplar::Tensor auGruBwd(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                        const poplar::Tensor &fwdOutputInit, const poplar::Tensor &fwdIntermediatesSeq,
                        const GruWeights &weights, const poplar::Tensor &fwdInputSeq,
                        const poplar::Tensor &fwdOutput, const poplar::Tensor &gradLayerNext,
                        poplar::Tensor *inputGrad, poplar::Tensor *bwdIntermediates,
                        const poplar::Tensor &attentions, poplar::Tensor *attentionsGrad,
                        const poplar::DebugContext &debugContext, const poplar::OptionFlags &options_,
                        poplin::PlanningCache *planningCache);
// AUGRU's weight update: the same as gruWU's (the attention enters through the backward
// intermediates).
GruWeights auGruWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                   const poplar::Tensor &fwdOutputInit, const poplar::Tensor &fwdIntermediates,
                   const poplar::Tensor &bwdIntermediates, const GruWeights &weights, const poplar::Tensor &input,
                   const poplar::Tensor &output, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options_, poplin::PlanningCache *planningCache);
poplar::Tensor auGruBwdWithWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                              const poplar::Tensor &fwdOutputInit, const poplar::Tensor &fwdIntermediates,
                              const GruWeights &weights, const poplar::Tensor &input, const poplar::Tensor &output,
                              const poplar::Tensor &outputGrad, poplar::Tensor *inputGrad, GruWeights &weightsGrad,
                              const poplar::Tensor &attentions, poplar::Tensor *attentionsGrad,
                              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options_,
                              poplin::PlanningCache *planningCache);

} // namespace gru
} // namespace popnn
