// A matrix product written from the host, read back, and the profile summary.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <iostream>
#include <vector>

int main() {
  const std::size_t m = 4, k = 8, n = 3;
  poplar::IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  poplar::Device device = ipuModel.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poplin::addCodelets(graph);

  poplar::Tensor a = graph.addVariable(poplar::FLOAT, {m, k}, "a");
  poplar::Tensor b = graph.addVariable(poplar::FLOAT, {k, n}, "b");
  poputil::mapTensorLinearly(graph, a);
  poputil::mapTensorLinearly(graph, b);
  graph.createHostWrite("a", a);
  graph.createHostWrite("b", b);

  poplar::program::Sequence prog;
  poplar::Tensor c = poplin::matMul(graph, a, b, prog, poplar::FLOAT, "c");
  graph.createHostRead("c", c);

  poplar::Engine engine(graph, prog, {{"debug.instrument", "true"}});
  engine.load(device);
  std::vector<float> hostA(m * k), hostB(k * n), hostC(m * n);
  for (std::size_t i = 0; i < hostA.size(); ++i) hostA[i] = 0.5f * static_cast<float>(i % 7) - 1.0f;
  for (std::size_t i = 0; i < hostB.size(); ++i) hostB[i] = 0.25f * static_cast<float>(i % 5) - 0.5f;
  engine.writeTensor("a", hostA.data(), hostA.data() + hostA.size());
  engine.writeTensor("b", hostB.data(), hostB.data() + hostB.size());
  engine.run(0);
  engine.readTensor("c", hostC.data(), hostC.data() + hostC.size());
  std::cout << "c:";
  for (float v : hostC) std::cout << ' ' << v;
  std::cout << '\n';
  engine.printProfileSummary(std::cout, {{"showExecutionSteps", "true"}});
  return 0;
}
