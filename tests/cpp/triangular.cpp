// poplin/Cholesky.hpp and poplin/TriangularSolve.hpp on a batch of two 4x4 matrices made
// from value(i, seed, scale) (test_poplin_triangular.py makes the same in float64 numpy):
// the SPD input is M M^T + 4 I; prints "name: v v ..." lines.
#include <poplar/IPUModel.hpp>
#include <poplin/Cholesky.hpp>
#include <poplin/TriangularSolve.hpp>
#include <popops/ElementWise.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "run_and_read.hpp"
#include "seeded_values.hpp"

namespace {

const std::size_t B = 2, N = 4, K = 3;

// M M^T + 4 I per batch element, computed on the host in float.
std::vector<float> spd() {
  const std::vector<float> m = values(B * N * N, 0.1, 1.0);
  std::vector<float> a(B * N * N);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        float s = i == j ? 4.f : 0.f;
        for (std::size_t k = 0; k < N; ++k) s += m[b * N * N + i * N + k] * m[b * N * N + j * N + k];
        a[b * N * N + i * N + j] = s;
      }
  return a;
}

void print(const std::string &label, const std::vector<float> &values) {
  std::cout << label << ":" << exactly(values) << '\n';
}

struct Run {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph{device.getTarget()};
  poplar::program::Sequence prog;
};

} // namespace

int main() {
  for (bool lower : {true, false}) {
    Run run;
    const poplar::Tensor a = poplin::createCholeskyInput(run.graph, poplar::FLOAT, {B, N, N}, lower, "a");
    run.graph.setInitialValue(a, poplar::ArrayRef<float>(spd()));
    const poplar::Tensor factor = poplin::cholesky(run.graph, a, lower, run.prog);
    const poplar::Tensor copy = run.graph.clone(a);
    run.prog.add(poplar::program::Copy(a, copy));
    poplin::choleskyInPlace(run.graph, copy, lower, run.prog);
    print(std::string("cholesky ") + (lower ? "lower" : "upper"),
          runAndRead(run.graph, run.prog, run.device, poplar::concat(factor.flatten(), copy.flatten())));
  }
  for (int left = 0; left < 2; ++left)
    for (int lower = 0; lower < 2; ++lower)
      for (int unit = 0; unit < 2; ++unit) {
        Run run;
        const std::vector<std::size_t> aShape = {B, N, N};
        const std::vector<std::size_t> bShape = left ? std::vector<std::size_t>{B, N, K}
                                                     : std::vector<std::size_t>{B, K, N};
        const poplar::Tensor a = poplin::createTriangularSolveInputLHS(run.graph, poplar::FLOAT, poplar::FLOAT,
                                                                       aShape, bShape, left, "a");
        const poplar::Tensor b = poplin::createTriangularSolveInputRHS(run.graph, poplar::FLOAT, poplar::FLOAT,
                                                                       aShape, bShape, left, "b");
        std::vector<float> av = values(B * N * N, 0.3, 1.0);
        for (std::size_t i = 0; i < B * N; ++i) av[i * N + i % N] += 3.f; // a firm diagonal
        run.graph.setInitialValue(a, poplar::ArrayRef<float>(av));
        run.graph.setInitialValue(b, poplar::ArrayRef<float>(values(B * N * K, 0.5, 1.0)));
        const poplar::Tensor x = poplin::triangularSolve(run.graph, a, b, left, lower, unit, run.prog);
        const poplar::Tensor masked = poplin::triangularMask(run.graph, a, lower, unit, run.prog);
        print("solve " + std::to_string(left) + std::to_string(lower) + std::to_string(unit),
              runAndRead(run.graph, run.prog, run.device, poplar::concat(x.flatten(), masked.flatten())));
      }
}
