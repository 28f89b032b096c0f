#pragma once
#include <functional>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

// A loop body made from the loop's counter (an UNSIGNED_INT tensor of one element).
using CountedLoopBodyType = std::function<poplar::program::Program(const poplar::Tensor &)>;

// for (unsigned i = begin; i < end; i += step) body(i): a Repeat whose body sees the
// counter. step must be positive and begin less than end.
poplar::program::Sequence countedLoop(poplar::Graph &graph, std::size_t begin, std::size_t end, size_t step,
                                      const CountedLoopBodyType &body,
                                      const poplar::DebugContext &debugContext = {});
// for (unsigned i = 0; i < count; ++i) body(i).
poplar::program::Sequence countedLoop(poplar::Graph &graph, std::size_t count, const CountedLoopBodyType &body,
                                      const poplar::DebugContext &debugContext = {});

// for (count = initialCount; count != countLimit; count += countStep) body, with `count`
// and `countLimit` single-element tensors of one type, INT or UNSIGNED_INT, the limit
// read each pass.
poplar::program::Sequence countedForLoop(poplar::Graph &graph, const poplar::Tensor &count, int initialCount,
                                         const poplar::Tensor &countLimit, int countStep,
                                         const poplar::program::Program &body,
                                         const poplar::DebugContext &debugContext = {});
// As above with a counter of countLimit's type made for the loop.
poplar::program::Sequence countedForLoop(poplar::Graph &graph, int initialCount, const poplar::Tensor &countLimit,
                                         int countStep, const poplar::program::Program &body,
                                         const poplar::DebugContext &debugContext = {});

} // namespace popops
