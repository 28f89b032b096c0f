#pragma once
// Collectives between the replicas of a replicated graph (GCL, SDK 3.3 names). Each
// function adds one cross-replica program to `prog`; every replica must run it.
//
// Emulator: results are exact and deterministic (reduced in rank order, in long
// double, rounded once); the options are accepted and ignored.
#include <iosfwd>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace gcl {

// MEAN: FLOAT and HALF only; LOGICAL_AND/OR: BOOL only; SQUARE_ADD squares before
// adding; LOCAL keeps each replica's own value.
enum class CollectiveOperator { ADD, MEAN, MUL, MIN, MAX, LOGICAL_AND, LOGICAL_OR, SQUARE_ADD, LOCAL };

// With N replicas and group size k: ALL is one group of all N (the size is ignored);
// CONSECUTIVE groups {0..k-1}, {k..2k-1}, ...; ORTHOGONAL groups k replicas N/k apart.
enum class CommGroupType { ALL, CONSECUTIVE, ORTHOGONAL };

struct CommGroup {
  CommGroup() = default;
  CommGroup(const CommGroupType groupType, unsigned groupSize, unsigned replicaStride = 1)
      : type(groupType), replicaGroupSize(groupSize), replicaStride(replicaStride) {}

  CommGroupType type = CommGroupType::ALL;
  unsigned replicaGroupSize = 0; // 0: the type's default (all replicas)
  unsigned replicaStride = 1;    // emulator: only 1
};

// The enumerators' names ("ADD", "CONSECUTIVE", ...); >> reads a CollectiveOperator's name
// and raises poplibs_error for any other word. A CommGroup prints as
// "CommGroup(CONSECUTIVE, size 2, stride 1)".
std::ostream &operator<<(std::ostream &os, const CollectiveOperator &op);
std::istream &operator>>(std::istream &is, CollectiveOperator &op);
std::ostream &operator<<(std::ostream &os, const CommGroupType &type);
std::ostream &operator<<(std::ostream &os, const CommGroup &group);

// Every replica gets the reduction of the group's `data` (same shape and mapping).
poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, CollectiveOperator op,
                                     poplar::program::Sequence &prog, const CommGroup &group,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, CollectiveOperator op,
                                     poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
std::vector<poplar::Tensor> allReduceCrossReplica(poplar::Graph &graph, const std::vector<poplar::Tensor> &datas,
                                                  CollectiveOperator op, poplar::program::Sequence &prog,
                                                  const CommGroup &group,
                                                  const poplar::DebugContext &debugContext = {},
                                                  const poplar::OptionFlags &options = {});
// The reduction written over `data`.
void allReduceInPlaceCrossReplica(poplar::Graph &graph, poplar::Tensor &data, CollectiveOperator op,
                                  poplar::program::Sequence &prog, const CommGroup &group,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
void allReduceInPlaceCrossReplica(poplar::Graph &graph, poplar::Tensor &data, CollectiveOperator op,
                                  poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
// The reduction written to `destination` (the shape and type of `data`).
void allReduceToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                        poplar::Tensor &destination, CollectiveOperator op,
                                        poplar::program::Sequence &prog, const CommGroup &group,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {});
// The reduction of the flattened `data`, split into group-size chunks of
// ceil(n / group size) elements (zero-padded): the replica of rank k gets chunk k.
poplar::Tensor reduceScatterCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, CollectiveOperator op,
                                         poplar::program::Sequence &prog, const CommGroup &group,
                                         const poplar::DebugContext &debugContext = {},
                                         const poplar::OptionFlags &options = {});
poplar::Tensor reduceScatterCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, CollectiveOperator op,
                                         poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debugContext = {},
                                         const poplar::OptionFlags &options = {});
// [group size, data's shape...]: element k is the data of the group's replica of rank k.
poplar::Tensor allGatherCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     poplar::program::Sequence &prog, const CommGroup &group,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
poplar::Tensor allGatherCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
// Every replica gets the data of the group's replica of rank `rootReplica`. The SDK's
// name and parameters for this collective are not confirmed.
poplar::Tensor broadcastCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     poplar::program::Sequence &prog, const CommGroup &group = CommGroup(),
                                     unsigned rootReplica = 0, const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
// [group size, ...] -> [group size, ...]: the group's replica of rank j gets row j of
// every member's data, the row from the replica of rank i at position i.
poplar::Tensor allToAllCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                    poplar::program::Sequence &prog, const CommGroup &group,
                                    const poplar::DebugContext &debugContext = {},
                                    const poplar::OptionFlags &options = {});
poplar::Tensor allToAllCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                                    const poplar::OptionFlags &options = {});

} // namespace gcl
