#include <poplin/MultiConvolution.hpp>

#include <string>

#include <poputil/exceptions.hpp>

#include "MatMulOptions.hpp"

namespace poplin {
namespace multiconv {

namespace {

using poplar::Graph;
using poplar::Tensor;
using poplar::program::Sequence;

const CreateTensorArgs &chosen(const std::string &api, const std::vector<CreateTensorArgs> &args,
                               unsigned index, const char *indexName) {
  if (index >= args.size())
    throw poputil::poplibs_error("poplin::multiconv::" + api + ": " + indexName + " " +
                                 std::to_string(index) + " is out of range for " +
                                 std::to_string(args.size()) + " convolutions");
  return args[index];
}

// The debug context of convolution i of a set.
poplar::DebugContext member(const poplar::DebugContext &set, std::size_t i) {
  return {set, "conv" + std::to_string(i)};
}

template <class Args>
void weightUpdates(Graph &graph, const std::vector<Args> &args, Sequence &prog,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                   PlanningCache *cache) {
  detail::parseMultiConvOptions(options);
  for (std::size_t i = 0; i < args.size(); ++i)
    poplin::convolutionWeightUpdate(graph, args[i].zDeltas, args[i].weights, args[i].activations,
                                    args[i].params, args[i].scale, prog, member(debugContext, i),
                                    args[i].options, cache);
}

} // namespace

Tensor createWeights(Graph &graph, const std::vector<CreateTensorArgs> &args, unsigned weightsIndex,
                     const poplar::OptionFlags &options, PlanningCache *cache) {
  detail::parseMultiConvOptions(options);
  const CreateTensorArgs &arg = chosen("createWeights", args, weightsIndex, "weightsIndex");
  return poplin::createWeights(graph, arg.params, arg.name, arg.options, cache);
}

Tensor createInput(Graph &graph, const std::vector<CreateTensorArgs> &args, unsigned inputIndex,
                   const poplar::OptionFlags &options, PlanningCache *cache) {
  detail::parseMultiConvOptions(options);
  const CreateTensorArgs &arg = chosen("createInput", args, inputIndex, "inputIndex");
  return poplin::createInput(graph, arg.params, arg.name, arg.options, cache);
}

void weightsTransposeChansFlipXY(Graph &graph, std::vector<ConvolutionArgs> &args,
                                 const std::vector<Tensor> &weightsIn, Sequence &prog,
                                 const poplar::OptionFlags &options,
                                 const poplar::DebugContext &debugContext, PlanningCache *) {
  detail::parseMultiConvOptions(options);
  if (weightsIn.size() != args.size())
    throw poputil::poplibs_error("poplin::multiconv::weightsTransposeChansFlipXY: " +
                                 std::to_string(weightsIn.size()) + " weightsIn for " +
                                 std::to_string(args.size()) + " convolutions");
  for (std::size_t i = 0; i < args.size(); ++i)
    poplin::weightsTransposeChansFlipXY(graph, weightsIn[i], args[i].weights, prog,
                                        member(debugContext, i));
}

std::vector<Tensor> convolution(Graph &graph, const std::vector<ConvolutionArgs> &args,
                                bool transposeAndFlipWeights, Sequence &prog,
                                const poplar::DebugContext &debugContext,
                                const poplar::OptionFlags &options, PlanningCache *cache) {
  detail::parseMultiConvOptions(options);
  std::vector<Tensor> outputs;
  for (std::size_t i = 0; i < args.size(); ++i)
    outputs.push_back(poplin::convolution(graph, args[i].inputs, args[i].weights, args[i].params,
                                          transposeAndFlipWeights, prog, member(debugContext, i),
                                          args[i].options, cache));
  return outputs;
}

std::vector<Tensor> calculateWeightDeltas(Graph &graph, const std::vector<CalculateWeightDeltasArgs> &args,
                                          Sequence &prog, const poplar::DebugContext &debugContext,
                                          const poplar::OptionFlags &options, PlanningCache *cache) {
  detail::parseMultiConvOptions(options);
  std::vector<Tensor> deltas;
  for (std::size_t i = 0; i < args.size(); ++i)
    deltas.push_back(poplin::calculateWeightDeltas(graph, args[i].zDeltas, args[i].activations,
                                                   args[i].params, prog, member(debugContext, i),
                                                   args[i].options, cache));
  return deltas;
}

void convolutionWeightUpdate(Graph &graph, const std::vector<ConvWeightUpdateArgs> &args,
                             Sequence &prog, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  weightUpdates(graph, args, prog, debugContext, options, cache);
}

void convolutionWeightUpdate(Graph &graph, const std::vector<ConvWeightUpdateArgsScalar> &args,
                             Sequence &prog, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  weightUpdates(graph, args, prog, debugContext, options, cache);
}

} // namespace multiconv
} // namespace poplin
