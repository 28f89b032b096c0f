#pragma once
#include <iosfwd>
#include <utility>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/SortOrder.hpp>

namespace popops {

struct TopKParams {
  // How many elements each innermost row keeps (at most the row's length).
  unsigned k;
  // The k largest when true, else the k smallest.
  bool largest;
  // The order of the k results; NONE keeps them in the order they had in the row.
  SortOrder sortOrder;
  // Equal elements keep their order in the row (the emulator always does).
  bool stableSort;

  TopKParams(unsigned k, bool largest, SortOrder sortOrder, bool stableSort = false) noexcept;
};

std::ostream &operator<<(std::ostream &os, const TopKParams &p);

// A new tensor of `shape`, mapped over the tiles, to be the input of a top-k.
poplar::Tensor createTopKInput(poplar::Graph &graph, const poplar::Type &type,
                               const std::vector<std::size_t> &shape, const TopKParams &params,
                               const poplar::DebugContext &debugContext = {});

// The top k of each innermost row of t: t's shape with the last dimension k.
// Element types FLOAT, HALF, INT and UNSIGNED_INT.
poplar::Tensor topK(poplar::Graph &graph, poplar::program::Sequence &prog, const poplar::Tensor &t,
                    const TopKParams &params, const poplar::DebugContext &debugContext = {});
// The top k of keys and the elements of values (keys' shape) at the same places.
std::pair<poplar::Tensor, poplar::Tensor> topKKeyValue(poplar::Graph &graph, poplar::program::Sequence &prog,
                                                       const poplar::Tensor &keys, const poplar::Tensor &values,
                                                       const TopKParams &params,
                                                       const poplar::DebugContext &debugContext = {});
// The top k of t and their positions in the row (UNSIGNED_INT).
std::pair<poplar::Tensor, poplar::Tensor> topKWithPermutation(poplar::Graph &graph,
                                                              poplar::program::Sequence &prog,
                                                              const poplar::Tensor &t, const TopKParams &params,
                                                              const poplar::DebugContext &debugContext = {});

} // namespace popops
