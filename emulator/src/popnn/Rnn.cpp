#include <popnn/Rnn.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <numeric>
#include <string>

namespace popnn {
namespace rnn {

namespace {

using poplar::Tensor;

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The elements one tile takes at a time: poplibs spreads a step of `size` features in
// grains of gcd(16, size).
std::size_t grainSize(std::size_t size) { return std::gcd<std::size_t>(16, size); }

// One time step's grains, spread over the tiles: (grains per tile, tiles used).
std::pair<std::size_t, std::size_t> spread(const poplar::Graph &graph, std::size_t batchSize, std::size_t size) {
  const std::size_t grains = batchSize * (size / grainSize(size));
  const std::size_t perTile = ceilDiv(grains, graph.getTarget().getNumTiles());
  return {perTile, ceilDiv(grains, perTile)};
}

std::size_t tilesPerShard(const poplar::Graph &graph, const RnnParams &params) {
  return std::max(spread(graph, params.batchSize, params.layerSizes[0]).second,
                  spread(graph, params.batchSize, params.layerSizes[1]).second);
}

void checkShards(const char *fn, unsigned numShards) {
  if (numShards == 0) throw poputil::poplibs_error(std::string(fn) + ": numShards must be at least 1");
}

// [steps][batchSize][size], mapped linearly in grains.
Tensor stepTensor(poplar::Graph &graph, const RnnParams &params, std::size_t steps, std::size_t size,
                  unsigned numShards, const poplar::DebugContext &dc, const char *fn) {
  checkShards(fn, numShards);
  if (size == 0) throw poputil::poplibs_error(std::string(fn) + ": the innermost size must be positive");
  Tensor t = graph.addVariable(params.dataType, {steps, params.batchSize, size}, poplar::DebugContext(dc, fn));
  const unsigned grain = static_cast<unsigned>(grainSize(size));
  poputil::mapTensorLinearly(graph, t, grain, grain);
  return t;
}

void checkParams(const RnnParams &p) {
  if (p.layerSizes.size() != 2)
    throw poputil::poplibs_error("RnnParams: layerSizes must hold {input size, output size}, not " +
                                 std::to_string(p.layerSizes.size()) + " sizes");
  if (p.layerSizes[0] == 0 || p.layerSizes[1] == 0 || p.batchSize == 0 || p.maxTimeSteps == 0)
    throw poputil::poplibs_error("RnnParams: the batch size, the time steps and the layer sizes must be positive");
  if (p.varTimeSteps.valid() && p.varTimeSteps.numElements() != 1 && p.varTimeSteps.numElements() != p.batchSize)
    throw poputil::poplibs_error("RnnParams: varTimeSteps must have one element or batchSize (" +
                                 std::to_string(p.batchSize) + ") elements");
}

} // namespace

RnnParams::RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
                     std::vector<std::size_t> layerSizes)
    : dataType(dataType), batchSize(batchSize), maxTimeSteps(timeSteps), timeSteps(timeSteps),
      layerSizes(std::move(layerSizes)) {
  checkParams(*this);
}

RnnParams::RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
                     const poplar::Tensor &varTimeSteps, std::vector<std::size_t> layerSizes)
    : dataType(dataType), batchSize(batchSize), maxTimeSteps(maxTimeSteps), timeSteps(maxTimeSteps),
      varTimeSteps(varTimeSteps), layerSizes(std::move(layerSizes)) {
  checkParams(*this);
}

std::size_t RnnParams::getMaxShards(const poplar::Graph &graph) const {
  const std::size_t shards = graph.getTarget().getNumTiles() / tilesPerShard(graph, *this);
  return ceilDiv(maxTimeSteps, ceilDiv(maxTimeSteps, shards));
}

std::size_t RnnParams::getInputBytesPerTile(const poplar::Graph &graph) const {
  return spread(graph, batchSize, layerSizes[0]).first * grainSize(layerSizes[0]) *
         graph.getTarget().getTypeSize(dataType);
}

std::size_t RnnParams::getOutputBytesPerTile(const poplar::Graph &graph) const {
  return spread(graph, batchSize, layerSizes[1]).first * grainSize(layerSizes[1]) *
         graph.getTarget().getTypeSize(dataType);
}

bool RnnParams::variableTimeSteps() const { return varTimeSteps.valid(); }

bool RnnParams::batchVariableTimeSteps() const { return varTimeSteps.valid() && varTimeSteps.numElements() > 1; }

Tensor createInitialState(poplar::Graph &graph, const RnnParams &params, bool isOutput, unsigned multiple,
                          unsigned numShards, const poplar::DebugContext &debugContext) {
  return stepTensor(graph, params, multiple, params.layerSizes[isOutput ? 1 : 0], numShards, debugContext,
                    "initState");
}

Tensor createRecurrentTensor(poplar::Graph &graph, const RnnParams &params, unsigned size, unsigned numShards,
                             const poplar::DebugContext &debugContext) {
  return stepTensor(graph, params, params.maxTimeSteps, size, numShards, debugContext, "recurrent");
}

Tensor createInputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                         const poplar::DebugContext &debugContext) {
  return stepTensor(graph, params, params.maxTimeSteps, params.layerSizes[0], numShards, debugContext, "input");
}

Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                          const poplar::DebugContext &debugContext) {
  return createOutputTensor(graph, params, 1, numShards, debugContext);
}

Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned multiple, unsigned numShards,
                          const poplar::DebugContext &debugContext) {
  return stepTensor(graph, params, std::size_t(multiple) * params.maxTimeSteps, params.layerSizes[1], numShards,
                    debugContext, "output");
}

Tensor shiftRnnTensor(poplar::Graph &graph, const RnnParams &params, const Tensor &tBase, const Tensor &tSingle,
                      poplar::program::Sequence &prog, unsigned numShards,
                      const poplar::DebugContext &debugContext) {
  checkShards("shiftRnnTensor", numShards);
  const std::size_t steps = tBase.rank() ? tBase.dim(0) : 0;
  if (steps == 0 || steps % params.maxTimeSteps != 0)
    throw poputil::poplibs_error("shiftRnnTensor: dimension 0 of tBase must be a positive multiple of " +
                                 std::to_string(params.maxTimeSteps) + " (maxTimeSteps), not " +
                                 std::to_string(steps));
  const std::size_t multiple = steps / params.maxTimeSteps;
  std::vector<std::size_t> singleShape = tBase.shape();
  singleShape[0] = multiple;
  if (tSingle.shape() != singleShape)
    throw poputil::poplibs_error("shiftRnnTensor: tSingle must have tBase's shape with dimension 0 of " +
                                 std::to_string(multiple));
  const poplar::DebugContext dc(debugContext, "shiftRnnTensor");
  Tensor shifted = graph.clone(tBase, dc);
  prog.add(poplar::program::Copy(tSingle, shifted.slice(0, multiple), false, dc));
  if (steps > multiple)
    prog.add(poplar::program::Copy(tBase.slice(0, steps - multiple), shifted.slice(multiple, steps), false, dc));
  return shifted;
}

} // namespace rnn
} // namespace popnn
