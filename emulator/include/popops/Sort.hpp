#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

// Ascending sorts of the 1-D slices of a tensor along `dim` (NaN last; equal keys keep
// their order). Keys are FLOAT, HALF, INT or UNSIGNED_INT; an unknown dim or
// mismatched shapes raise poplibs_error.

// A sorted copy of t.
poplar::Tensor sort(poplar::Graph &graph, const poplar::Tensor &t, unsigned dim, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext = {});
// Sorts t where it is.
void sortInPlace(poplar::Graph &graph, const poplar::Tensor &t, unsigned dim, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext = {});
// A copy of v permuted as sorting the keys k (v's shape) permutes them.
poplar::Tensor sortKeyValue(poplar::Graph &graph, const poplar::Tensor &k, const poplar::Tensor &v, unsigned dim,
                            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
// Sorts k and permutes v likewise, both where they are.
void sortKeyValueInPlace(poplar::Graph &graph, const poplar::Tensor &k, const poplar::Tensor &v, unsigned dim,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops
