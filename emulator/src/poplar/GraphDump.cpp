// Graph::outputComputeGraph: the graph's variables, compute sets and programs as text.
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

#include <algorithm>
#include <ostream>

#include "GraphState.hpp"
#include "TensorImpl.hpp"

namespace poplar {

namespace {

// "tiles 0-3,7" for a variable's mapping, "unmapped" when it has none.
std::string tilesOf(const detail::Variable &v) {
  std::vector<unsigned> tiles;
  for (const auto &range : v.mapping) tiles.push_back(range.second.second);
  std::sort(tiles.begin(), tiles.end());
  tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
  if (tiles.empty()) return "unmapped";
  std::string out = "tiles ";
  for (std::size_t i = 0; i < tiles.size();) {
    std::size_t j = i;
    while (j + 1 < tiles.size() && tiles[j + 1] == tiles[j] + 1) ++j;
    out += (i ? "," : "") + std::to_string(tiles[i]) + (j > i ? "-" + std::to_string(tiles[j]) : "");
    i = j + 1;
  }
  return out;
}

} // namespace

void Graph::outputComputeGraph(std::ostream &out, ArrayRef<program::Program> progs) const {
  const detail::GraphState &g = *state_;
  out << "graph: " << g.vars->vars.size() << " variables, " << g.computeSets.size() << " compute sets, "
      << progs.size() << " programs\n";
  for (std::size_t id = 0; id < g.vars->vars.size(); ++id) {
    const detail::Variable &v = g.vars->vars[id];
    out << (v.isConstant ? "constant " : "variable ") << id << " '" << v.name << "' " << v.type.toString()
        << detail::shapeString(v.shape) << " " << tilesOf(v) << "\n";
  }
  for (std::size_t id = 0; id < g.computeSets.size(); ++id) {
    const detail::ComputeSetInfo &cs = g.computeSets[id];
    out << "compute set " << id << " '" << cs.name << "': " << cs.kernels.size() << " vertices\n";
    for (const detail::Kernel &k : cs.kernels) {
      out << "  " << (k.vertexType.empty() ? k.kind : k.vertexType);
      for (const Tensor &t : k.reads) out << " in " << detail::tensorImpl(t).describe();
      for (const Tensor &t : k.writes) out << " out " << detail::tensorImpl(t).describe();
      out << "\n";
    }
  }
  for (std::size_t p = 0; p < progs.size(); ++p) {
    out << "program " << p << ":\n";
    program::dumpProgram(*this, progs[p], out);
  }
}

} // namespace poplar
