#pragma once
// Recurrent-network utilities (popnn::rnn): the parameters of a custom RNN and tensors laid
// out for slicing along time, the outermost dimension.
//
// Emulator: a tensor for `numShards` shards is mapped as one, linearly over the tiles in
// grains of gcd(16, size) elements (the layout poplibs gives each shard); the values and
// shapes do not depend on the sharding. The Rnn() loop drivers run every shard's steps
// in one loop: numShards only has to be at least 1.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
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

// One time step's tensors: each input sequence's step, the intermediates read (interimIn)
// and written (interimOut) at the step, and each output sequence's step (to write).
struct RnnSlice {
  std::vector<poplar::Tensor> inputs;
  poplar::Tensor interimIn;
  poplar::Tensor interimOut;
  std::vector<poplar::Tensor> outputs;
};

// With variable time steps, [batchSize] of dataType: mask 1 where the step is within the
// batch element's step count, inverse = 1 - mask. Invalid otherwise.
struct RnnBatchwiseFlags {
  poplar::Tensor mask;
  poplar::Tensor inverse;
  bool valid() const { return mask.valid(); }
};

// Scalars of the step being built: begin, the shard's first step (UNSIGNED_INT, 0 here);
// counter, the time index the step processes (UNSIGNED_INT; counting down when reversed);
// variableSeqFlag, BOOL, true when some batch element is past its step count.
struct TimeStepState {
  poplar::Tensor begin;
  poplar::Tensor counter;
  poplar::Tensor variableSeqFlag;
};

// The cell: adds one step's program, updating the state tensors (as given to Rnn) in
// place and writing the slice's outputs; the Sequence pointer is the initialisation
// program on the first call and null after.
using LoopBodyType = std::function<poplar::program::Sequence(
    poplar::Graph &graph, const TimeStepState &time, const RnnBatchwiseFlags &, std::vector<poplar::Tensor> &,
    const RnnSlice &slice, std::vector<poplar::Tensor> &, poplar::program::Sequence *,
    const poplar::DebugNameAndId &)>;

// Called every stepsPerGather steps with the gather inputs' and the temporaries' steps of
// that interval ([steps][...], in time order).
using GatherBodyType = std::function<poplar::program::Sequence(
    poplar::Graph &graph, const RnnSlice &slice, unsigned stepsPerGather, poplar::program::Sequence *,
    const poplar::DebugNameAndId &)>;

// Store state stateIndex after every step in output ([maxTimeSteps][...]); invalid: none.
struct StateSequence {
  poplar::Tensor output;
  std::size_t stateIndex;
};

// Runs loopFn over the maxTimeSteps steps (from the last when reverse): the state starts
// as copies of initState; inputs, *interimIn, outputs and *interimOut are sequences along
// their outermost dimension (invalid ones are passed on invalid). Returns the final state.
// Options: codeReuse (true, false).
std::vector<poplar::Tensor> Rnn(poplar::Graph &graph, const RnnParams &params, bool reverse,
                                const std::vector<poplar::Tensor> &initState, const StateSequence &stateSequence,
                                const std::vector<poplar::Tensor> &inputs, const poplar::Tensor *interimIn,
                                poplar::Tensor *interimOut, const std::vector<poplar::Tensor> &outputs,
                                const std::vector<poplar::Tensor> &created, poplar::program::Sequence &prog,
                                const LoopBodyType &loopFn, unsigned numShards, poplar::OptionFlags &options,
                                const poplar::DebugContext &debugContext = {});

// As above from the last step down, where each step's interimOut is numTemps temporaries
// [numTemps][batchSize][layerSizes[1]] that gatherFn receives every stepsPerGather steps
// (fewer for the remaining first steps) as interimIn [steps][numTemps][batchSize][size],
// with gatherInputs' steps of the same interval as its inputs.
std::vector<poplar::Tensor> Rnn(poplar::Graph &graph, const RnnParams &params,
                                const std::vector<poplar::Tensor> &initState, const StateSequence &stateSequence,
                                const std::vector<poplar::Tensor> &inputs, const poplar::Tensor &interimIn,
                                const unsigned numTemps, poplar::program::Sequence &prog,
                                const LoopBodyType &loopFn, const std::vector<poplar::Tensor> &gatherInputs,
                                const GatherBodyType &gatherFn, unsigned numShards, unsigned stepsPerGather,
                                poplar::OptionFlags &options, const poplar::DebugContext &debugContext = {});

} // namespace rnn
} // namespace popnn
