// Uses a poplibs function the emulator does not implement: the build must fail naming it.
#include <poplar/Graph.hpp>
#include <popops/ElementWise.hpp>

int main() {
  poplar::Graph graph;
  poplar::program::Sequence prog;
  poplar::Tensor t = graph.addVariable(poplar::FLOAT, {4}, "t");
  popops::histogram(graph, t, t, false, prog);
  return 0;
}
