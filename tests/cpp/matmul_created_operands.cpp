// A product as an SDK program writes it: A and B made by poplin::createMatMulInputLHS/RHS for
// the product's shapes, given initial values, multiplied with poplin::matMul. Prints where B's
// elements lie in its variable ("B: begin end ...", the layout the library chose for the
// product's kernel) and the product ("C: ..."), for test_poplin.py to check; the operands are
// value(i, seed) as that test makes them.
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "run_and_read.hpp"

namespace {

float value(std::size_t i, double seed) { return float(std::sin(0.37 * double(i) + seed)); }

void fill(poplar::Graph &graph, const poplar::Tensor &t, double seed) {
  std::vector<float> v(t.numElements());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(i, seed);
  graph.setInitialValue(t, poplar::ArrayRef<float>(v));
}

} // namespace

int main() {
  const std::size_t m = 2, k = 5, n = 600; // few rows, B wider than a panel
  poplar::IPUModel ipuModel("ipu2");
  ipuModel.tilesPerIPU = 4;
  poplar::Device device = ipuModel.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poplin::addCodelets(graph);

  const poplar::Tensor a = poplin::createMatMulInputLHS(graph, poplar::FLOAT, {m, k}, {k, n}, "A");
  const poplar::Tensor b = poplin::createMatMulInputRHS(graph, poplar::FLOAT, {m, k}, {k, n}, "B");
  fill(graph, a, 0.1);
  fill(graph, b, 0.2);
  poplar::program::Sequence prog;
  const poplar::Tensor c = poplin::matMul(graph, a, b, prog, "C");

  std::cout << "B:";
  for (const poplar::VariableInterval &region : b.getVarRegions())
    std::cout << ' ' << region.interval.begin() << ' ' << region.interval.end();
  std::cout << "\nC:";
  for (float v : runAndRead(graph, prog, device, c)) {
    char text[32];
    std::snprintf(text, sizeof text, " %.9g", double(v));
    std::cout << text;
  }
  std::cout << '\n';
  return 0;
}
