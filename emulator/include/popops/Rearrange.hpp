#pragma once
// Rearranging tensors in memory (popops::rearrange): the regrouping functions return
// tensors with the contents of their input.
//
// Emulator: layout does not change results, so regroupTensor copies into a clone (one
// Copy, added to the sequence or the vector) and regroupIfPossible / regroupIfBeneficial
// return their input as it is (a regrouping is never needed). The transpositions are one
// kernel each, costed as element copies whether or not the fast codelets would apply.
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poputil/VarStructure.hpp>

namespace popops {
namespace rearrange {

// Whether the fast transposition codelets take numTranspositions matrices of
// numRows x numColumns elements of `type`: 1-byte QUARTER with rows and columns multiples
// of 8, or a 2-byte type (HALF, SHORT, UNSIGNED_SHORT) with multiples of 4; in either case
// at most 65535 transpositions and at most the target's repeat count of 8- or 4-row blocks.
bool canUseFastTranspose(const poplar::Target &target, const poplar::Type &type, unsigned numRows,
                         unsigned numColumns, unsigned numTranspositions);

// Adds to cs the transposition of every matrix a tile's intervals of `mapping` index:
// getInOut(i) gives the i-th pair (in, out), flattened rows x cols and cols x rows of dType.
void addTransposeVertices(poplar::Graph &graph, const poplar::ComputeSet &cs, const poplar::Type &dType,
                          unsigned rows, unsigned cols, const poplar::Graph::TileToTensorMapping &mapping,
                          std::function<std::pair<const poplar::Tensor, const poplar::Tensor>(size_t)> getInOut,
                          const poplar::DebugContext &debugContext = {});

// A new tensor holding `in` with its innermost two dimensions swapped, written by cs.
poplar::Tensor partialTranspose(poplar::Graph &graph, const poplar::Tensor &in, const poplar::ComputeSet &cs,
                                const poplar::DebugContext &debugContext = {});

// The smallest grouping the fast transposition codelets regroup between: 8 for 1-byte
// QUARTER, 4 for 2-byte types, 2 for 4-byte types, else 1.
unsigned getMinimumRegroupGrainSize(const poplar::Type &type);

// t's contents grouped as `to` (a no-op for a one-dimensional t).
poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &copies,
                             const poplar::ComputeSet &transposeCS, const poputil::GroupingInfo &from,
                             const poputil::GroupingInfo &to, const poplar::DebugContext &debugContext = {});
poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t,
                             std::vector<poplar::program::Copy> &copies, const poplar::ComputeSet &transposeCS,
                             const poputil::GroupingInfo &from, const poputil::GroupingInfo &to,
                             const poplar::DebugContext &debugContext = {});
poplar::Tensor regroupIfPossible(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog,
                                 const poputil::GroupingInfo &to, const poplar::DebugContext &debugContext = {});
poplar::Tensor regroupIfBeneficial(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &ref,
                                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
poplar::Tensor regroupIfBeneficial(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &ref,
                                   std::vector<poplar::program::Copy> &copies, poplar::ComputeSet transposeCS,
                                   const poplar::DebugContext &debugContext = {});
poplar::Tensor regroupIfBeneficial(poplar::Graph &graph, const poplar::Tensor &in, std::size_t preferredGrouping,
                                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace rearrange
} // namespace popops
