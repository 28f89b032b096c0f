#include "RowSort.hpp"

#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

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
using poplar::detail::ValueRows;

// Ascending with NaN after every number: the order numpy sorts in.
bool ascending(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) && std::isnan(b);
  return a < b;
}

// Sets `order` to the positions in `row` of the kept elements, in the order they are written.
void selectedPositions(const double *row, std::size_t length, const RowSelection &s, std::vector<std::size_t> &order) {
  firstInOrder(length, s.k, [&](std::size_t l, std::size_t r) {
    return s.largest ? ascending(row[r], row[l]) : ascending(row[l], row[r]);
  }, order);
  if (s.order == SortOrder::NONE) {
    std::sort(order.begin(), order.end());
  } else if ((s.order == SortOrder::ASCENDING) == s.largest) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t l, std::size_t r) {
      return s.order == SortOrder::ASCENDING ? ascending(row[l], row[r]) : ascending(row[r], row[l]);
    });
  }
}

// Reads: keys[, values]; writes: outKeys[, outValues]. Rows on the thread pool.
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
    const auto keys = std::make_shared<ValueRows>(ops[0], length);
    const auto values = withValues ? std::make_shared<ValueRows>(ops[1], length) : nullptr;
    return [=] {
      // Every row read before any is written: the outputs may be the inputs (sorts in place).
      std::vector<std::size_t> kept(keptElements);
      std::vector<double> outKeys(keptElements), outValues(withValues ? keptElements : 0);
      keys->forEachRow([&](std::size_t r, const double *row) {
        thread_local std::vector<std::size_t> positions;
        selectedPositions(row, length, s, positions);
        for (std::size_t i = 0; i < s.k; ++i) outKeys[r * s.k + i] = row[kept[r * s.k + i] = positions[i]];
      });
      if (withValues)
        values->forEachRow([&](std::size_t r, const double *row) {
          for (std::size_t i = 0; i < s.k; ++i) outValues[r * s.k + i] = row[kept[r * s.k + i]];
        });
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
