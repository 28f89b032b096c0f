// gcl's cross-replica collectives: each adds one CrossReplica program node, which the
// Engine runs across the replicas (poplar/CrossReplica.cpp).
#include <gcl/Collectives.hpp>

#include <poplar/exceptions.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <memory>
#include <string>

#include "poplar/CrossReplica.hpp"
#include "poplar/ProgramNode.hpp"
#include "poplar/TensorImpl.hpp"

namespace gcl {

namespace {

using poplar::Graph;
using poplar::Tensor;
using poplar::program::Sequence;
using poplar::detail::Collective;
using poplar::detail::CrossReplicaSpec;
using poplar::detail::ReplicaGroupType;
using poplar::detail::ReplicaReduction;
using poputil::poplibs_error;

static_assert(static_cast<unsigned>(CollectiveOperator::LOCAL) == static_cast<unsigned>(ReplicaReduction::Local),
              "gcl::CollectiveOperator and the emulator's reductions are numbered alike");
static_assert(static_cast<unsigned>(CommGroupType::ORTHOGONAL) == static_cast<unsigned>(ReplicaGroupType::Orthogonal),
              "gcl::CommGroupType and the emulator's group types are numbered alike");

const char *operatorName(CollectiveOperator op) {
  static const char *const names[] = {"ADD", "MEAN", "MUL", "MIN", "MAX", "LOGICAL_AND", "LOGICAL_OR", "SQUARE_ADD", "LOCAL"};
  return names[static_cast<unsigned>(op)];
}

std::string describe(const Tensor &t) { return poplar::detail::tensorImpl(t).describe(); }

// The spec of a collective on `data` in `graph`; poplibs_error names what does not fit.
CrossReplicaSpec specFor(const char *what, Graph &graph, const Tensor &data, Collective collective,
                         CollectiveOperator op, const CommGroup &group) {
  if (!data.valid()) throw poplibs_error(std::string(what) + ": the tensor is not valid");
  const poplar::Type type = data.elementType();
  const bool isBool = type == poplar::BOOL, isFloat = type == poplar::FLOAT || type == poplar::HALF;
  const bool logical = op == CollectiveOperator::LOGICAL_AND || op == CollectiveOperator::LOGICAL_OR;
  if (collective == Collective::AllReduce || collective == Collective::ReduceScatter) {
    if (logical != isBool && op != CollectiveOperator::LOCAL)
      throw poplibs_error(std::string(what) + ": operator " + operatorName(op) + " does not apply to tensor " +
                          describe(data) + (logical ? " (LOGICAL_AND/OR need BOOL)" : " (BOOL needs LOGICAL_AND/OR)"));
    if (op == CollectiveOperator::MEAN && !isFloat)
      throw poplibs_error(std::string(what) + ": MEAN needs a FLOAT or HALF tensor, not " + describe(data));
  }
  if (group.replicaStride != 1)
    throw poplibs_error(std::string(what) + ": a replica stride of " + std::to_string(group.replicaStride) +
                        " is not supported by the emulator (only 1)");
  CrossReplicaSpec spec;
  spec.collective = collective;
  spec.reduction = static_cast<ReplicaReduction>(static_cast<unsigned>(op));
  spec.groupType = static_cast<ReplicaGroupType>(static_cast<unsigned>(group.type));
  spec.groupSize = group.replicaGroupSize;
  spec.sizeOfGroup(graph.getReplicationFactor()); // throws when the groups do not divide the replicas
  return spec;
}

void addCollective(Sequence &prog, const CrossReplicaSpec &spec, const Tensor &src, const Tensor &dst,
                   const poplar::DebugContext &debugContext, const char *defaultName) {
  auto node = std::make_shared<poplar::detail::ProgramNode>();
  node->kind = poplar::detail::ProgramNode::Kind::CrossReplica;
  node->name = debugContext.getPathName().empty() ? defaultName : debugContext.getPathName();
  node->debug = poplar::detail::DebugRecord::of(debugContext);
  node->tensors = {src, dst};
  node->caseValues = spec.encode();
  prog.add(poplar::detail::programFromNode(std::move(node)));
}

void checkSameShape(const char *what, const Tensor &data, const Tensor &destination) {
  if (data.shape() != destination.shape() || data.elementType() != destination.elementType())
    throw poplibs_error(std::string(what) + ": the destination " + describe(destination) +
                        " must have the shape and type of the data " + describe(data));
}

} // namespace

Tensor allReduceCrossReplica(Graph &graph, const Tensor &data, CollectiveOperator op, Sequence &prog,
                             const CommGroup &group, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options) {
  const CrossReplicaSpec spec = specFor("allReduceCrossReplica", graph, data, Collective::AllReduce, op, group);
  Tensor out = graph.clone(data, {debugContext, "allReduce"});
  addCollective(prog, spec, data, out, debugContext, "allReduce");
  return out;
}

Tensor allReduceCrossReplica(Graph &graph, const Tensor &data, CollectiveOperator op, Sequence &prog,
                             const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return allReduceCrossReplica(graph, data, op, prog, CommGroup(), debugContext, options);
}

std::vector<Tensor> allReduceCrossReplica(Graph &graph, const std::vector<Tensor> &datas, CollectiveOperator op,
                                          Sequence &prog, const CommGroup &group,
                                          const poplar::DebugContext &debugContext,
                                          const poplar::OptionFlags &options) {
  std::vector<Tensor> outs;
  for (const Tensor &data : datas) outs.push_back(allReduceCrossReplica(graph, data, op, prog, group, debugContext, options));
  return outs;
}

void allReduceInPlaceCrossReplica(Graph &graph, Tensor &data, CollectiveOperator op, Sequence &prog,
                                  const CommGroup &group, const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &) {
  const CrossReplicaSpec spec = specFor("allReduceInPlaceCrossReplica", graph, data, Collective::AllReduce, op, group);
  addCollective(prog, spec, data, data, debugContext, "allReduceInPlace");
}

void allReduceInPlaceCrossReplica(Graph &graph, Tensor &data, CollectiveOperator op, Sequence &prog,
                                  const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  allReduceInPlaceCrossReplica(graph, data, op, prog, CommGroup(), debugContext, options);
}

void allReduceToDestinationCrossReplica(Graph &graph, const Tensor &data, Tensor &destination, CollectiveOperator op,
                                        Sequence &prog, const CommGroup &group,
                                        const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  const CrossReplicaSpec spec =
      specFor("allReduceToDestinationCrossReplica", graph, data, Collective::AllReduce, op, group);
  checkSameShape("allReduceToDestinationCrossReplica", data, destination);
  addCollective(prog, spec, data, destination, debugContext, "allReduceToDestination");
}

Tensor reduceScatterCrossReplica(Graph &graph, const Tensor &data, CollectiveOperator op, Sequence &prog,
                                 const CommGroup &group, const poplar::DebugContext &debugContext,
                                 const poplar::OptionFlags &) {
  const CrossReplicaSpec spec = specFor("reduceScatterCrossReplica", graph, data, Collective::ReduceScatter, op, group);
  const std::size_t size = spec.sizeOfGroup(graph.getReplicationFactor());
  const std::size_t chunk = (data.numElements() + size - 1) / size;
  Tensor out = graph.addVariable(data.elementType(), {chunk}, {debugContext, "reduceScatter"});
  poputil::mapTensorLinearly(graph, out);
  addCollective(prog, spec, data.flatten(), out, debugContext, "reduceScatter");
  return out;
}

Tensor reduceScatterCrossReplica(Graph &graph, const Tensor &data, CollectiveOperator op, Sequence &prog,
                                 const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return reduceScatterCrossReplica(graph, data, op, prog, CommGroup(), debugContext, options);
}

Tensor allGatherCrossReplica(Graph &graph, const Tensor &data, Sequence &prog, const CommGroup &group,
                             const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  const CrossReplicaSpec spec =
      specFor("allGatherCrossReplica", graph, data, Collective::AllGather, CollectiveOperator::LOCAL, group);
  Tensor out = graph.cloneN(data, spec.sizeOfGroup(graph.getReplicationFactor()), {debugContext, "allGather"});
  addCollective(prog, spec, data, out, debugContext, "allGather");
  return out;
}

Tensor allGatherCrossReplica(Graph &graph, const Tensor &data, Sequence &prog,
                             const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return allGatherCrossReplica(graph, data, prog, CommGroup(), debugContext, options);
}

Tensor broadcastCrossReplica(Graph &graph, const Tensor &data, Sequence &prog, const CommGroup &group,
                             unsigned rootReplica, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &) {
  CrossReplicaSpec spec =
      specFor("broadcastCrossReplica", graph, data, Collective::Broadcast, CollectiveOperator::LOCAL, group);
  const unsigned size = spec.sizeOfGroup(graph.getReplicationFactor());
  if (rootReplica >= size)
    throw poplibs_error("broadcastCrossReplica: root replica " + std::to_string(rootReplica) +
                        " is not a rank of the group of " + std::to_string(size) + " replicas");
  spec.root = rootReplica;
  Tensor out = graph.clone(data, {debugContext, "broadcast"});
  addCollective(prog, spec, data, out, debugContext, "broadcast");
  return out;
}

Tensor allToAllCrossReplica(Graph &graph, const Tensor &data, Sequence &prog, const CommGroup &group,
                            const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  const CrossReplicaSpec spec =
      specFor("allToAllCrossReplica", graph, data, Collective::AllToAll, CollectiveOperator::LOCAL, group);
  const unsigned size = spec.sizeOfGroup(graph.getReplicationFactor());
  if (data.rank() == 0 || data.dim(0) != size)
    throw poplibs_error("allToAllCrossReplica: the first dimension of " + describe(data) +
                        " must be the group's size, " + std::to_string(size) + " (one row for each replica)");
  Tensor out = graph.clone(data, {debugContext, "allToAll"});
  addCollective(prog, spec, data, out, debugContext, "allToAll");
  return out;
}

Tensor allToAllCrossReplica(Graph &graph, const Tensor &data, Sequence &prog,
                            const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return allToAllCrossReplica(graph, data, prog, CommGroup(), debugContext, options);
}

} // namespace gcl
