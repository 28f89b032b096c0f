#include <popops/SelectScalarFromRows.hpp>

#include <popops/EncodingConstants.hpp>
#include <poputil/exceptions.hpp>

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

namespace detail {

void checkScalarInRows(const char *fn, const Tensor &params, const Tensor &indices) {
  const poplar::Type t = params.elementType();
  if (params.rank() != 2 || (t != poplar::FLOAT && t != poplar::HALF))
    throw poputil::poplibs_error(std::string(fn) + ": params " + describe(params) +
                                 " must be a 2-D tensor of FLOAT or HALF");
  if (indices.rank() != 1 || indices.elementType() != poplar::UNSIGNED_INT || indices.dim(0) != params.dim(0))
    throw poputil::poplibs_error(std::string(fn) + ": indices " + describe(indices) +
                                 " must be a 1-D tensor of UNSIGNED_INT with one element per row of " +
                                 describe(params));
}

} // namespace detail

namespace {

// Reads: params [rows][columns], indices [rows]; writes: out [rows].
KernelCompile selectScalarCompile(ByteReader &params) {
  const std::size_t columns = params.u64();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popops::SelectScalarFromRows", ops, 3);
    check.elements(0, check.product({ops[1].numElements, columns})).elements(2, ops[1].numElements);
    return [=] {
      std::vector<double> matrix, indices;
      poplar::detail::readValues(ops[0], matrix);
      poplar::detail::readValues(ops[1], indices);
      std::vector<double> out(indices.size());
      for (std::size_t row = 0; row < indices.size(); ++row) {
        const double index = indices[row];
        if (index == double(MASKED_LABEL_CODE)) out[row] = 0.0;
        else if (index >= double(columns)) out[row] = std::numeric_limits<double>::quiet_NaN();
        else out[row] = matrix[row * columns + std::size_t(index)];
      }
      poplar::detail::writeValues(ops[2], out);
    };
  };
}
const poplar::detail::KernelKind selectScalarKind("popops::SelectScalarFromRows", selectScalarCompile);

} // namespace

Tensor selectScalarFromRows(poplar::Graph &graph, const Tensor &params, const Tensor &indices,
                            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  detail::checkScalarInRows("selectScalarFromRows", params, indices);
  const Tensor out = detail::createLinearOutput(graph, params.elementType(), {params.dim(0)},
                                                {debugContext, "selected"});
  poplar::detail::ByteWriter kernelParams;
  kernelParams.u64(params.dim(1));
  poplar::detail::executeKernel(graph, prog,
                                poplar::detail::makeKernel("popops::SelectScalarFromRows", {params, indices}, {out},
                                                           kernelParams.take()),
                                debugContext);
  return out;
}

} // namespace popops
