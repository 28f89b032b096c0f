// Variables, constants, copies and an element-wise add, printed by the device and read
// back by the host: the shape of a first Poplar program.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

#include <iostream>
#include <vector>

int main() {
  poplar::IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  poplar::Device device = ipuModel.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);

  poplar::Tensor grid = graph.addVariable(poplar::FLOAT, {2, 3}, "grid");
  graph.setTileMapping(grid[0], 0);
  graph.setTileMapping(grid[1], 1);
  poplar::Tensor offsets = graph.addVariable(poplar::FLOAT, {3}, "offsets");
  graph.setTileMapping(offsets, 2);
  poplar::Tensor row = graph.addConstant<float>(poplar::FLOAT, {3}, {1.5f, -2.0f, 4.25f}, "row");
  graph.setTileMapping(row, 3);
  poplar::Tensor ramp = graph.addConstant<float>(poplar::FLOAT, {3}, {10.0f, 20.0f, 30.0f}, "ramp");
  graph.setTileMapping(ramp, 3);
  graph.createHostWrite("offsets-write", offsets);
  graph.createHostRead("grid-read", grid);

  poplar::program::Sequence prog;
  prog.add(poplar::program::Copy(row, grid[0]));
  prog.add(poplar::program::Copy(ramp, grid[1]));
  poplar::Tensor sum = popops::add(graph, grid[0], offsets, prog, "sum");
  prog.add(poplar::program::Copy(sum, grid[1]));
  prog.add(poplar::program::PrintTensor("grid", grid));

  poplar::Engine engine(graph, prog);
  engine.load(device);
  std::vector<float> hostOffsets = {0.5f, 0.25f, -1.0f};
  engine.writeTensor("offsets-write", hostOffsets.data(), hostOffsets.data() + hostOffsets.size());
  engine.run(0);
  std::vector<float> hostGrid(6);
  engine.readTensor("grid-read", hostGrid.data(), hostGrid.data() + hostGrid.size());
  std::cout << "host:";
  for (float v : hostGrid) std::cout << ' ' << v;
  std::cout << '\n';
  return 0;
}
