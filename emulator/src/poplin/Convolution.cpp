#include <poplin/Convolution.hpp>

#include <ostream>
#include <string>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/ScaledAdd.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "ConvGeometry.hpp"
#include "ConvKernel.hpp"
#include "MatMulOptions.hpp"
#include "PlanningCacheImpl.hpp"
#include "poplar/CostModel.hpp"
#include "poplar/TensorImpl.hpp"

namespace poplin {

namespace {

using poplar::Graph;
using poplar::Tensor;
using poplar::program::Sequence;
using Shape = std::vector<std::size_t>;

// Validates `params` with the API's name in the message, and records the plan.
void checkParams(const std::string &api, const ConvParams &params, PlanningCache *cache) {
  try {
    params.validate();
  } catch (const poputil::poplibs_error &e) {
    throw poputil::poplibs_error(api + ": " + e.what());
  }
  if (cache) cache->impl->convolutions.insert(params);
}

Shape withField(Shape leading, const Shape &field) {
  leading.insert(leading.end(), field.begin(), field.end());
  return leading;
}

Shape inputShape(const ConvParams &p) {
  return withField({p.batchSize, p.getNumInputChans()}, p.inputFieldShape);
}
Shape outputShape(const ConvParams &p) {
  return withField({p.batchSize, p.getNumOutputChans()}, p.getOutputFieldShape());
}
// [groups][A][B][kernel...]: A the output channels, or the input channels when transposed.
Shape weightsShape(const ConvParams &p, bool transposed) {
  const std::size_t in = p.inputChannelsPerConvGroup, out = p.outputChannelsPerConvGroup;
  return withField({p.numConvGroups, transposed ? in : out, transposed ? out : in}, p.kernelShape);
}

void checkOperand(const std::string &api, const std::string &role, const Tensor &t,
                  const Shape &expected, const poplar::Type &type) {
  if (t.shape() != expected)
    throw poputil::poplibs_error(api + ": " + role + " must have shape " + poplar::detail::shapeString(expected) +
                                 " for these ConvParams, got " + t.getVarStr());
  if (t.elementType() != type)
    throw poputil::poplibs_error(api + ": " + role + " must have element type " +
                                 type.toString().str() + " (from ConvParams), got " +
                                 t.getVarStr());
}

// [groups][A][B][...] as [groups][B][A][...], a view.
Tensor channelsSwapped(const Tensor &weights) {
  std::vector<unsigned> order(weights.rank());
  for (unsigned d = 0; d < order.size(); ++d) order[d] = d;
  std::swap(order[1], order[2]);
  return weights.dimShuffle(order);
}

// Whether the sums of a convolution of `params`' types round as half partials.
// Checks the options as well.
bool halfPartials(const ConvParams &params, const poplar::OptionFlags &options) {
  const poplar::Type partialsType = detail::parseConvOptions(options).partialsType;
  return params.inputType == poplar::HALF && partialsType == poplar::HALF;
}

Tensor addLinearlyMappedVariable(Graph &graph, const poplar::Type &type, const Shape &shape,
                                 const poplar::DebugContext &debugContext) {
  Tensor t = graph.addVariable(type, shape, debugContext);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

// Multiply-adds of input and kernel elements (not of the zeros transforms insert).
uint64_t realMultiplyAdds(const ConvParams &params) {
  params.validate();
  const detail::ConvGeometry g = detail::convGeometry(params);
  uint64_t pairs = 0;
  for (long index : g.tapInputIndex) pairs += index >= 0;
  return pairs * params.batchSize * params.numConvGroups * params.inputChannelsPerConvGroup *
         params.outputChannelsPerConvGroup;
}

double perfectCycles(const Graph &graph, const ConvParams &params) {
  const poplar::Target &target = graph.getTarget();
  return double(getFwdFlops(params)) /
         double(poplar::detail::ampFlopsPerCycle(target, params.inputType) * target.getNumTiles());
}

void biasUpdate(const std::string &api, Graph &graph, const Tensor &zDeltas, const Tensor &biases,
                const Tensor &scale, const poplar::OptionFlags &options, Sequence &prog,
                const poplar::DebugContext &debugContext) {
  detail::parseConvOptions(options);
  if (zDeltas.rank() < 2)
    throw poputil::poplibs_error(api + ": zDeltas must be [batch][channels][field...], got " +
                                 zDeltas.getVarStr());
  if (biases.shape() != Shape{zDeltas.dim(1)})
    throw poputil::poplibs_error(api + ": biases must have shape [" +
                                 std::to_string(zDeltas.dim(1)) + "] (zDeltas' channels), got " +
                                 biases.getVarStr());
  Shape reduced{0};
  for (std::size_t d = 2; d < zDeltas.rank(); ++d) reduced.push_back(d);
  popops::reduceWithOutput(graph, zDeltas, biases, reduced,
                           popops::ReduceParams(popops::Operation::ADD, true, scale), prog,
                           debugContext);
}

template <class Scale>
void weightUpdate(const std::string &api, Graph &graph, const Tensor &zDeltas,
                  const Tensor &weights, const Tensor &activations, const ConvParams &params,
                  const Scale &scale, Sequence &prog, const poplar::DebugContext &debugContext,
                  const poplar::OptionFlags &options, PlanningCache *cache) {
  checkParams(api, params, cache);
  checkOperand(api, "weights", weights, weightsShape(params, false), params.inputType);
  const Tensor deltas =
      calculateWeightDeltas(graph, zDeltas, activations, params, prog, debugContext, options, cache);
  popops::scaledAddTo(graph, weights, deltas, scale, prog, {debugContext, "update"});
}

} // namespace

uint64_t getFwdFlops(const ConvParams &params) { return 2 * realMultiplyAdds(params); }
// The input gradient and the weight deltas multiply the same pairs of elements.
uint64_t getBwdFlops(const ConvParams &params) { return getFwdFlops(params); }
uint64_t getWuFlops(const ConvParams &params) { return getFwdFlops(params); }

double getFwdPerfectCycleCount(const Graph &graph, const ConvParams &params) {
  return perfectCycles(graph, params);
}
double getBwdPerfectCycleCount(const Graph &graph, const ConvParams &params) {
  return perfectCycles(graph, params);
}
double getWuPerfectCycleCount(const Graph &graph, const ConvParams &params) {
  return perfectCycles(graph, params);
}

Tensor createWeights(Graph &graph, const ConvParams &params,
                     const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                     PlanningCache *cache) {
  detail::parseConvOptions(options);
  checkParams("poplin::createWeights", params, cache);
  return addLinearlyMappedVariable(graph, params.inputType, weightsShape(params, false), debugContext);
}

Tensor createInput(Graph &graph, const ConvParams &params, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options, PlanningCache *cache) {
  detail::parseConvOptions(options);
  checkParams("poplin::createInput", params, cache);
  return addLinearlyMappedVariable(graph, params.inputType, inputShape(params), debugContext);
}

Tensor createConvOutput(Graph &graph, const ConvParams &params,
                        const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options, PlanningCache *cache) {
  detail::parseConvOptions(options);
  checkParams("poplin::createConvOutput", params, cache);
  return addLinearlyMappedVariable(graph, params.outputType, outputShape(params), debugContext);
}

Tensor createBiases(Graph &graph, const Tensor &activations,
                    const poplar::DebugContext &debugContext) {
  if (activations.rank() < 2)
    throw poputil::poplibs_error(
        "poplin::createBiases: activations must be [batch][channels][field...], got " +
        activations.getVarStr());
  return addLinearlyMappedVariable(graph, activations.elementType(), {activations.dim(1)}, debugContext);
}

Tensor createBiases(Graph &graph, const Tensor &activations, const ConvParams &params,
                    const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                    PlanningCache *cache) {
  detail::parseConvOptions(options);
  checkParams("poplin::createBiases", params, cache);
  checkOperand("poplin::createBiases", "activations", activations, outputShape(params),
               params.outputType);
  return createBiases(graph, activations, debugContext);
}

void convolutionWithOutput(Graph &graph, const Tensor &in, const Tensor &weights,
                           const Tensor &out, const ConvParams &params,
                           bool transposeAndFlipWeights, Sequence &prog,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, PlanningCache *cache) {
  const std::string api = "poplin::convolution";
  const bool roundPartials = halfPartials(params, options);
  checkParams(api, params, cache);
  checkOperand(api, "in", in, inputShape(params), params.inputType);
  checkOperand(api, "weights", weights, weightsShape(params, transposeAndFlipWeights),
               params.inputType);
  checkOperand(api, "out", out, outputShape(params), params.outputType);
  detail::addConvolution(graph, prog, params, in, weights, transposeAndFlipWeights, out,
                         roundPartials, debugContext);
}

Tensor convolution(Graph &graph, const Tensor &in, const Tensor &weights, const ConvParams &params,
                   bool transposeAndFlipWeights, Sequence &prog,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                   PlanningCache *cache) {
  checkParams("poplin::convolution", params, nullptr);
  const Tensor out =
      addLinearlyMappedVariable(graph, params.outputType, outputShape(params), {debugContext, "output"});
  convolutionWithOutput(graph, in, weights, out, params, transposeAndFlipWeights, prog,
                        debugContext, options, cache);
  return out;
}

void preplanConvolutions(const std::set<ConvPlanParams> &convs, PlanningCache &cache) {
  for (const ConvPlanParams &conv : convs) {
    if (const poplar::OptionFlags *options = std::get<2>(conv)) detail::parseConvOptions(*options);
    checkParams("poplin::preplanConvolutions", std::get<1>(conv), &cache);
  }
}

void preplanConvolutions(Graph &, const std::set<ConvPlanParams> &convs, PlanningCache &cache) {
  preplanConvolutions(convs, cache);
}

void weightsTransposeChansFlipXY(Graph &graph, const Tensor &weightsIn, const Tensor &weightsOut,
                                 Sequence &prog, const poplar::DebugContext &debugContext,
                                 const poplar::OptionFlags &options) {
  const std::string api = "poplin::weightsTransposeChansFlipXY";
  detail::parseConvOptions(options);
  if (weightsIn.rank() < 3)
    throw poputil::poplibs_error(api + ": weightsIn must be [groups][A][B][kernel...], got " +
                                 weightsIn.getVarStr());
  Tensor arranged = channelsSwapped(weightsIn);
  if (weightsOut.shape() != arranged.shape() || weightsOut.elementType() != weightsIn.elementType())
    throw poputil::poplibs_error(api + ": weightsOut must have shape " +
                                 poplar::detail::shapeString(arranged.shape()) + " and weightsIn's element type, got " +
                                 weightsOut.getVarStr());
  for (unsigned d = 3; d < arranged.rank(); ++d) arranged = arranged.reverse(d);
  prog.add(poplar::program::Copy(arranged, weightsOut, false, debugContext));
}

Tensor calculateWeightDeltas(Graph &graph, const Tensor &zDeltas, const Tensor &activations,
                             const ConvParams &params, Sequence &prog,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  const std::string api = "poplin::calculateWeightDeltas";
  const bool roundPartials = halfPartials(params, options);
  checkParams(api, params, cache);
  checkOperand(api, "zDeltas", zDeltas, outputShape(params), params.outputType);
  checkOperand(api, "activations", activations, inputShape(params), params.inputType);
  const Tensor deltas = addLinearlyMappedVariable(graph, params.inputType, weightsShape(params, false),
                                                  {debugContext, "weightDeltas"});
  detail::addWeightDeltas(graph, prog, params, zDeltas, activations, deltas, roundPartials,
                          debugContext);
  return deltas;
}

void convolutionWeightUpdate(Graph &graph, const Tensor &zDeltas, const Tensor &weights,
                             const Tensor &activations, ConvParams params, const Tensor &scale,
                             Sequence &prog, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  weightUpdate("poplin::convolutionWeightUpdate", graph, zDeltas, weights, activations, params,
               scale, prog, debugContext, options, cache);
}

void convolutionWeightUpdate(Graph &graph, const Tensor &zDeltas, const Tensor &weights,
                             const Tensor &activations, ConvParams params, float scale,
                             Sequence &prog, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  weightUpdate("poplin::convolutionWeightUpdate", graph, zDeltas, weights, activations, params,
               scale, prog, debugContext, options, cache);
}

void convolutionBiasUpdate(Graph &graph, const Tensor &zDeltas, const Tensor &biases,
                           const Tensor &scale, const poplar::OptionFlags &options, Sequence &prog,
                           const poplar::DebugContext &debugContext) {
  biasUpdate("poplin::convolutionBiasUpdate", graph, zDeltas, biases, scale, options, prog,
             debugContext);
}

void convolutionBiasUpdate(Graph &graph, const Tensor &zDeltas, const Tensor &biases, float scale,
                           const poplar::OptionFlags &options, Sequence &prog,
                           const poplar::DebugContext &debugContext) {
  Tensor scaleTensor = graph.addConstant(poplar::FLOAT, {}, scale, {debugContext, "scale"});
  graph.setTileMapping(scaleTensor, 0);
  biasUpdate("poplin::convolutionBiasUpdate", graph, zDeltas, biases, scaleTensor, options, prog,
             debugContext);
}

void addBias(Graph &graph, const Tensor &in, const Tensor &biases, Sequence &prog,
             const poplar::DebugContext &debugContext) {
  const std::string api = "poplin::addBias";
  if (in.rank() < 2)
    throw poputil::poplibs_error(api + ": in must be [batch][channels][field...], got " +
                                 in.getVarStr());
  if (biases.shape() != Shape{in.dim(1)} || biases.elementType() != in.elementType())
    throw poputil::poplibs_error(api + ": biases must have shape [" + std::to_string(in.dim(1)) +
                                 "] (in's channels) and in's element type, got " +
                                 biases.getVarStr());
  // [channels, 1, ...] broadcasts over the field dimensions, numpy-style.
  Shape perChannel(in.rank() - 1, 1);
  perChannel[0] = in.dim(1);
  popops::addInPlace(graph, in, biases.reshape(perChannel), prog, debugContext);
}

void reportPlanInfo(std::ostream &out, const Graph &graph, const ConvParams &params,
                    const poplar::OptionFlags &options, PlanningCache *cache) {
  detail::parseConvOptions(options);
  checkParams("poplin::reportPlanInfo", params, cache);
  const detail::ConvGeometry g = detail::convGeometry(params);
  const PlanCosts costs = reportPlanEstimatedCosts(graph, params, options, cache);
  out << params << "Plan: im2col, one product per conv group and batch element: ["
      << params.outputChannelsPerConvGroup << " x " << params.inputChannelsPerConvGroup * g.numTaps()
      << "] x [" << params.inputChannelsPerConvGroup * g.numTaps() << " x " << g.numComputed()
      << "]\n  estimated cycles " << costs.cycles << ", operand and output bytes "
      << costs.memory << "\n";
}

PlanCosts reportPlanEstimatedCosts(const Graph &graph, const ConvParams &params,
                                   const poplar::OptionFlags &options, PlanningCache *cache) {
  detail::parseConvOptions(options);
  checkParams("poplin::reportPlanEstimatedCosts", params, cache);
  const poplar::Target &target = graph.getTarget();
  const auto elements = [](const Shape &shape) {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return n;
  };
  PlanCosts costs;
  costs.cycles = std::size_t(perfectCycles(graph, params)) + poplar::detail::kVertexCycles;
  costs.memory = (elements(inputShape(params)) + elements(weightsShape(params, false))) *
                     target.getTypeSize(params.inputType) +
                 elements(outputShape(params)) * target.getTypeSize(params.outputType);
  return costs;
}

void reportWeightUpdatePlanInfo(std::ostream &out, const Graph &graph, const ConvParams &fwdParams,
                                const poplar::OptionFlags &fwdOptions, PlanningCache *cache) {
  detail::parseConvOptions(fwdOptions);
  checkParams("poplin::reportWeightUpdatePlanInfo", fwdParams, cache);
  const detail::ConvGeometry g = detail::convGeometry(fwdParams);
  out << fwdParams << "Weight update plan: im2col, per conv group the sum over the batch of ["
      << fwdParams.outputChannelsPerConvGroup << " x " << g.numComputed() << "] x ["
      << g.numComputed() << " x " << fwdParams.inputChannelsPerConvGroup * g.numTaps()
      << "]\n  estimated cycles " << std::size_t(getWuPerfectCycleCount(graph, fwdParams)) << "\n";
}

Tensor fullyConnectedWeightTranspose(Graph &graph, Tensor activations, const ConvParams &params,
                                     Sequence &prog, const poplar::DebugContext &debugContext,
                                     const poplar::OptionFlags &options, PlanningCache *cache) {
  const std::string api = "poplin::fullyConnectedWeightTranspose";
  detail::parseConvOptions(options);
  checkParams(api, params, cache);
  checkOperand(api, "activations", activations, weightsShape(params, false), params.inputType);
  const Tensor transposed = addLinearlyMappedVariable(graph, params.inputType, weightsShape(params, true),
                                                      {debugContext, "transposed"});
  prog.add(poplar::program::Copy(channelsSwapped(activations), transposed, false, debugContext));
  return transposed;
}

void convolutionValidateOptions(const poplar::OptionFlags &options) {
  detail::parseConvOptions(options);
}

} // namespace poplin
