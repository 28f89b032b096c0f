// popops/Rearrange.hpp's regrouping as convolution-style code uses it: every result holds
// its input's contents; prints "name: v v ..." lines and what the calls added.
#include <poplar/IPUModel.hpp>
#include <popops/Rearrange.hpp>
#include <poputil/TileMapping.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "run_and_read.hpp"

int main() {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::program::Sequence prog;
  poplar::Tensor t = graph.addVariable(poplar::FLOAT, {4, 6}, "t");
  poputil::mapTensorLinearly(graph, t);
  std::vector<float> values(24);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.5f - 3.f;
  graph.setInitialValue(t, poplar::ArrayRef<float>(values));
  const poplar::ComputeSet cs = graph.addComputeSet("transpose");
  const poplar::Tensor a = popops::rearrange::regroupTensor(graph, t, prog, cs, {1, 2}, {0, 4});
  std::vector<poplar::program::Copy> copies;
  const poplar::Tensor b = popops::rearrange::regroupTensor(graph, t, copies, cs, {1, 3}, {1, 6});
  for (const auto &c : copies) prog.add(c);
  const poplar::Tensor c = popops::rearrange::regroupIfPossible(graph, t, prog, {0, 2});
  const poplar::Tensor d = popops::rearrange::regroupIfBeneficial(graph, t, a, prog);
  std::vector<poplar::program::Copy> more;
  const poplar::Tensor e = popops::rearrange::regroupIfBeneficial(graph, t, b, more, cs);
  const poplar::Tensor f = popops::rearrange::regroupIfBeneficial(graph, t, 4, prog);
  const poplar::Tensor line = t.flatten();
  std::vector<poplar::program::Copy> none;
  const poplar::Tensor g = popops::rearrange::regroupTensor(graph, line, none, cs, {0, 4}, {0, 8});
  std::cout << "copies: " << copies.size() << ' ' << more.size() << ' ' << none.size() << '\n';
  std::cout << "shapes:";
  for (const poplar::Tensor &r : {a, b, c, d, e, f}) std::cout << ' ' << r.dim(0) << 'x' << r.dim(1);
  std::cout << ' ' << g.rank() << '\n';
  try {
    popops::rearrange::regroupTensor(graph, t, prog, cs, {1, 4}, {0, 4});
  } catch (const std::exception &error) {
    std::cout << "bad grouping: " << error.what() << '\n';
  }
  const poplar::Tensor all = poplar::concat({a.flatten(), b.flatten(), c.flatten(), d.flatten(), e.flatten(),
                                             f.flatten(), g});
  std::cout << "contents:";
  for (float v : runAndRead(graph, prog, device, all)) std::cout << ' ' << v;
  std::cout << '\n';
}
