// Hardware random seeds: a hidden UNSIGNED_INT variable [tiles, workers, 4] that
// getHwSeeds copies out and setHwSeeds copies in; each Engine fills it from its
// random seed when it is loaded and whenever the seed is set.
#include <poplar/RandomSeed.hpp>
#include <poplar/exceptions.hpp>

#include <cstring>

#include "EngineState.hpp"
#include "TensorImpl.hpp"

namespace poplar {

namespace {

Tensor hwSeedsVariable(Graph &graph) {
  detail::GraphState &g = detail::graphState(graph);
  const std::vector<std::size_t> shape = {g.target.getNumTiles(), g.target.getNumWorkerContexts(), 4};
  if (g.hwSeedsVar < 0) {
    const Tensor seeds = graph.addVariable(UNSIGNED_INT, shape, "hwSeeds");
    for (unsigned tile = 0; tile < shape[0]; ++tile) graph.setTileMapping(seeds[tile], tile);
    g.hwSeedsVar = static_cast<int>(detail::tensorImpl(seeds).blocks[0].var);
    return seeds;
  }
  return detail::makeTensor(detail::makeVariableView(g.vars, static_cast<unsigned>(g.hwSeedsVar), UNSIGNED_INT, shape));
}

// SplitMix64: a well-mixed stream of 64-bit values from any start.
std::uint64_t splitMix64(std::uint64_t &state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

} // namespace

Tensor getHwSeeds(Graph &graph, program::Sequence &prog, const DebugContext &debugContext) {
  const Tensor seeds = hwSeedsVariable(graph);
  const Tensor out = graph.clone(seeds, DebugContext(debugContext, "hwSeeds"));
  prog.add(program::Copy(seeds, out, false, debugContext));
  return out;
}

void setHwSeeds(Graph &graph, const Tensor &hwSeeds, program::Sequence &prog, const DebugContext &debugContext) {
  const Tensor seeds = hwSeedsVariable(graph);
  if (hwSeeds.shape() != seeds.shape() || hwSeeds.elementType() != UNSIGNED_INT)
    throw poplar_error("setHwSeeds: the seeds " + detail::tensorImpl(hwSeeds).describe() + " must be unsigned int " +
                       detail::shapeString(seeds.shape()) + " (tiles, worker contexts, 4)");
  prog.add(program::Copy(hwSeeds, seeds, false, debugContext));
}

void detail::EngineState::seedHardware() {
  if (graph->hwSeedsVar < 0) return;
  const Variable &v = graph->vars->vars[static_cast<unsigned>(graph->hwSeedsVar)];
  std::uint64_t state = randomSeed;
  std::vector<std::uint32_t> words(v.numElements);
  for (auto &w : words) w = static_cast<std::uint32_t>(splitMix64(state) >> 32);
  std::memcpy(memory[static_cast<unsigned>(graph->hwSeedsVar)].get(), words.data(), words.size() * 4);
}

} // namespace poplar
