// addVertex's connection list with every ConnectionDesc form the SDK accepts: a tensor,
// a vector of tensors, and values of the fields' types (plain fields and Input edges).
// Prints "label: value" lines; the misuses print their error's class and message.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>

#include <iostream>
#include <sstream>
#include <vector>

const char kCodelets[] = R"(
#include <poplar/Vertex.hpp>
using namespace poplar;
// out[i] = scale * (in[i] + rows[0][i] + rows[1][i]) + offset, for the first n elements;
// flip negates the sum.
class Mix : public Vertex {
public:
  Input<Vector<float>> in;
  Vector<Input<Vector<float>>> rows;
  Input<float> scale;
  Input<int> offset;
  Output<Vector<float>> out;
  unsigned n;
  bool flip;
  bool compute() {
    for (unsigned i = 0; i < n; ++i) {
      const float sum = in[i] + rows[0][i] + rows[1][i];
      out[i] = *scale * (flip ? -sum : sum) + *offset;
    }
    return true;
  }
};
)";

int main() {
  poplar::IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  poplar::Device device = ipuModel.createDevice();
  poplar::Graph graph(device.getTarget());
  std::stringstream codelets(kCodelets);
  graph.addCodelets(codelets);
  const auto variable = [&](const char *name, std::vector<float> values) {
    poplar::Tensor t = graph.addVariable(poplar::FLOAT, {values.size()}, name);
    graph.setTileMapping(t, 0);
    graph.setInitialValue(t, poplar::ArrayRef<float>(values));
    return t;
  };
  poplar::Tensor in = variable("in", {1, 2, 3, 4});
  poplar::Tensor a = variable("a", {10, 20, 30, 40});
  poplar::Tensor b = variable("b", {100, 200, 300, 400});
  poplar::Tensor out = variable("out", {0, 0, 0, 0});
  poplar::ComputeSet cs = graph.addComputeSet("mix");
  poplar::VertexRef v = graph.addVertex(cs, "Mix",
                                        {{"in", in},
                                         {"rows", std::vector<poplar::Tensor>{a, b}},
                                         {"scale", 0.5f},
                                         {"offset", -3},
                                         {"out", out},
                                         {"n", 3u},
                                         {"flip", true}});
  graph.setTileMapping(v, 0);
  graph.createHostRead("out", out);
  poplar::Engine engine(graph, poplar::program::Execute(cs));
  engine.load(device);
  engine.run(0);
  std::vector<float> result(4);
  engine.readTensor("out", result.data(), result.data() + result.size());
  std::cout << "out:";
  for (float x : result) std::cout << ' ' << x;
  std::cout << '\n';

  const auto misuse = [&](const char *label, poplar::Graph::ConnectionDesc c) {
    try {
      graph.addVertex(cs, "Mix", {c});
      std::cout << label << ": accepted\n";
    } catch (const poplar::poplar_error &e) {
      std::cout << label << ": " << e.type << ": " << e.what() << '\n';
    }
  };
  misuse("negative count", {"n", -1});
  misuse("fractional int", {"offset", 0.5});
  misuse("output value", {"out", 2.0f});
  misuse("too big", {"n", 5000000000LL});
  return 0;
}
