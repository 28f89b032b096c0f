// What public SDK-era programs (docs/sdk.rst's list) reach for, used their way: std::optional
// with no standard header of its own (C++17), a device found through an optional, a graph
// serialized in both formats, outputVertexGraph, and a profile of one run in the middle of
// several, printed after profiling is disabled again. Prints "name: value" lines for
// test_sdk_programs.py. Includes no standard header besides <iostream> and <sstream>.
#include <iostream>
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>
#include <sstream>

using namespace poplar;
using namespace poplar::program;

namespace {

std::optional<Device> modelDevice(unsigned tiles) {
  IPUModel model("ipu2");
  model.tilesPerIPU = tiles;
  std::optional<Device> device = model.createDevice();
  return device;
}

} // namespace

int main(int, char **argv) {
  std::optional<Device> device = modelDevice(4);
  if (!device.has_value()) return 1;
  Graph graph(device->getTarget());
  graph.addCodelets(argv[1]);
  Tensor x = graph.addVariable(FLOAT, {6}, "x");
  graph.setTileMapping(x.slice(0, 4), 1);
  graph.setTileMapping(x.slice(4, 6), 3);
  Tensor c = graph.addConstant<int>(INT, {2}, {7, 8}, "c");
  graph.setTileMapping(c, 0);
  ComputeSet cs = graph.addComputeSet("double");
  for (unsigned part = 0; part < 2; ++part) {
    VertexRef v = graph.addVertex(cs, "Doubler", {{"x", part ? x.slice(4, 6) : x.slice(0, 4)}});
    graph.setTileMapping(v, part ? 3 : 1);
  }

  std::ostringstream json, binary, vertexGraph, computeGraph;
  graph.serialize(json, SerializationFormat::JSON);
  graph.serialize(binary, SerializationFormat::Binary);
  std::cout << "serialized: " << json.str(); // one line, ending in a newline
  std::cout << "binary same: " << (binary.str() == json.str() ? "yes" : "no") << '\n';
  graph.outputVertexGraph(vertexGraph, {});
  graph.outputComputeGraph(computeGraph, {});
  std::cout << "vertex graph same: " << (vertexGraph.str() == computeGraph.str() ? "yes" : "no") << '\n';

  graph.createHostWrite("x", x);
  graph.createHostRead("x", x);
  Engine engine(graph, Sequence{Execute(cs)});
  engine.load(*device);
  engine.disableExecutionProfiling();
  float values[6] = {1, 2, 3, 4, 5, 6};
  engine.writeTensor("x", values, values + 6);
  for (int run = 1; run <= 4; ++run) {
    if (run == 2) engine.enableExecutionProfiling();
    engine.run(0);
    if (run == 2) engine.disableExecutionProfiling();
  }
  engine.readTensor("x", values, values + 6);
  std::cout << "x:";
  for (float v : values) std::cout << ' ' << v;
  std::cout << '\n';
  std::ostringstream summary;
  engine.printProfileSummary(summary, OptionFlags{{"showExecutionSteps", "true"}});
  const std::size_t at = summary.str().find("Programs run:");
  std::istringstream runs(at == std::string::npos ? std::string() : summary.str().substr(at + 13));
  std::string profiled = "none";
  runs >> profiled;
  std::cout << "profiled runs: " << profiled << '\n';
  return 0;
}
