// poplin/Cholesky.hpp and poplin/TriangularSolve.hpp: each works on a [G][N][N] view of
// its batch, one column (Cholesky) or row (substitution) at a time, with popops maps and
// reductions over the part already solved.
#include <poplin/Cholesky.hpp>
#include <poplin/TriangularSolve.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <string>

namespace poplin {

namespace {

using poplar::Tensor;
using poplar::program::Copy;
namespace pe = popops::expr;

Tensor mappedVariable(poplar::Graph &graph, const poplar::Type &type, const std::vector<std::size_t> &shape,
                      const poplar::DebugContext &dc) {
  if (shape.size() != 2 && shape.size() != 3)
    throw poputil::poplibs_error("poplin: a matrix shape is [N, M] or [B, N, M], not " +
                                 std::to_string(shape.size()) + " dimensions");
  Tensor t = graph.addVariable(type, shape, dc);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

// a [..., N, M] as [G][N][M].
Tensor batched(const char *fn, const Tensor &a, const char *what) {
  if (a.rank() < 2) throw poputil::poplibs_error(std::string(fn) + ": " + what + " must have rank 2 or more");
  std::size_t g = 1;
  for (std::size_t d = 0; d + 2 < a.rank(); ++d) g *= a.dim(d);
  return a.reshape({g, a.dim(a.rank() - 2), a.dim(a.rank() - 1)});
}

void checkSquare(const char *fn, const Tensor &a) {
  if (a.rank() < 2 || a.dim(a.rank() - 1) != a.dim(a.rank() - 2))
    throw poputil::poplibs_error(std::string(fn) + ": a must be square in its last two dimensions");
}

// sum over k of rows[g][i][k] * v[g][k]: [G][rows][m] and [G][m] -> [G][rows].
Tensor rowDots(poplar::Graph &graph, const Tensor &rows, const Tensor &v, poplar::program::Sequence &prog,
               const poplar::DebugContext &dc) {
  const Tensor products = popops::mul(graph, rows, v.expand({1}).broadcast(static_cast<unsigned>(rows.dim(1)), 1),
                                      prog, dc);
  return popops::reduce(graph, products, {2}, popops::Operation::ADD, prog, dc);
}

// The lower factor of a [G][N][N] (lower triangle read) as a new tensor.
Tensor lowerFactor(poplar::Graph &graph, const Tensor &a, poplar::program::Sequence &prog,
                   const poplar::DebugContext &dc) {
  const std::size_t g = a.dim(0), n = a.dim(1);
  Tensor l = graph.clone(a, dc);
  popops::zero(graph, l, prog, dc);
  for (std::size_t j = 0; j < n; ++j) {
    Tensor column = a.slice({0, j, j}, {g, n, j + 1}).squeeze({2});
    if (j > 0) {
      const Tensor done = l.slice({0, j, 0}, {g, n, j}), row = l.slice({0, j, 0}, {g, j + 1, j}).squeeze({1});
      column = popops::sub(graph, column, rowDots(graph, done, row, prog, dc), prog, dc);
    }
    const Tensor pivot = popops::sqrt(graph, column.slice(0, 1, 1), prog, dc);
    const Tensor scaled =
        popops::div(graph, column, pivot.broadcast(static_cast<unsigned>(n - j), 1), prog, dc);
    prog.add(Copy(scaled, l.slice({0, j, j}, {g, n, j + 1}).squeeze({2})));
  }
  return l;
}

// X with A X = B for A [G][N][N], B [G][N][K].
Tensor solveLeft(poplar::Graph &graph, const Tensor &a, const Tensor &b, bool lower, bool unitDiagonal,
                 poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const std::size_t g = a.dim(0), n = a.dim(1), k = b.dim(2);
  Tensor x = graph.clone(b, dc);
  for (std::size_t step = 0; step < n; ++step) {
    const std::size_t i = lower ? step : n - 1 - step;
    Tensor row = b.slice({0, i, 0}, {g, i + 1, k}).squeeze({1});
    // The solved rows: those before i (lower) or after it (upper).
    const std::size_t from = lower ? 0 : i + 1, to = lower ? i : n;
    if (to > from) {
      const Tensor coefficients = a.slice({0, i, from}, {g, i + 1, to}).squeeze({1});
      const Tensor solved = x.slice({0, from, 0}, {g, to, k}).dimShuffle({0, 2, 1});
      row = popops::sub(graph, row, rowDots(graph, solved, coefficients, prog, dc), prog, dc);
    }
    if (!unitDiagonal) {
      const Tensor diagonal = a.slice({0, i, i}, {g, i + 1, i + 1}).reshape({g, 1});
      row = popops::div(graph, row, diagonal.broadcast(static_cast<unsigned>(k), 1), prog, dc);
    }
    prog.add(Copy(row, x.slice({0, i, 0}, {g, i + 1, k}).squeeze({1})));
  }
  return x;
}

} // namespace

Tensor createCholeskyInput(poplar::Graph &graph, const poplar::Type &type, const std::vector<std::size_t> &shape,
                           bool, const poplar::DebugContext &debugContext, const poplar::OptionFlags &,
                           PlanningCache *) {
  return mappedVariable(graph, type, shape, poplar::DebugContext(debugContext, "choleskyInput"));
}

Tensor cholesky(poplar::Graph &graph, const Tensor &a, bool lower, poplar::program::Sequence &prog,
                const poplar::DebugContext &debugContext, poplar::OptionFlags, PlanningCache *) {
  checkSquare("cholesky", a);
  const poplar::DebugContext dc(debugContext, "cholesky");
  const Tensor l = lowerFactor(graph, batched("cholesky", a, "a"), prog, dc);
  const Tensor factor = lower ? l : l.dimShuffle({0, 2, 1});
  Tensor out = graph.clone(a, dc);
  prog.add(Copy(factor, batched("cholesky", out, "a")));
  return out;
}

void choleskyInPlace(poplar::Graph &graph, const Tensor &a, bool lower, poplar::program::Sequence &prog,
                     const poplar::DebugContext &debugContext, poplar::OptionFlags options, PlanningCache *cache) {
  prog.add(Copy(cholesky(graph, a, lower, prog, debugContext, options, cache), a));
}

Tensor createTriangularSolveInputLHS(poplar::Graph &graph, const poplar::Type &inputType, const poplar::Type &,
                                     const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &, bool,
                                     const poplar::DebugContext &debugContext, const poplar::OptionFlags &,
                                     PlanningCache *) {
  return mappedVariable(graph, inputType, aShape, poplar::DebugContext(debugContext, "triangularSolveLHS"));
}

Tensor createTriangularSolveInputRHS(poplar::Graph &graph, const poplar::Type &inputType, const poplar::Type &,
                                     const std::vector<std::size_t> &, const std::vector<std::size_t> &bShape, bool,
                                     const poplar::DebugContext &debugContext, const poplar::OptionFlags &,
                                     PlanningCache *) {
  return mappedVariable(graph, inputType, bShape, poplar::DebugContext(debugContext, "triangularSolveRHS"));
}

Tensor triangularMask(poplar::Graph &graph, const Tensor &a, bool lower, bool unitDiagonal,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkSquare("triangularMask", a);
  const poplar::DebugContext dc(debugContext, "triangularMask");
  const std::size_t n = a.dim(a.rank() - 1);
  std::vector<float> keep(n * n), diagonal(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      keep[i * n + j] = (lower ? j < i : j > i) || (i == j && !unitDiagonal) ? 1.f : 0.f;
      diagonal[i * n + j] = i == j && unitDiagonal ? 1.f : 0.f;
    }
  const Tensor in = batched("triangularMask", a, "a");
  const auto constant = [&](const std::vector<float> &v) {
    Tensor c = graph.addConstant(a.elementType(), {1, n, n}, v.data(), dc);
    graph.setTileMapping(c, 0);
    return c.broadcast(static_cast<unsigned>(in.dim(0)), 0);
  };
  const Tensor out = popops::map(graph, pe::_1 * pe::_2 + pe::_3, {in, constant(keep), constant(diagonal)}, prog, dc);
  return out.reshape(a.shape());
}

Tensor triangularSolve(poplar::Graph &graph, const Tensor &a, const Tensor &b, bool leftSide, bool lower,
                       bool unitDiagonal, poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                       const poplar::OptionFlags &, PlanningCache *) {
  checkSquare("triangularSolve", a);
  const Tensor a3 = batched("triangularSolve", a, "a"), b3 = batched("triangularSolve", b, "b");
  const std::size_t n = a3.dim(1);
  if (b3.dim(0) != a3.dim(0) || (leftSide ? b3.dim(1) : b3.dim(2)) != n)
    throw poputil::poplibs_error("triangularSolve: b must be [..., " + std::to_string(n) +
                                 (leftSide ? ", K]" : "] after [..., K,") + " with a's batch dimensions");
  const poplar::DebugContext dc(debugContext, "triangularSolve");
  // X A = B is A^T X^T = B^T, the transposed triangle the other way up.
  const Tensor x = leftSide ? solveLeft(graph, a3, b3, lower, unitDiagonal, prog, dc)
                            : solveLeft(graph, a3.dimShuffle({0, 2, 1}), b3.dimShuffle({0, 2, 1}), !lower,
                                        unitDiagonal, prog, dc)
                                  .dimShuffle({0, 2, 1});
  return x.reshape(b.shape());
}

} // namespace poplin
