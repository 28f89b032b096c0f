#include <poplar/CycleCount.hpp>
#include <poplar/exceptions.hpp>

#include "ProgramNode.hpp"

namespace poplar {

namespace {

using detail::ProgramNode;

// A program around a node made here (Program's node constructor is protected).
struct NodeProgram : program::Program {
  explicit NodeProgram(std::shared_ptr<ProgramNode> node) : Program(std::move(node)) {}
};

// The [lo32, hi32] result tensor on `tile`.
Tensor counterTensor(Graph &graph, unsigned tile, const DebugContext &dc, const char *api) {
  if (tile >= graph.getTarget().getNumTiles())
    throw poplar_error(std::string(api) + ": tile " + std::to_string(tile) +
                       " does not exist (the target has " +
                       std::to_string(graph.getTarget().getNumTiles()) + " tiles)");
  Tensor t = graph.addVariable(UNSIGNED_INT, {2}, dc);
  graph.setTileMapping(t, tile);
  return t;
}

std::shared_ptr<ProgramNode> counterNode(ProgramNode::Kind kind, const Tensor &dst, SyncType sync,
                                         const DebugContext &dc) {
  auto node = std::make_shared<ProgramNode>();
  node->kind = kind;
  node->name = dc.getPathName();
  node->debug = detail::DebugRecord::of(dc);
  node->tensors = {dst};
  node->id = static_cast<unsigned>(sync);
  return node;
}

} // namespace

Tensor cycleCount(Graph &graph, program::Sequence &prog, unsigned tile, SyncType syncType,
                  const DebugContext &debugContext) {
  Tensor count = counterTensor(graph, tile, {debugContext, "cycleCount"}, "cycleCount");
  auto node = counterNode(ProgramNode::Kind::CycleCount, count, syncType, debugContext);
  detail::adoptDepth(*node, prog);
  node->children = {prog};
  prog = program::Sequence({NodeProgram(std::move(node))}, debugContext);
  return count;
}

Tensor cycleStamp(Graph &graph, program::Sequence &prog, unsigned tile, SyncType syncType,
                  const DebugContext &debugContext) {
  Tensor stamp = counterTensor(graph, tile, {debugContext, "cycleStamp"}, "cycleStamp");
  prog.add(NodeProgram(counterNode(ProgramNode::Kind::CycleStamp, stamp, syncType, debugContext)));
  return stamp;
}

std::vector<Tensor> cycleStamp(Graph &graph, program::Sequence &prog,
                               const std::vector<unsigned> &tiles, SyncType syncType,
                               const DebugContext &debugContext) {
  std::vector<Tensor> stamps;
  for (unsigned tile : tiles) stamps.push_back(cycleStamp(graph, prog, tile, syncType, debugContext));
  return stamps;
}

} // namespace poplar
