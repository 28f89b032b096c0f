// poplin/experimental/LuFactorization.hpp: Gaussian elimination in one kernel.
#include <poplin/experimental/LuFactorization.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>

#include "poplar/AccessValues.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace poplin {
namespace experimental {

namespace {

using poplar::detail::Access;

// input [rows][columns] -> L [rows][rows], U [rows][columns], row-major.
void eliminate(std::size_t rows, std::size_t columns, const std::vector<double> &input, std::vector<double> &lower,
               std::vector<double> &upper) {
  upper = input;
  lower.assign(rows * rows, 0.0);
  for (std::size_t i = 0; i < rows; ++i) lower[i * rows + i] = 1.0;
  for (std::size_t k = 0; k < std::min(rows, columns); ++k) {
    const double pivot = upper[k * columns + k];
    for (std::size_t i = k + 1; i < rows; ++i) {
      const double factor = upper[i * columns + k] / pivot;
      lower[i * rows + k] = factor;
      for (std::size_t j = k; j < columns; ++j) upper[i * columns + j] -= factor * upper[k * columns + j];
      upper[i * columns + k] = 0.0; // exactly, whatever the rounding
    }
  }
}

// Params: rows, columns. Reads: input; writes: L, U.
poplar::detail::KernelCompile luCompile(poplar::detail::ByteReader &params) {
  const std::size_t rows = params.u64(), columns = params.u64();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("poplin::LUFactorization", ops, 3);
    check.elements(0, check.product({rows, columns}))
        .elements(1, check.product({rows, rows}))
        .elements(2, check.product({rows, columns}));
    return [=] {
      std::vector<double> input, lower, upper;
      poplar::detail::readValues(ops[0], input);
      eliminate(rows, columns, input, lower, upper);
      poplar::detail::writeValues(ops[1], lower);
      poplar::detail::writeValues(ops[2], upper);
    };
  };
}
const poplar::detail::KernelKind luKind("poplin::LUFactorization", luCompile);

} // namespace

std::pair<poplar::Tensor, poplar::Tensor> LUFactorization(poplar::Graph &graph, poplar::Tensor &input,
                                                          poplar::program::Sequence &seq,
                                                          const poplar::DebugContext &debugContext) {
  if (input.rank() != 2 || (input.elementType() != poplar::FLOAT && input.elementType() != poplar::HALF))
    throw poputil::poplibs_error("LUFactorization: input " + input.getVarStr() +
                                 " must be a FLOAT or HALF matrix");
  const std::size_t rows = input.dim(0), columns = input.dim(1);
  poplar::Tensor lower = graph.addVariable(poplar::FLOAT, {rows, rows}, {debugContext, "L"});
  poplar::Tensor upper = graph.addVariable(poplar::FLOAT, {rows, columns}, {debugContext, "U"});
  poputil::mapTensorLinearly(graph, lower);
  poputil::mapTensorLinearly(graph, upper);
  poplar::detail::ByteWriter params;
  params.u64(rows).u64(columns);
  auto kernel = poplar::detail::makeKernel("poplin::LUFactorization", {input}, {lower, upper}, params.take());
  kernel.cyclesPerVector = unsigned(std::max<std::size_t>(1, std::min(rows, columns))); // a pass per column
  poplar::detail::executeKernel(graph, seq, std::move(kernel), debugContext);
  return {lower, upper};
}

} // namespace experimental
} // namespace poplin
