#pragma once
// The kernel behind popops' Sort and TopK: each row of a tensor's innermost dimension
// is ordered by its keys, the first k kept, with the values (if any) carried along.
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/SortOrder.hpp>

namespace popops::detail {

struct RowSelection {
  std::size_t k;     // elements kept per row
  bool largest;      // keep the k largest, else the k smallest
  SortOrder order;   // the order of the kept elements; NONE: their order in the row
};

// Writes into outKeys (and outValues) the selection from each innermost row of keys
// (and values, keys' shape). The outputs have keys' shape with the last dimension k;
// inputs and outputs may share elements (sorts in place).
void selectInRows(poplar::Graph &graph, const poplar::Tensor &keys, const poplar::Tensor *values,
                  const poplar::Tensor &outKeys, const poplar::Tensor *outValues, const RowSelection &selection,
                  poplar::program::Sequence &prog, const poplar::DebugContext &debugContext, const char *fn);

// Sets `order` to the first k of positions 0 .. length-1 in the strict weak order `before`,
// ties to the earlier position: a stable sort's first k. A few of many (top-k) in one pass,
// each position tested against the last of the best so far; else a partition and a sort.
template <class Before>
void firstInOrder(std::size_t length, std::size_t k, const Before &before, std::vector<std::size_t> &order) {
  const auto strictly = [&](std::size_t l, std::size_t r) { return before(l, r) || (!before(r, l) && l < r); };
  order.clear();
  if (k == 0) return;
  if (k * 8 < length) {
    for (std::size_t i = 0; i < length; ++i) {
      if (order.size() == k) {
        if (!before(i, order.back())) continue; // a tie stays out: i comes after every kept position
        order.pop_back();
      }
      order.insert(std::upper_bound(order.begin(), order.end(), i, strictly), i);
    }
    return;
  }
  order.resize(length);
  std::iota(order.begin(), order.end(), std::size_t(0));
  const auto kept = order.begin() + static_cast<std::ptrdiff_t>(k);
  if (k < length) std::nth_element(order.begin(), kept, order.end(), strictly);
  std::sort(order.begin(), kept, strictly);
  order.resize(k);
}

// Throws poplibs_error unless keys are FLOAT, HALF, INT or UNSIGNED_INT.
void checkSortKeys(const char *fn, const poplar::Tensor &keys);

} // namespace popops::detail
