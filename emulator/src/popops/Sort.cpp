#include <popops/Sort.hpp>

#include <poputil/exceptions.hpp>

#include "KernelSupport.hpp"
#include "RowSort.hpp"

namespace popops {

using poplar::Tensor;

namespace {

// t with `dim` moved innermost, where the row kernel sorts.
Tensor rowsAlong(const char *fn, const Tensor &t, unsigned dim) {
  if (dim >= t.rank())
    throw poputil::poplibs_error(std::string(fn) + ": dim " + std::to_string(dim) + " is not a dimension of " +
                                 detail::describe(t));
  return t.dimRoll(dim, t.rank() - 1);
}

void sortInto(poplar::Graph &graph, const Tensor &k, const Tensor *v, const Tensor &outK, const Tensor *outV,
              unsigned dim, poplar::program::Sequence &prog, const poplar::DebugContext &dc, const char *fn) {
  detail::checkSortKeys(fn, k);
  if (v && v->shape() != k.shape())
    throw poputil::poplibs_error(std::string(fn) + ": values " + detail::describe(*v) + " and keys " +
                                 detail::describe(k) + " have different shapes");
  const Tensor keys = rowsAlong(fn, k, dim);
  const detail::RowSelection all{keys.dim(keys.rank() - 1), false, SortOrder::ASCENDING};
  const Tensor outKeys = outK.dimRoll(dim, k.rank() - 1);
  if (!v) return detail::selectInRows(graph, keys, nullptr, outKeys, nullptr, all, prog, dc, fn);
  const Tensor values = v->dimRoll(dim, k.rank() - 1), outValues = outV->dimRoll(dim, k.rank() - 1);
  detail::selectInRows(graph, keys, &values, outKeys, &outValues, all, prog, dc, fn);
}

} // namespace

Tensor sort(poplar::Graph &graph, const Tensor &t, unsigned dim, poplar::program::Sequence &prog,
            const poplar::DebugContext &debugContext) {
  const Tensor out = graph.clone(t, poplar::DebugContext(debugContext, "sorted"));
  sortInto(graph, t, nullptr, out, nullptr, dim, prog, debugContext, "sort");
  return out;
}

void sortInPlace(poplar::Graph &graph, const Tensor &t, unsigned dim, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext) {
  sortInto(graph, t, nullptr, t, nullptr, dim, prog, debugContext, "sortInPlace");
}

Tensor sortKeyValue(poplar::Graph &graph, const Tensor &k, const Tensor &v, unsigned dim,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  // The sorted keys are not returned: they go to a scratch copy.
  const Tensor sortedKeys = graph.clone(k, poplar::DebugContext(debugContext, "sortedKeys"));
  const Tensor out = graph.clone(v, poplar::DebugContext(debugContext, "sorted"));
  sortInto(graph, k, &v, sortedKeys, &out, dim, prog, debugContext, "sortKeyValue");
  return out;
}

void sortKeyValueInPlace(poplar::Graph &graph, const Tensor &k, const Tensor &v, unsigned dim,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  sortInto(graph, k, &v, k, &v, dim, prog, debugContext, "sortKeyValueInPlace");
}

} // namespace popops
