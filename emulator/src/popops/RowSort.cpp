#include "RowSort.hpp"

#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "KernelSupport.hpp"
#include "poplar/AccessValues.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popops::detail {

namespace {

using poplar::Tensor;
using poplar::detail::Access;
using poplar::detail::ByteReader;
using poplar::detail::ByteWriter;
using poplar::detail::KernelCompile;

// Ascending with NaN after every number: the order numpy sorts in.
bool ascending(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) && std::isnan(b);
  return a < b;
}

// The positions in `row` of the kept elements, in the order they are written.
std::vector<std::size_t> selectedPositions(const double *row, std::size_t length, const RowSelection &s) {
  std::vector<std::size_t> order(length);
  std::iota(order.begin(), order.end(), std::size_t(0));
  // Stable sorts: among equal keys the earlier position comes first.
  auto best = [&](std::size_t l, std::size_t r) {
    return s.largest ? ascending(row[r], row[l]) : ascending(row[l], row[r]);
  };
  std::stable_sort(order.begin(), order.end(), best);
  order.resize(s.k);
  if (s.order == SortOrder::NONE) {
    std::sort(order.begin(), order.end());
  } else if ((s.order == SortOrder::ASCENDING) == s.largest) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) {
      return s.order == SortOrder::ASCENDING ? ascending(row[l], row[r]) : ascending(row[r], row[l]);
    });
  }
  return order;
}

// Reads: keys[, values]; writes: outKeys[, outValues].
KernelCompile rowSortCompile(ByteReader &params) {
  RowSelection s{};
  const std::size_t length = params.u64();
  s.k = params.u64();
  s.largest = params.boolean();
  const std::uint64_t order = params.u64();
  const bool withValues = params.boolean();
  if (order > static_cast<std::uint64_t>(SortOrder::DESCENDING))
    throw poplar::poplar_error("popops::RowSort: unknown sort order " + std::to_string(order));
  s.order = static_cast<SortOrder>(order);
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    const std::size_t count = withValues ? 4 : 2;
    poplar::detail::KernelOperands check("popops::RowSort", ops, count);
    check.require(s.k <= length && (length ? ops[0].numElements % length == 0 : ops[0].numElements == 0),
                  "k or the row length does not fit the keys");
    const std::size_t rows = length ? ops[0].numElements / length : 0;
    const std::size_t keptElements = check.product({rows, s.k});
    check.elements(count / 2, keptElements);
    if (withValues) check.elements(1, ops[0].numElements).elements(3, keptElements);
    return [=] {
      std::vector<double> keys, values, outKeys(keptElements), outValues(withValues ? keptElements : 0);
      poplar::detail::readValues(ops[0], keys);
      if (withValues) poplar::detail::readValues(ops[1], values);
      for (std::size_t r = 0; r < rows; ++r) {
        const std::vector<std::size_t> kept = selectedPositions(&keys[r * length], length, s);
        for (std::size_t i = 0; i < s.k; ++i) {
          outKeys[r * s.k + i] = keys[r * length + kept[i]];
          if (withValues) outValues[r * s.k + i] = values[r * length + kept[i]];
        }
      }
      poplar::detail::writeValues(ops[count / 2], outKeys);
      if (withValues) poplar::detail::writeValues(ops[3], outValues);
    };
  };
}
const poplar::detail::KernelKind rowSortKind("popops::RowSort", rowSortCompile);

// Estimated compare-and-moves per element of a row: a merge sort's log2 n passes.
unsigned sortCycles(std::size_t length) {
  unsigned passes = 1;
  while ((std::size_t(1) << passes) < length) ++passes;
  return passes + 1;
}

} // namespace

void checkSortKeys(const char *fn, const Tensor &keys) {
  const poplar::Type t = keys.elementType();
  if (t != poplar::FLOAT && t != poplar::HALF && t != poplar::INT && t != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error(std::string(fn) + ": keys " + describe(keys) +
                                 " must be FLOAT, HALF, INT or UNSIGNED_INT");
}

void selectInRows(poplar::Graph &graph, const Tensor &keys, const Tensor *values, const Tensor &outKeys,
                  const Tensor *outValues, const RowSelection &selection, poplar::program::Sequence &prog,
                  const poplar::DebugContext &debugContext, const char *fn) {
  if (keys.rank() == 0)
    throw poputil::poplibs_error(std::string(fn) + ": keys " + describe(keys) + " must have at least one dimension");
  if (values && values->shape() != keys.shape())
    throw poputil::poplibs_error(std::string(fn) + ": values " + describe(*values) + " and keys " + describe(keys) +
                                 " have different shapes");
  const std::size_t length = keys.dim(keys.rank() - 1);
  ByteWriter params;
  params.u64(length).u64(selection.k).boolean(selection.largest).u64(static_cast<std::uint64_t>(selection.order))
      .boolean(values != nullptr);
  std::vector<Tensor> reads = {keys}, writes = {outKeys};
  if (values) {
    reads.push_back(*values);
    writes.push_back(*outValues);
  }
  auto kernel = poplar::detail::makeKernel("popops::RowSort", std::move(reads), std::move(writes), params.take());
  kernel.cyclesPerVector = sortCycles(length);
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
}

} // namespace popops::detail
