#pragma once
// Recurrent-network utilities (popnn::rnn): the parameters of a custom RNN and tensors laid
// out for slicing along time, the outermost dimension.
//
// Emulator: a tensor for `numShards` shards is mapped as one, linearly over the tiles in
// grains of gcd(16, size) elements (the layout poplibs gives each shard); the values and
// shapes do not depend on the sharding. The Rnn() loop drivers are not provided yet.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace popnn {
namespace rnn {

struct RnnParams {
  poplar::Type dataType;
  std::size_t batchSize;
  std::size_t maxTimeSteps;
  std::size_t timeSteps; // deprecated in the SDK: maxTimeSteps
  // The run-time number of steps, [batchSize] or one element; invalid when fixed.
  poplar::Tensor varTimeSteps;
  // {input size, output size} of the layer.
  std::vector<std::size_t> layerSizes;

  // Raise poplibs_error unless layerSizes has two elements and batchSize and the step
  // count are positive.
  RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
            std::vector<std::size_t> layerSizes);
  RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
            const poplar::Tensor &varTimeSteps, std::vector<std::size_t> layerSizes);

  // How many shards the time steps can be split over, each on its own tiles.
  std::size_t getMaxShards(const poplar::Graph &graph) const;
  // The bytes of one time step of the input (output) on each tile it is spread over.
  std::size_t getInputBytesPerTile(const poplar::Graph &graph) const;
  std::size_t getOutputBytesPerTile(const poplar::Graph &graph) const;
  bool variableTimeSteps() const;      // varTimeSteps is given
  bool batchVariableTimeSteps() const; // ... with more than one element
};

// [multiple][batchSize][layerSizes[isOutput]].
poplar::Tensor createInitialState(poplar::Graph &graph, const RnnParams &params, bool isOutput,
                                  unsigned multiple, unsigned numShards,
                                  const poplar::DebugContext &debugContext = {});
// [maxTimeSteps][batchSize][size].
poplar::Tensor createRecurrentTensor(poplar::Graph &graph, const RnnParams &params, unsigned size,
                                     unsigned numShards, const poplar::DebugContext &debugContext = {});
// [maxTimeSteps][batchSize][layerSizes[0]].
poplar::Tensor createInputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                                 const poplar::DebugContext &debugContext = {});
// [maxTimeSteps][batchSize][layerSizes[1]].
poplar::Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                                  const poplar::DebugContext &debugContext = {});
// [multiple * maxTimeSteps][batchSize][layerSizes[1]]: `multiple` outputs along time.
poplar::Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned multiple,
                                  unsigned numShards, const poplar::DebugContext &debugContext = {});

// A new tensor shaped as tBase whose step n holds tBase's step n - 1 and whose step 0
// holds tSingle ([multiple][batch][size] for a tBase of multiple * maxTimeSteps steps),
// copied in `prog`.
poplar::Tensor shiftRnnTensor(poplar::Graph &graph, const RnnParams &params, const poplar::Tensor &tBase,
                              const poplar::Tensor &tSingle, poplar::program::Sequence &prog,
                              unsigned numShards, const poplar::DebugContext &debugContext = {});

} // namespace rnn
} // namespace popnn
