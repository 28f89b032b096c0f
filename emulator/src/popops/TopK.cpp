#include <popops/Encoding.hpp>
#include <popops/TopK.hpp>

#include <poputil/exceptions.hpp>

#include <ostream>

#include "KernelSupport.hpp"
#include "RowSort.hpp"

namespace popops {

using poplar::Tensor;

TopKParams::TopKParams(unsigned k, bool largest, SortOrder sortOrder, bool stableSort) noexcept
    : k(k), largest(largest), sortOrder(sortOrder), stableSort(stableSort) {}

std::ostream &operator<<(std::ostream &os, const TopKParams &p) {
  return os << "{k=" << p.k << ", largest=" << (p.largest ? "true" : "false") << ", sortOrder=" << p.sortOrder
            << ", stableSort=" << (p.stableSort ? "true" : "false") << "}";
}

namespace {

// The shape of a top-k's outputs: t's with the innermost dimension k.
std::vector<std::size_t> keptShape(const char *fn, const Tensor &t, const TopKParams &params) {
  detail::checkSortKeys(fn, t);
  if (t.rank() == 0)
    throw poputil::poplibs_error(std::string(fn) + ": input " + detail::describe(t) +
                                 " must have at least one dimension");
  std::vector<std::size_t> shape = t.shape();
  if (params.k > shape.back())
    throw poputil::poplibs_error(std::string(fn) + ": k (" + std::to_string(params.k) +
                                 ") is more than the innermost dimension of " + detail::describe(t));
  shape.back() = params.k;
  return shape;
}

detail::RowSelection selection(const TopKParams &params) {
  return {params.k, params.largest, params.sortOrder};
}

} // namespace

Tensor createTopKInput(poplar::Graph &graph, const poplar::Type &type, const std::vector<std::size_t> &shape,
                       const TopKParams &, const poplar::DebugContext &debugContext) {
  return detail::createLinearOutput(graph, type, shape, debugContext);
}

Tensor topK(poplar::Graph &graph, poplar::program::Sequence &prog, const Tensor &t, const TopKParams &params,
            const poplar::DebugContext &debugContext) {
  const auto shape = keptShape("topK", t, params);
  const Tensor out = detail::createLinearOutput(graph, t.elementType(), shape, {debugContext, "topK"});
  detail::selectInRows(graph, t, nullptr, out, nullptr, selection(params), prog, debugContext, "topK");
  return out;
}

std::pair<Tensor, Tensor> topKKeyValue(poplar::Graph &graph, poplar::program::Sequence &prog, const Tensor &keys,
                                       const Tensor &values, const TopKParams &params,
                                       const poplar::DebugContext &debugContext) {
  const auto shape = keptShape("topKKeyValue", keys, params);
  const Tensor outKeys = detail::createLinearOutput(graph, keys.elementType(), shape, {debugContext, "topKKeys"});
  const Tensor outValues =
      detail::createLinearOutput(graph, values.elementType(), shape, {debugContext, "topKValues"});
  detail::selectInRows(graph, keys, &values, outKeys, &outValues, selection(params), prog, debugContext,
                       "topKKeyValue");
  return {outKeys, outValues};
}

std::pair<Tensor, Tensor> topKWithPermutation(poplar::Graph &graph, poplar::program::Sequence &prog,
                                              const Tensor &t, const TopKParams &params,
                                              const poplar::DebugContext &debugContext) {
  keptShape("topKWithPermutation", t, params);
  // Each row's positions 0, 1, ..., carried along with the keys.
  const std::size_t length = t.dim(t.rank() - 1);
  const Tensor positionsRow =
      detail::createLinearOutput(graph, poplar::UNSIGNED_INT, {length}, {debugContext, "positions"});
  iota(graph, positionsRow, 0u, prog, debugContext);
  std::vector<std::size_t> rowShape(t.rank(), 1);
  rowShape.back() = length;
  Tensor positions = positionsRow.reshape(rowShape);
  for (unsigned d = 0; d + 1 < t.rank(); ++d) positions = positions.broadcast(unsigned(t.dim(d)), d);
  return topKKeyValue(graph, prog, t, positions, params, debugContext);
}

} // namespace popops
