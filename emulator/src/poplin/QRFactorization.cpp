// poplin/experimental/QRFactorization.hpp: Householder reflections in one kernel.
#include <poplin/experimental/QRFactorization.hpp>

#include <poplar/exceptions.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "poplar/AccessValues.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace poplin {
namespace experimental {

namespace {

using poplar::detail::Access;

// r [rows][columns] becomes H_n ... H_1 r (upper triangular), q [rows][rows] q H_1 ... H_n.
void reflect(std::size_t rows, std::size_t columns, std::vector<double> &r, std::vector<double> &q) {
  std::vector<double> v(rows);
  for (std::size_t k = 0; k < std::min(rows - 1, columns); ++k) {
    double below = 0.0; // the squared norm of the column under the diagonal
    for (std::size_t i = k + 1; i < rows; ++i) below += r[i * columns + k] * r[i * columns + k];
    if (below == 0.0) continue; // already triangular here: the reflection is the identity
    const double lead = r[k * columns + k], norm = std::sqrt(lead * lead + below);
    const double diagonal = lead >= 0 ? -norm : norm;
    // v = x - diagonal e_1, scaled to unit length; H = I - 2 v v^T.
    v[k] = lead - diagonal;
    for (std::size_t i = k + 1; i < rows; ++i) v[i] = r[i * columns + k];
    const double length = std::sqrt(v[k] * v[k] + below);
    for (std::size_t i = k; i < rows; ++i) v[i] /= length;
    for (std::size_t j = k; j < columns; ++j) {
      double dot = 0.0;
      for (std::size_t i = k; i < rows; ++i) dot += v[i] * r[i * columns + j];
      for (std::size_t i = k; i < rows; ++i) r[i * columns + j] -= 2 * dot * v[i];
    }
    for (std::size_t i = k + 1; i < rows; ++i) r[i * columns + k] = 0.0; // exactly
    r[k * columns + k] = diagonal;
    for (std::size_t row = 0; row < rows; ++row) {
      double dot = 0.0;
      for (std::size_t i = k; i < rows; ++i) dot += q[row * rows + i] * v[i];
      for (std::size_t i = k; i < rows; ++i) q[row * rows + i] -= 2 * dot * v[i];
    }
  }
}

// Params: rows, columns. Writes (updating): A, Q.
poplar::detail::KernelCompile qrCompile(poplar::detail::ByteReader &params) {
  const std::size_t rows = params.u64(), columns = params.u64();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("poplin::QRFactorization", ops, 2);
    check.elements(0, check.product({rows, columns})).elements(1, check.product({rows, rows}))
        .require(rows >= columns && rows > 0, "the shape of A");
    return [=] {
      std::vector<double> r, q;
      poplar::detail::readValues(ops[0], r);
      poplar::detail::readValues(ops[1], q);
      reflect(rows, columns, r, q);
      poplar::detail::writeValues(ops[0], r);
      poplar::detail::writeValues(ops[1], q);
    };
  };
}
const poplar::detail::KernelKind qrKind("poplin::QRFactorization", qrCompile);

void checkQrOptions(const poplar::OptionFlags &options) {
  for (const auto &option : options) {
    if (option.first != "rowsPerIteration")
      throw poplar::invalid_option("Unrecognised option '" + option.first + "'");
    const std::string &value = option.second;
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || std::stoull(value) == 0)
      throw poplar::invalid_option("Invalid value '" + value +
                                   "' for option 'rowsPerIteration': expected a positive integer");
  }
}

void checkQrShape(const char *api, std::size_t m, std::size_t n) {
  if (m < n || n == 0)
    throw poputil::poplibs_error(std::string(api) + ": A must have at least as many rows as columns, and " +
                                 "some columns; got " + std::to_string(m) + " x " + std::to_string(n));
}

} // namespace

std::array<poplar::Tensor, 2> createQRFactorizationMatrices(poplar::Graph &graph, const poplar::Type &type,
                                                            const std::size_t m, const std::size_t n,
                                                            const poplar::DebugContext &debugContext) {
  checkQrShape("createQRFactorizationMatrices", m, n);
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error("createQRFactorizationMatrices: type " + type.toString().str() +
                                 " must be FLOAT or HALF");
  std::array<poplar::Tensor, 2> matrices = {graph.addVariable(type, {m, n}, {debugContext, "A"}),
                                            graph.addVariable(type, {m, m}, {debugContext, "Q"})};
  for (poplar::Tensor &t : matrices) poputil::mapTensorLinearly(graph, t);
  return matrices;
}

void QRFactorization(poplar::Graph &graph, poplar::Tensor &A, poplar::Tensor &Q, poplar::program::Sequence &prog,
                     const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  checkQrOptions(options);
  if (A.rank() != 2 || Q.rank() != 2)
    throw poputil::poplibs_error("QRFactorization: A " + A.shapeToString() + " and Q " + Q.shapeToString() +
                                 " must be matrices");
  checkQrShape("QRFactorization", A.dim(0), A.dim(1));
  if (Q.dim(0) != A.dim(0) || Q.dim(1) != A.dim(0) || Q.elementType() != A.elementType() ||
      (A.elementType() != poplar::FLOAT && A.elementType() != poplar::HALF))
    throw poputil::poplibs_error("QRFactorization: Q " + Q.getVarStr() + " must be " + std::to_string(A.dim(0)) +
                                 " x " + std::to_string(A.dim(0)) + " of A's type, FLOAT or HALF");
  poplar::detail::ByteWriter params;
  params.u64(A.dim(0)).u64(A.dim(1));
  auto kernel = poplar::detail::makeKernel("poplin::QRFactorization", {}, {A, Q}, params.take());
  kernel.cyclesPerVector = unsigned(A.dim(1)); // a reflection per column
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
}

} // namespace experimental
} // namespace poplin
