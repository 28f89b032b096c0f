#pragma once
// Connectionist Temporal Classification loss (popnn::ctc): the negative log probability of
// each batch entry's label sequence under per-step class distributions, summed over every
// alignment (labels with blanks between and around them, repeats merged), and its gradient.
//
// Data are [maxTime][batchSize][numClasses] (log probabilities, or logits that are first
// log-softmaxed over the classes); labels [batchSize][maxLabelLength] (UNSIGNED_INT or
// INT, never blankClass); dataLengths and labelLengths [batchSize] say how many steps and
// labels of each entry count. Steps past an entry's length get a zero gradient. An entry
// no alignment fits (too few steps) has an infinite loss and the gradient of no alignment.
//
// Options of the calculations: includeSoftmaxGradient (true, false; =true) gives the
// gradient with respect to the logits the log probabilities were log-softmaxed from (the
// logits forms always do), else with respect to the log probabilities themselves;
// zeroInfinity (true, false; =false) zeroes infinite losses and their gradients.
//
// Emulator: one kernel per calculation, computing in double; plan()'s options
// (partialsType "float" or "half", availableMemoryProportion in [0, 1]) are checked and do
// not change results.
#include <cstddef>
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popnn/CTCPlan.hpp>

namespace popnn {
namespace ctc {

// A plan for these sizes and types (inType FLOAT or HALF; outType FLOAT or HALF).
Plan plan(const poplar::Graph &graph, const poplar::Type &inType, const poplar::Type &outType, unsigned batchSize,
          unsigned maxTime, unsigned maxLabelLength, unsigned numClasses, const poplar::OptionFlags &options = {});

// [maxTime][batchSize][numClasses] and [batchSize][maxLabelLength], mapped over the tiles.
poplar::Tensor createDataInput(poplar::Graph &graph, const poplar::Type &type, const std::size_t batchSize,
                               const std::size_t maxTime, const std::size_t numClasses, const Plan &plan,
                               const poplar::DebugContext &debugContext = {});
poplar::Tensor createLabelsInput(poplar::Graph &graph, const poplar::Type &type, const std::size_t batchSize,
                                 const std::size_t maxLabelLength, const Plan &plan,
                                 const poplar::DebugContext &debugContext = {});

// {loss [batchSize], gradient [maxTime][batchSize][numClasses]}, both outType.
std::pair<poplar::Tensor, poplar::Tensor>
calcLossAndGradientLogProbabilities(poplar::Graph &graph, const poplar::Type &outType, const poplar::Tensor &logProbs,
                                    const poplar::Tensor &labels, const poplar::Tensor &dataLengths,
                                    const poplar::Tensor &labelLengths, poplar::program::Sequence &prog,
                                    const unsigned blankClass, const Plan &plan,
                                    const poplar::DebugContext &debugContext = {},
                                    const poplar::OptionFlags &options = {});
std::pair<poplar::Tensor, poplar::Tensor>
calcLossAndGradientLogits(poplar::Graph &graph, const poplar::Type &outType, const poplar::Tensor &logits,
                          const poplar::Tensor &labels, const poplar::Tensor &dataLengths,
                          const poplar::Tensor &labelLengths, poplar::program::Sequence &prog,
                          const unsigned blankClass, const Plan &plan, const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {});

// The loss [batchSize] alone.
poplar::Tensor calcCTCLossLogProbabilities(poplar::Graph &graph, const poplar::Type &outType,
                                           const poplar::Tensor &logProbs, const poplar::Tensor &labels,
                                           const poplar::Tensor &dataLengths, const poplar::Tensor &labelLengths,
                                           poplar::program::Sequence &prog, const unsigned blankClass,
                                           const Plan &plan, const poplar::DebugContext &debugContext = {},
                                           const poplar::OptionFlags &options = {});
poplar::Tensor calcCTCLossLogits(poplar::Graph &graph, const poplar::Type &outType, const poplar::Tensor &logits,
                                 const poplar::Tensor &labels, const poplar::Tensor &dataLengths,
                                 const poplar::Tensor &labelLengths, poplar::program::Sequence &prog,
                                 const unsigned blankClass, const Plan &plan,
                                 const poplar::DebugContext &debugContext = {},
                                 const poplar::OptionFlags &options = {});

} // namespace ctc
} // namespace popnn
