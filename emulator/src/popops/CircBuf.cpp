// A circular history on the device, made of popops' own maps and dynamic slices.
#include <popops/CircBuf.hpp>

#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <poputil/exceptions.hpp>

#include "KernelSupport.hpp"

namespace popops {

namespace pe = popops::expr;
using poplar::Tensor;

CircBuf::CircBuf(poplar::Graph &graph, const poplar::Type &dataType, unsigned size,
                 const std::vector<std::size_t> &shape, const poplar::DebugContext &debugContext)
    : graph(graph), size_(size), shape(shape) {
  if (size == 0) throw poputil::poplibs_error("CircBuf: size must be at least 1");
  std::size_t elements = 1;
  for (std::size_t n : shape) elements *= n;
  index = graph.addVariable(poplar::UNSIGNED_INT, {1}, {debugContext, "index"});
  graph.setTileMapping(index, 0);
  graph.setInitialValue(index, 0u);
  hist = createSliceableTensor(graph, dataType, {size, elements}, {0}, {1}, 0, {debugContext, "history"});
}

Tensor CircBuf::prev(unsigned i, poplar::program::Sequence &seq, const poplar::DebugContext &debugContext) {
  if (i >= size_)
    throw poputil::poplibs_error("CircBuf::prev: entry " + std::to_string(i) + " is older than the history of " +
                                 std::to_string(size_) + " entries");
  // (index + size - i) % size: the entry i adds before the newest.
  const Tensor at = map(graph, pe::Rem(pe::Add(pe::_1, pe::Const(size_ - i)), pe::Const(size_)), {index}, seq,
                        {debugContext, "prevIndex"});
  return dynamicSlice(graph, hist, at, {0}, {1}, seq, {debugContext, "prev"}).reshape(shape);
}

poplar::Graph::TileToTensorMapping CircBuf::getTileMapping() { return getSliceMapping(graph, hist, {0}, {1}); }

void CircBuf::add(Tensor t, poplar::program::Sequence &seq, const poplar::DebugContext &debugContext) {
  if (t.shape() != shape || t.elementType() != hist.elementType())
    throw poputil::poplibs_error("CircBuf::add: " + detail::describe(t) + " does not have the entries' shape " +
                                 detail::bracketed(shape) + " and type " + hist.elementType().toString().str());
  mapInPlace(graph, pe::Rem(pe::Add(pe::_1, pe::Const(1u)), pe::Const(size_)), {index}, seq,
             {debugContext, "step"});
  dynamicUpdate(graph, hist, t.flatten().expand({0}), index, {0}, {1}, seq, {debugContext, "add"});
}

} // namespace popops
