#include "Kernel.hpp"

#include "GraphState.hpp"

namespace poplar::detail {

void addKernel(poplar::Graph &graph, poplar::ComputeSet cs, Kernel kernel) {
  graph.state().computeSet(cs.getId()).kernels.push_back(std::move(kernel));
}

void executeKernel(poplar::Graph &graph, poplar::program::Sequence &prog, Kernel kernel,
                   const poplar::DebugContext &debugContext) {
  const poplar::ComputeSet cs = graph.addComputeSet(debugContext);
  addKernel(graph, cs, std::move(kernel));
  prog.add(poplar::program::Execute(cs, debugContext));
}

} // namespace poplar::detail
