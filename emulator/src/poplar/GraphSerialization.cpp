// Graph::serialize: the whole graph as one JSON document (what PopVision users archive with
// autoReport.outputSerializedGraph); Graph::outputVertexGraph, the older SDKs' name for
// outputComputeGraph.
#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>

#include <ostream>

#include "Codelets.hpp"
#include "GraphState.hpp"
#include "JsonText.hpp"
#include "VertexState.hpp"

namespace poplar {

void Graph::outputVertexGraph(std::ostream &out, ArrayRef<program::Program> progs) const {
  outputComputeGraph(out, progs);
}

void Graph::serialize(std::ostream &out, SerializationFormat format) const {
  if (format != SerializationFormat::Binary && format != SerializationFormat::JSON)
    throw poplar_error("Graph::serialize: unknown SerializationFormat " + std::to_string(static_cast<int>(format)));
  const detail::GraphState &g = *state_;
  const Target &target = getTarget();
  out << "{\"format\":\"popdsl emulator graph\",\"version\":1,\"target\":{\"arch\":";
  detail::writeJsonString(out, target.getTargetArchString().str());
  out << ",\"ipus\":" << target.getNumIPUs() << ",\"tilesPerIpu\":" << target.getTilesPerIPU()
      << ",\"replicationFactor\":" << g.replicationFactor << "},\"variables\":[";
  for (std::size_t id = 0; id < g.vars->vars.size(); ++id) {
    const detail::Variable &v = g.vars->vars[id];
    out << (id ? "," : "") << "{\"name\":";
    detail::writeJsonString(out, v.name);
    out << ",\"type\":";
    detail::writeJsonString(out, v.type.toString());
    out << ",\"constant\":" << (v.isConstant ? "true" : "false") << ",\"shape\":[";
    for (std::size_t d = 0; d < v.shape.size(); ++d) out << (d ? "," : "") << v.shape[d];
    out << "],\"mapping\":[";
    bool first = true;
    for (const auto &range : v.mapping) { // [begin, end, tile]
      out << (first ? "" : ",") << "[" << range.first << "," << range.second.first << "," << range.second.second << "]";
      first = false;
    }
    out << "]}";
  }
  out << "],\"computeSets\":[";
  for (std::size_t id = 0; id < g.computeSets.size(); ++id) {
    const detail::ComputeSetInfo &cs = g.computeSets[id];
    out << (id ? "," : "") << "{\"name\":";
    detail::writeJsonString(out, cs.name);
    out << ",\"vertices\":" << cs.kernels.size() << "}";
  }
  out << "],\"vertices\":[";
  for (std::size_t id = 0; id < g.vertices.size(); ++id) {
    const detail::VertexInfo &v = g.vertices[id];
    out << (id ? "," : "") << "{\"type\":";
    detail::writeJsonString(out, v.cls->name);
    out << ",\"computeSet\":" << v.computeSet << ",\"tile\":" << v.tile << "}";
  }
  out << "]}\n";
  if (!out) throw poplar_error("Graph::serialize: writing the stream failed");
}

} // namespace poplar
