#pragma once
// The kernel behind popops' Sort and TopK: each row of a tensor's innermost dimension
// is ordered by its keys, the first k kept, with the values (if any) carried along.
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

// Throws poplibs_error unless keys are FLOAT, HALF, INT or UNSIGNED_INT.
void checkSortKeys(const char *fn, const poplar::Tensor &keys);

} // namespace popops::detail
