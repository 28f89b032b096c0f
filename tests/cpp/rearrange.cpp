// popops/Rearrange.hpp's regrouping as convolution-style code uses it (every result holds
// its input's contents), its transpositions and the fast-transposition queries; prints
// "name: v v ..." lines and what the calls added.
#include <poplar/IPUModel.hpp>
#include <popops/Rearrange.hpp>
#include <poputil/TileMapping.hpp>

#include <iostream>
#include <string>
#include <utility>
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
  // Transpositions: the innermost two dimensions of t as [2][3][4], and four 2 x 3 matrices
  // of t's elements (two per tile) into `transposed`, both by one compute set.
  const poplar::ComputeSet transposes = graph.addComputeSet("transposes");
  const poplar::Tensor partial = popops::rearrange::partialTranspose(graph, t.reshape({2, 3, 4}), transposes);
  poplar::Tensor transposed = graph.addVariable(poplar::FLOAT, {24}, "transposed");
  poputil::mapTensorLinearly(graph, transposed);
  const poplar::Graph::TileToTensorMapping matrices = {{poplar::Interval(0, 2)}, {poplar::Interval(2, 4)}};
  popops::rearrange::addTransposeVertices(graph, transposes, poplar::FLOAT, 2, 3, matrices, [&](std::size_t i) {
    return std::make_pair(line.slice(6 * i, 6 * i + 6), transposed.slice(6 * i, 6 * i + 6));
  });
  prog.add(poplar::program::Execute(transposes));
  std::cout << "partial shape: " << partial.shapeToString() << '\n';
  try {
    popops::rearrange::addTransposeVertices(graph, transposes, poplar::FLOAT, 2, 2, matrices, [&](std::size_t i) {
      return std::make_pair(line.slice(6 * i, 6 * i + 6), transposed.slice(6 * i, 6 * i + 6));
    });
  } catch (const std::exception &error) {
    std::cout << "bad matrices: " << error.what() << '\n';
  }
  std::cout << "grain sizes:";
  for (poplar::Type type : {poplar::QUARTER, poplar::HALF, poplar::SHORT, poplar::FLOAT, poplar::INT, poplar::BOOL})
    std::cout << ' ' << popops::rearrange::getMinimumRegroupGrainSize(type);
  std::cout << '\n';
  const poplar::Target &target = graph.getTarget();
  std::cout << "fast:";
  for (const auto &q : std::vector<std::pair<poplar::Type, std::vector<unsigned>>>{
           {poplar::HALF, {8, 4, 3}}, {poplar::UNSIGNED_SHORT, {4, 12, 1}}, {poplar::FLOAT, {8, 4, 3}},
           {poplar::HALF, {6, 4, 1}}, {poplar::QUARTER, {16, 8, 1}}, {poplar::QUARTER, {4, 8, 1}},
           {poplar::HALF, {4, 4, 70000}}, {poplar::HALF, {4 * 4096, 4, 1}}})
    std::cout << ' ' << popops::rearrange::canUseFastTranspose(target, q.first, q.second[0], q.second[1], q.second[2]);
  std::cout << '\n';
  const poplar::Tensor all = poplar::concat({a.flatten(), b.flatten(), c.flatten(), d.flatten(), e.flatten(),
                                             f.flatten(), g, partial.flatten(), transposed});
  std::cout << "contents:";
  for (float v : runAndRead(graph, prog, device, all)) std::cout << ' ' << v;
  std::cout << '\n';
}
