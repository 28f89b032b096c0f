#pragma once
// Rearranging tensors in memory (popops::rearrange): the regrouping functions return
// tensors with the contents of their input.
//
// Emulator: layout does not change results, so regroupTensor copies into a clone (one
// Copy, added to the sequence or the vector) and regroupIfPossible / regroupIfBeneficial
// return their input as it is (a regrouping is never needed). The fast-transposition
// queries, partialTranspose and addTransposeVertices are not provided.
#include <cstddef>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poputil/VarStructure.hpp>

namespace popops {
namespace rearrange {

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
