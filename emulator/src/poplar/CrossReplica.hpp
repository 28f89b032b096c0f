#pragma once
// Collectives between replicas (gcl's cross-replica functions build them): what a
// CrossReplica program node asks for, and the step that runs it across the replicas.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "Access.hpp"
#include "EngineState.hpp"

namespace poplar::detail {

// Copy: program::CrossReplicaCopy's sends from one replica to another. AllToAll: the
// group's replica of rank j gets row j of every member's data, in rank order.
enum class Collective : unsigned { AllReduce, ReduceScatter, AllGather, Broadcast, Copy, AllToAll };

// The reductions, numbered as gcl::CollectiveOperator.
enum class ReplicaReduction : unsigned { Add, Mean, Mul, Min, Max, LogicalAnd, LogicalOr, SquareAdd, Local };

// gcl::CommGroupType: the replicas one replica exchanges with.
enum class ReplicaGroupType : unsigned { All, Consecutive, Orthogonal };

// Kept in a CrossReplica node's caseValues, in this order.
struct CrossReplicaSpec {
  Collective collective = Collective::AllReduce;
  ReplicaReduction reduction = ReplicaReduction::Add;
  ReplicaGroupType groupType = ReplicaGroupType::All;
  unsigned groupSize = 0; // 0: all replicas
  unsigned root = 0;      // Broadcast: the group member whose data everyone gets
  std::vector<std::pair<unsigned, unsigned>> copies; // Copy: (from, to) replicas, after the fields above

  std::vector<std::int32_t> encode() const;
  // Throws graph_program_compilation_error for values that name nothing.
  static CrossReplicaSpec decode(const std::vector<std::int32_t> &values);
  // The replicas in `replica`'s group (of `replicas`), in rank order; throws
  // graph_replication_error when the group size does not divide the replicas.
  std::vector<unsigned> group(unsigned replica, unsigned replicas) const;
  // The size of one group of `replicas`.
  unsigned sizeOfGroup(unsigned replicas) const;
  // Throws graph_program_compilation_error, naming `program`, when a copy names a replica
  // past `replicas`.
  void checkReplicas(unsigned replicas, const std::string &program) const;
  // The bytes each replica sends over the IPU-Links for `bytes` of input, as a ring
  // does it: reduce-scatter and all-gather pass (k-1)/k of the data, all-reduce both,
  // broadcast all of it.
  std::uint64_t linkBytes(std::uint64_t bytes, unsigned replicas) const;
};

// Reads src on every replica of a group and writes each replica's dst; results are
// computed in long double in rank order (the same on every run) before any dst is
// written, so src and dst may be the same tensor. An engine that runs a slice of the
// replicas gets the others' src from the other instances and writes its own replicas'
// dst, with the bits one engine running every replica would write.
struct CollectiveStep : CrossReplicaStep {
  CrossReplicaSpec spec;
  Access src, dst;
  void runAcross(const std::vector<CrossReplicaStep *> &local, const ReplicaSlice &slice,
                 const std::string &where) override;
  // What every instance must agree on: the collective, its description and its operands.
  std::string describe() const;
};

} // namespace poplar::detail
