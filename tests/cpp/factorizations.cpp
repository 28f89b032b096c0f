// poplin/experimental's LU and QR factorizations of small matrices; prints "name: v v ..."
// lines (test_poplin_factorizations.py checks them against float64 numpy).
#include <poplar/IPUModel.hpp>
#include <poplin/experimental/LuFactorization.hpp>
#include <poplin/experimental/QRFactorization.hpp>
#include <poputil/TileMapping.hpp>

#include <array>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "labelled_results.hpp"

namespace {

// Entry (i, j) of the test matrices: sin(1 + 3 i + 7 j), plus `diagonal` on the diagonal.
std::vector<float> entries(std::size_t rows, std::size_t columns, float diagonal) {
  std::vector<float> values(rows * columns);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < columns; ++j)
      values[i * columns + j] = std::sin(1.f + 3.f * float(i) + 7.f * float(j)) + (i == j ? diagonal : 0.f);
  return values;
}

} // namespace

int main() {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::program::Sequence prog;
  std::vector<std::string> names;
  std::vector<poplar::Tensor> results;
  for (const auto &shape : std::vector<std::pair<std::size_t, std::size_t>>{{4, 3}, {3, 5}}) {
    poplar::Tensor input = graph.addVariable(poplar::HALF, {shape.first, shape.second}, "input");
    poputil::mapTensorLinearly(graph, input);
    graph.setInitialValue(input, poplar::ArrayRef<float>(entries(shape.first, shape.second, 3.f)));
    const auto lu = poplin::experimental::LUFactorization(graph, input, prog, "lu");
    const std::string name = "lu " + std::to_string(shape.first) + "x" + std::to_string(shape.second);
    names.insert(names.end(), {name + " L", name + " U"});
    results.insert(results.end(), {lu.first, lu.second});
  }
  std::array<poplar::Tensor, 2> qr = poplin::experimental::createQRFactorizationMatrices(graph, poplar::FLOAT, 5, 3,
                                                                                          "qr");
  std::vector<float> identity(25, 0.f);
  for (std::size_t i = 0; i < 5; ++i) identity[i * 5 + i] = 1.f;
  graph.setInitialValue(qr[0], poplar::ArrayRef<float>(entries(5, 3, 2.f)));
  graph.setInitialValue(qr[1], poplar::ArrayRef<float>(identity));
  poplin::experimental::QRFactorization(graph, qr[0], qr[1], prog, "qr", {{"rowsPerIteration", "2"}});
  names.insert(names.end(), {"qr R", "qr Q"});
  results.insert(results.end(), {qr[0], qr[1]});
  std::cout << "qr types: " << qr[0].elementType() << ' ' << qr[0].shapeToString() << ' ' << qr[1].shapeToString()
            << '\n';
  reportError("wide qr",
              [&] { poplin::experimental::createQRFactorizationMatrices(graph, poplar::FLOAT, 2, 3, "wide"); });
  reportError("bad option",
              [&] { poplin::experimental::QRFactorization(graph, qr[0], qr[1], prog, {}, {{"rowsPerIteration", "0"}}); });
  reportError("wrong Q", [&] { poplin::experimental::QRFactorization(graph, qr[0], qr[0], prog); });
  poplar::Tensor vector = graph.addVariable(poplar::FLOAT, {4}, "vector");
  reportError("lu of a vector", [&] { poplin::experimental::LUFactorization(graph, vector, prog); });

  printResults(graph, prog, device, names, results);
}
