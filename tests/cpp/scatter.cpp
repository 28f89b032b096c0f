// popops/Scatter.hpp: XLA scatters of rows and of 2 x 2 windows, replacing and combining
// (by popops::add), with indices out of bounds, repeated, remapped and used as padding.
// Prints "name: v v ..." lines (test_popops_scatter.py checks them against numpy).
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Scatter.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "labelled_results.hpp"

namespace {

// i * 0.5 for each of n elements.
std::vector<float> ramp(std::size_t n, float offset = 0.f) {
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = float(i) * 0.5f + offset;
  return values;
}

} // namespace

int main() {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poplar::program::Sequence prog;
  std::vector<std::string> names;
  std::vector<poplar::Tensor> results;

  // Rows of a [5][3] operand replaced, by scalar indices (indexVectorDim 1 == rank 1).
  const std::vector<std::pair<std::string, std::vector<float>>> rowCases = {
      {"rows", {3, 1}}, {"rows repeated and out of bounds", {4, 7, 4}}};
  for (const auto &c : rowCases) {
    const poplar::Tensor operand = filledTensor(graph, poplar::FLOAT, {5, 3}, ramp(15), "operand");
    const poplar::Tensor indices = filledTensor(graph, poplar::INT, {c.second.size()}, c.second, "indices");
    const poplar::Tensor updates =
        filledTensor(graph, poplar::FLOAT, {c.second.size(), 3}, ramp(3 * c.second.size(), 100), "updates");
    popops::scatter(graph, operand, indices, updates, 1, {1}, {0}, {0}, prog);
    names.push_back(c.first);
    results.push_back(operand);
  }
  for (const std::string option : {"remapOutOfBoundIndices", "paddingIndexUsed"}) {
    const poplar::Tensor operand = filledTensor(graph, poplar::FLOAT, {5, 3}, ramp(15), "operand");
    const poplar::Tensor indices = filledTensor(graph, poplar::INT, {2}, {7, 5}, "indices");
    const poplar::Tensor updates = filledTensor(graph, poplar::FLOAT, {2, 3}, ramp(6, 100), "updates");
    popops::scatter(graph, operand, indices, updates, 1, {1}, {0}, {0}, prog, "scatter", {{option, "true"}});
    names.push_back(option);
    results.push_back(operand);
  }

  // 2 x 2 windows of a [4][4] operand, index vectors along dimension 0 of indices
  // [2][3], updates [2][2][3] with the scatter dimension last; the windows at (0, 0),
  // (1, 1) and (3, 0) (skipped: it does not fit), added, so their overlap adds twice.
  {
    const poplar::Tensor operand = filledTensor(graph, poplar::FLOAT, {4, 4}, ramp(16), "operand");
    const poplar::Tensor indices = filledTensor(graph, poplar::UNSIGNED_INT, {2, 3}, {0, 1, 3, 0, 1, 0}, "indices");
    const poplar::Tensor updates = filledTensor(graph, poplar::FLOAT, {2, 2, 3}, ramp(12, 10), "updates");
    popops::UpdateComputationFunc add = [](poplar::Graph &g, poplar::Tensor &current, poplar::Tensor &update,
                                           poplar::program::Sequence &p) {
      return popops::add(g, current, update, p);
    };
    popops::scatter(graph, operand, indices, updates, 0, {0, 1}, {}, {0, 1}, add, prog);
    names.push_back("windows added");
    results.push_back(operand);
  }

  const poplar::Tensor operand = filledTensor(graph, poplar::FLOAT, {5, 3}, ramp(15), "bad");
  const poplar::Tensor indices = filledTensor(graph, poplar::INT, {2}, {0, 1}, "badIndices");
  const poplar::Tensor updates = filledTensor(graph, poplar::FLOAT, {2, 3}, ramp(6), "u");
  reportError("bad window dims", [&] { popops::scatter(graph, operand, indices, updates, 1, {1}, {}, {0}, prog); });
  reportError("bad batch", [&] {
    popops::scatter(graph, operand, indices, filledTensor(graph, poplar::FLOAT, {3, 3}, ramp(9), "u3"), 1, {1}, {0},
                    {0}, prog);
  });
  reportError("bad option", [&] {
    popops::scatter(graph, operand, indices, updates, 1, {1}, {0}, {0}, prog, {}, {{"paddingIndexUsed", "maybe"}});
  });
  popops::UpdateComputationFunc wrong = [](poplar::Graph &, poplar::Tensor &current, poplar::Tensor &,
                                           poplar::program::Sequence &) { return current.reshape({1, 3}); };
  reportError("bad computation", [&] {
    popops::scatter(graph, operand, indices, updates, 1, {1}, {0}, {0}, wrong, prog);
  });

  printResults(graph, prog, device, names, results);
}
