#pragma once
// CTC beam-search decoding (popnn::ctc_infer): the most likely label sequences of each
// batch entry under per-step class distributions, by prefix beam search: each step extends
// the beamwidth most probable prefixes by every class (a blank or a repeat of the last
// label leaves a prefix as it is, unless a blank came between), summing the probabilities
// of the alignments that give each prefix, and keeps the beamwidth most probable (ties to
// the lexicographically smaller). With a beam as wide as the number of prefixes the
// probabilities are exact.
//
// Data are [maxTime][batchSize][numClasses] (log probabilities, or logits log-softmaxed
// over the classes first); dataLengths [batchSize] the steps of each entry that count.
// Results: labelProbs [batchSize][topPaths] (each path's negative log probability, of the
// data's type; infinity where fewer paths exist), labelLengths [batchSize][topPaths] and
// decodedLabels [batchSize][topPaths][maxTime] (UNSIGNED_INT; past a path's length,
// blankClass), the most probable first.
//
// Emulator: one kernel, computing in double; plan()'s options are those of the CTC loss,
// and the decoders take none.
#include <cstddef>
#include <tuple>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popnn/CTCPlan.hpp>

namespace popnn {
namespace ctc_infer {

ctc::Plan plan(const poplar::Graph &graph, const poplar::Type &inType, unsigned batchSize, unsigned maxTime,
               unsigned numClasses, unsigned beamwidth, const poplar::OptionFlags &options = {});

// [maxTime][batchSize][numClasses], mapped over the tiles.
poplar::Tensor createDataInput(poplar::Graph &graph, const poplar::Type &type, const std::size_t batchSize,
                               const std::size_t maxTime, const std::size_t numClasses, const ctc::Plan &plan,
                               const poplar::DebugContext &debugContext = {});

// {labelProbs, labelLengths, decodedLabels}; topPaths <= beamwidth.
std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor>
beamSearchDecoderLogProbabilities(poplar::Graph &graph, const poplar::Tensor &logProbs,
                                  const poplar::Tensor &dataLengths, poplar::program::Sequence &prog,
                                  unsigned blankClass, unsigned beamwidth, unsigned topPaths, const ctc::Plan &plan,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor>
beamSearchDecoderLogits(poplar::Graph &graph, const poplar::Tensor &logits, const poplar::Tensor &dataLengths,
                        poplar::program::Sequence &prog, unsigned blankClass, unsigned beamwidth, unsigned topPaths,
                        const ctc::Plan &plan, const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {});

} // namespace ctc_infer
} // namespace popnn
