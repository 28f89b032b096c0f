#pragma once
// Sets of independent convolutions (poplin::multiconv), each the convolution of
// poplin/Convolution.hpp with its own ConvParams and options. The emulator builds
// the set one convolution after another, as planType "serial" does on the IPU;
// results do not depend on the plan.
//
// Options of the set (the `options` parameter; invalid keys or values throw
// poplar::invalid_option):
//   planType              "serial" or "parallel" (default); only guides the planner
//   perConvReservedTiles  a whole number (default 50); only guides the planner
//   cycleBackOff          a number in [0, 1] (default 0.1); only guides the planner
// Each argument's own `options` are convolution options (poplin/Convolution.hpp).
#include <string>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/ConvParams.hpp>
#include <poplin/Convolution.hpp>

namespace poplin {
namespace multiconv {

// What createWeights and createInput need of one convolution; `name` names the
// tensor made.
struct CreateTensorArgs {
  ConvParams params;
  poplar::OptionFlags options;
  std::string name;
};

// The weights (or input) of convolution `weightsIndex` (`inputIndex`) of `args`.
poplar::Tensor createWeights(poplar::Graph &graph, const std::vector<CreateTensorArgs> &args,
                             unsigned weightsIndex, const poplar::OptionFlags &options = {},
                             poplin::PlanningCache *cache = nullptr);
poplar::Tensor createInput(poplar::Graph &graph, const std::vector<CreateTensorArgs> &args,
                           unsigned inputIndex, const poplar::OptionFlags &options = {},
                           poplin::PlanningCache *cache = nullptr);

struct ConvolutionArgs {
  poplar::Tensor inputs;
  poplar::Tensor weights;
  ConvParams params;
  poplar::OptionFlags options;
};

// For each i, writes weightsIn[i] to args[i].weights with its channel dimensions
// swapped and its kernel reversed (poplin::weightsTransposeChansFlipXY).
void weightsTransposeChansFlipXY(poplar::Graph &graph, std::vector<ConvolutionArgs> &args,
                                 const std::vector<poplar::Tensor> &weightsIn,
                                 poplar::program::Sequence &prog,
                                 const poplar::OptionFlags &options,
                                 const poplar::DebugContext &debugContext,
                                 poplin::PlanningCache *cache);

// The output of each convolution of `args`, in order.
std::vector<poplar::Tensor> convolution(poplar::Graph &graph, const std::vector<ConvolutionArgs> &args,
                                        bool transposeAndFlipWeights, poplar::program::Sequence &prog,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {},
                                        poplin::PlanningCache *cache = nullptr);

struct CalculateWeightDeltasArgs {
  poplar::Tensor zDeltas;
  poplar::Tensor activations;
  ConvParams params;
  poplar::OptionFlags options;
};

// The weight deltas of each convolution of `args`, in order.
std::vector<poplar::Tensor> calculateWeightDeltas(poplar::Graph &graph,
                                                  const std::vector<CalculateWeightDeltasArgs> &args,
                                                  poplar::program::Sequence &prog,
                                                  const poplar::DebugContext &debugContext = {},
                                                  const poplar::OptionFlags &options = {},
                                                  poplin::PlanningCache *cache = nullptr);

// weights += scale * weight deltas, for each convolution; a tensor scale has one element.
struct ConvWeightUpdateArgs {
  poplar::Tensor zDeltas;
  poplar::Tensor weights;
  poplar::Tensor activations;
  poplar::Tensor scale;
  ConvParams params;
  poplar::OptionFlags options;
};

void convolutionWeightUpdate(poplar::Graph &graph, const std::vector<ConvWeightUpdateArgs> &args,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             poplin::PlanningCache *cache = nullptr);

struct ConvWeightUpdateArgsScalar {
  poplar::Tensor zDeltas;
  poplar::Tensor weights;
  poplar::Tensor activations;
  float scale;
  ConvParams params;
  poplar::OptionFlags options;
};

void convolutionWeightUpdate(poplar::Graph &graph, const std::vector<ConvWeightUpdateArgsScalar> &args,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             poplin::PlanningCache *cache = nullptr);

} // namespace multiconv
} // namespace poplin
