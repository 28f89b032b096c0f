#include <popops/UpdateScalarInRows.hpp>

#include <popops/EncodingConstants.hpp>

#include <limits>

#include "KernelSupport.hpp"
#include "ScalarInRows.hpp"
#include "poplar/AccessValues.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popops {

using poplar::Tensor;
using poplar::detail::Access;
using poplar::detail::ByteReader;
using poplar::detail::KernelCompile;

namespace {

// Reads: indices [rows]; writes (updating): params [rows][columns].
KernelCompile updateScalarCompile(ByteReader &params) {
  const std::size_t columns = params.u64();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popops::UpdateScalarInRows", ops, 2);
    check.elements(1, check.product({ops[0].numElements, columns}));
    return [=] {
      std::vector<double> indices, matrix;
      poplar::detail::readValues(ops[0], indices);
      poplar::detail::readValues(ops[1], matrix);
      for (std::size_t row = 0; row < indices.size(); ++row) {
        const double index = indices[row];
        double *begin = &matrix[row * columns];
        if (index == double(MASKED_LABEL_CODE)) continue;
        if (index >= double(columns)) std::fill(begin, begin + columns, std::numeric_limits<double>::quiet_NaN());
        else begin[std::size_t(index)] -= 1.0;
      }
      poplar::detail::writeValues(ops[1], matrix);
    };
  };
}
const poplar::detail::KernelKind updateScalarKind("popops::UpdateScalarInRows", updateScalarCompile);

} // namespace

void updateScalarInRows(poplar::Graph &graph, const Tensor &params, const Tensor &indices,
                        poplar::program::Sequence &program, const poplar::DebugContext &debugContext) {
  detail::checkScalarInRows("updateScalarInRows", params, indices);
  poplar::detail::ByteWriter kernelParams;
  kernelParams.u64(params.dim(1));
  poplar::detail::executeKernel(
      graph, program,
      poplar::detail::makeKernel("popops::UpdateScalarInRows", {indices}, {params}, kernelParams.take()),
      debugContext);
}

} // namespace popops
