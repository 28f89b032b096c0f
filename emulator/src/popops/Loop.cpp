// Counted loops made of Poplar's own programs: a Repeat with a counter the body sees,
// and a RepeatWhileTrue whose condition steps the counter and compares it to a limit.
#include <popops/Loop.hpp>

#include <popops/ElementWise.hpp>
#include <poputil/exceptions.hpp>

#include "KernelSupport.hpp"

namespace popops {

using poplar::Tensor;
using poplar::program::Copy;
using poplar::program::Sequence;

namespace {

// An INT or UNSIGNED_INT scalar; for UNSIGNED_INT, negative values wrap as the device's adds do.
Tensor scalarConstant(poplar::Graph &graph, const poplar::Type &type, int value, const poplar::DebugContext &dc) {
  if (type == poplar::UNSIGNED_INT) return graph.addConstant<unsigned>(type, {}, static_cast<unsigned>(value), dc);
  return graph.addConstant<int>(type, {}, value, dc);
}

} // namespace

Sequence countedLoop(poplar::Graph &graph, std::size_t begin, std::size_t end, size_t step,
                     const CountedLoopBodyType &body, const poplar::DebugContext &debugContext) {
  if (step == 0) throw poputil::poplibs_error("countedLoop: step must be greater than zero");
  if (begin >= end)
    throw poputil::poplibs_error("countedLoop: begin (" + std::to_string(begin) + ") must be less than end (" +
                                 std::to_string(end) + ")");
  const Tensor counter = graph.addVariable(poplar::UNSIGNED_INT, {1}, {debugContext, "counter"});
  const Tensor first = graph.addConstant<unsigned>(poplar::UNSIGNED_INT, {1}, unsigned(begin), {debugContext, "begin"});
  const Tensor stride = graph.addConstant<unsigned>(poplar::UNSIGNED_INT, {1}, unsigned(step), {debugContext, "step"});
  for (const Tensor &t : {counter, first, stride}) graph.setTileMapping(t, 0);
  Sequence loop(debugContext);
  loop.add(Copy(first, counter, false, debugContext));
  Sequence pass({body(counter)}, debugContext);
  addInPlace(graph, counter, stride, pass, debugContext);
  loop.add(poplar::program::Repeat(unsigned((end - begin + step - 1) / step), pass, debugContext));
  return loop;
}

Sequence countedLoop(poplar::Graph &graph, std::size_t count, const CountedLoopBodyType &body,
                     const poplar::DebugContext &debugContext) {
  return countedLoop(graph, 0, count, 1, body, debugContext);
}

Sequence countedForLoop(poplar::Graph &graph, const Tensor &count, int initialCount, const Tensor &countLimit,
                        int countStep, const poplar::program::Program &body,
                        const poplar::DebugContext &debugContext) {
  const poplar::Type type = count.elementType();
  if (type != poplar::INT && type != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error("countedForLoop: count " + detail::describe(count) + " must be INT or UNSIGNED_INT");
  if (countLimit.elementType() != type)
    throw poputil::poplibs_error("countedForLoop: count " + detail::describe(count) + " and countLimit " +
                                 detail::describe(countLimit) + " must have the same type");
  if (count.numElements() != 1 || countLimit.numElements() != 1)
    throw poputil::poplibs_error("countedForLoop: count " + detail::describe(count) + " and countLimit " +
                                 detail::describe(countLimit) + " must each have one element");
  // The counter starts a step early: the condition steps it before the first pass.
  const Tensor start = scalarConstant(graph, type, initialCount - countStep, {debugContext, "initialCount"});
  const Tensor stride = scalarConstant(graph, type, countStep, {debugContext, "countStep"});
  graph.setTileMapping(start, 0);
  graph.setTileMapping(stride, 0);
  Sequence loop(debugContext);
  loop.add(Copy(start, count.reshape({}), false, debugContext));
  Sequence condition(debugContext);
  addInPlace(graph, count.reshape({}), stride, condition, debugContext);
  const Tensor going = neq(graph, count.reshape({}), countLimit.reshape({}), condition, debugContext);
  loop.add(poplar::program::RepeatWhileTrue(condition, going, body, debugContext));
  return loop;
}

Sequence countedForLoop(poplar::Graph &graph, int initialCount, const Tensor &countLimit, int countStep,
                        const poplar::program::Program &body, const poplar::DebugContext &debugContext) {
  const Tensor count = graph.addVariable(countLimit.elementType(), {}, {debugContext, "count"});
  graph.setTileMapping(count, 0);
  return countedForLoop(graph, count, initialCount, countLimit, countStep, body, debugContext);
}

} // namespace popops
