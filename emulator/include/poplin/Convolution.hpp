#pragma once
// Convolutions with any number of spatial dimensions, conv groups and the
// transforms of ConvParams (truncation, dilation, padding, flips, strides), and
// their training passes: the input gradient (a convolution with transformed
// parameters and transposeAndFlipWeights), the weight deltas and the bias update.
//
// Layouts, as poplibs':
//   input / activations  [batch][numConvGroups * inputChannelsPerConvGroup][field...]
//   weights              [numConvGroups][outputChannelsPerConvGroup][inputChannelsPerConvGroup][kernel...]
//   output               [batch][numConvGroups * outputChannelsPerConvGroup][outputField...]
//   biases               [output channels]
// Channel c of the input belongs to group c / inputChannelsPerConvGroup.
//
// FLOAT and HALF; products are summed in float and rounded once to the output
// type. Options (invalid keys or values throw poplar::invalid_option):
//   partialsType              "float" (default) or "half"; with HALF operands, half
//                             partials round the running sum to half after every 16
//                             products, as poplin::matMul's do
//   availableMemoryProportion a number in [0, 1]; only guides the planner
//   pass                      NONE, INFERENCE_FWD, TRAINING_FWD, TRAINING_BWD,
//                             TRAINING_WU, FC_INFERENCE_FWD, FC_TRAINING_FWD,
//                             FC_TRAINING_BWD, FC_TRAINING_WU; only guides the planner
//   use128BitConvUnitLoad, enableMultiStageReduce, enableFastReduce,
//   remapOutputTensor, enableConvDithering, disableSRForAMPVertices
//                             "true" or "false"; no effect on results
//   planConstraints           JSON for the planner; ignored
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/ConvParams.hpp>

namespace poplin {

struct PlanningCacheImpl;

// Remembers the convolutions and matmuls that have been planned so later calls
// with the same parameters reuse the plan. The emulator's plans are trivial, so
// the cache only records which problems it has seen.
class PlanningCache {
public:
  PlanningCache();
  ~PlanningCache();
  // The number of distinct plans held.
  std::size_t size() const;
  std::unique_ptr<PlanningCacheImpl> impl;
};

// The multiply-add count times two of each pass, counting only products of
// input and kernel elements (not of padding or dilation zeros).
uint64_t getFwdFlops(const ConvParams &params);
uint64_t getBwdFlops(const ConvParams &params);
uint64_t getWuFlops(const ConvParams &params);

// The pass's FLOPs over the target's peak: the AMP rate of every tile.
double getFwdPerfectCycleCount(const poplar::Graph &graph, const ConvParams &params);
double getBwdPerfectCycleCount(const poplar::Graph &graph, const ConvParams &params);
double getWuPerfectCycleCount(const poplar::Graph &graph, const ConvParams &params);

// Variables for a convolution's operands, every element mapped to a tile.
poplar::Tensor createWeights(poplar::Graph &graph, const ConvParams &params,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);
poplar::Tensor createInput(poplar::Graph &graph, const ConvParams &params,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options = {},
                           PlanningCache *cache = nullptr);
poplar::Tensor createConvOutput(poplar::Graph &graph, const ConvParams &params,
                                const poplar::DebugContext &debugContext,
                                const poplar::OptionFlags &options = {},
                                PlanningCache *cache = nullptr);
// Biases [channels] for `activations` [batch][channels][field...], mapped like them.
poplar::Tensor createBiases(poplar::Graph &graph, const poplar::Tensor &activations,
                            const poplar::DebugContext &debugContext = {"biases"});
poplar::Tensor createBiases(poplar::Graph &graph, const poplar::Tensor &activations,
                            const ConvParams &params,
                            const poplar::DebugContext &debugContext = {"biases"},
                            const poplar::OptionFlags &options = {},
                            PlanningCache *cache = nullptr);

// The convolution of `in` with `weights`. With transposeAndFlipWeights, `weights`
// is [groups][inputChannelsPerConvGroup][outputChannelsPerConvGroup][kernel...]
// and is used with its channel dimensions swapped and its kernel reversed in every
// spatial dimension: the forward weights, used to compute an input gradient.
poplar::Tensor convolution(poplar::Graph &graph, const poplar::Tensor &in,
                           const poplar::Tensor &weights, const ConvParams &params,
                           bool transposeAndFlipWeights, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {},
                           const poplar::OptionFlags &options = {},
                           PlanningCache *cache = nullptr);
void convolutionWithOutput(poplar::Graph &graph, const poplar::Tensor &in,
                           const poplar::Tensor &weights, const poplar::Tensor &out,
                           const ConvParams &params, bool transposeAndFlipWeights,
                           poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {},
                           const poplar::OptionFlags &options = {},
                           PlanningCache *cache = nullptr);

using ConvPlanParams =
    std::tuple<const poplar::Target *, const ConvParams, const poplar::OptionFlags *>;
// Plans each convolution ahead of its use (records it in `cache`).
void preplanConvolutions(const std::set<ConvPlanParams> &convs, PlanningCache &cache);
void preplanConvolutions(poplar::Graph &graph, const std::set<ConvPlanParams> &convs,
                         PlanningCache &cache);

// Writes weightsIn [G][A][B][kernel...] to weightsOut [G][B][A][kernel...] with
// the kernel reversed in every spatial dimension.
void weightsTransposeChansFlipXY(poplar::Graph &graph, const poplar::Tensor &weightsIn,
                                 const poplar::Tensor &weightsOut,
                                 poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext = {},
                                 const poplar::OptionFlags &options = {});

// The gradient of the loss with respect to the weights, given the gradient with
// respect to the output (zDeltas) and the forward input (activations).
poplar::Tensor calculateWeightDeltas(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                                     const poplar::Tensor &activations,
                                     const ConvParams &params, poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {},
                                     PlanningCache *cache = nullptr);

// weights += scale * calculateWeightDeltas(...). A tensor scale has one element,
// read each time the program runs.
void convolutionWeightUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                             const poplar::Tensor &weights, const poplar::Tensor &activations,
                             ConvParams params, const poplar::Tensor &scale,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);
void convolutionWeightUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                             const poplar::Tensor &weights, const poplar::Tensor &activations,
                             ConvParams params, float scale, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);

// biases += scale * (zDeltas summed over the batch and field dimensions).
void convolutionBiasUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                           const poplar::Tensor &biases, const poplar::Tensor &scale,
                           const poplar::OptionFlags &options, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {});
void convolutionBiasUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                           const poplar::Tensor &biases, float scale,
                           const poplar::OptionFlags &options, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {});

// in[b][c][...] += biases[c], in place.
void addBias(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &biases,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

// Writes a description of the plan for `params` (the emulator's: one im2col
// product per group and batch element) and its estimated costs to `out`.
void reportPlanInfo(std::ostream &out, const poplar::Graph &graph, const ConvParams &params,
                    const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

struct PlanCosts {
  std::size_t cycles;
  std::size_t memory;
};
// Estimated cycles (the cost model's, for the forward pass) and the bytes of the
// operands and the output.
PlanCosts reportPlanEstimatedCosts(const poplar::Graph &graph, const ConvParams &params,
                                   const poplar::OptionFlags &options = {},
                                   PlanningCache *cache = nullptr);
void reportWeightUpdatePlanInfo(std::ostream &out, const poplar::Graph &graph,
                                const ConvParams &fwdParams,
                                const poplar::OptionFlags &fwdOptions = {},
                                PlanningCache *cache = nullptr);

// For a fully connected layer as a convolution (field [1], kernel [1]): the
// weights [G][outChans][inChans][1] rearranged for the backward pass as
// [G][inChans][outChans][1] (a copy added to `prog`).
poplar::Tensor fullyConnectedWeightTranspose(poplar::Graph &graph, poplar::Tensor activations,
                                             const ConvParams &params,
                                             poplar::program::Sequence &prog,
                                             const poplar::DebugContext &debugContext,
                                             const poplar::OptionFlags &options,
                                             PlanningCache *cache = nullptr);

void convolutionValidateOptions(const poplar::OptionFlags &options);

} // namespace poplin
