// One-hot encodings and integer ranges: each one kernel over the whole output.
#include <popops/Encoding.hpp>

#include <poputil/exceptions.hpp>

#include "KernelSupport.hpp"
#include "poplar/AccessValues.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popops {

using poplar::Tensor;
using poplar::detail::Access;
using poplar::detail::ByteReader;
using poplar::detail::ByteWriter;
using poplar::detail::KernelCompile;
using poputil::poplibs_error;

namespace {

bool isIndexType(const poplar::Type &t) { return t == poplar::INT || t == poplar::UNSIGNED_INT; }

// Reads: indices[, on, off]; writes: encoded [N][columns].
KernelCompile encodeOneHotCompile(ByteReader &params) {
  const std::size_t columns = params.u64();
  const bool withValues = params.boolean();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    const std::size_t encodedAt = withValues ? 3 : 1;
    poplar::detail::KernelOperands check("popops::EncodeOneHot", ops, encodedAt + 1);
    check.elements(encodedAt, check.product({ops[0].numElements, columns}));
    if (withValues) check.elements(1, 1).elements(2, 1);
    return [=] {
      std::vector<double> indices, on{1.0}, off{0.0};
      poplar::detail::readValues(ops[0], indices);
      if (withValues) {
        poplar::detail::readValues(ops[1], on);
        poplar::detail::readValues(ops[2], off);
      }
      std::vector<double> encoded(indices.size() * columns, off[0]);
      for (std::size_t row = 0; row < indices.size(); ++row) {
        // A masked label, a negative INT or an index past the row hits no column.
        const double index = indices[row];
        if (index >= 0 && index < double(columns)) encoded[row * columns + std::size_t(index)] = on[0];
      }
      poplar::detail::writeValues(ops[encodedAt], encoded);
    };
  };
}
const poplar::detail::KernelKind encodeOneHotKind("popops::EncodeOneHot", encodeOneHotCompile);

// Reads: [offset]; writes: t. t[i] = start + i, start being the offset when there is one.
KernelCompile iotaCompile(ByteReader &params) {
  const std::int64_t start = params.i64();
  const bool withOffset = params.boolean();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popops::Iota", ops, withOffset ? 2 : 1);
    if (withOffset) check.elements(0, 1);
    return [=] {
      double first = double(start);
      if (withOffset) {
        std::vector<double> offset;
        poplar::detail::readValues(ops[0], offset);
        first = offset[0];
      }
      const Access &out = ops[withOffset ? 1 : 0];
      std::vector<double> values(out.numElements);
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = first + double(i);
      poplar::detail::writeValues(out, values);
    };
  };
}
const poplar::detail::KernelKind iotaKind("popops::Iota", iotaCompile);

void checkEncodeOneHot(const Tensor &indices, const Tensor &encoded) {
  if (indices.rank() != 1 || !isIndexType(indices.elementType()))
    throw poplibs_error("encodeOneHot: indices " + detail::describe(indices) +
                        " must be a 1-D tensor of INT or UNSIGNED_INT");
  if (encoded.rank() != 2 || encoded.dim(0) != indices.dim(0))
    throw poplibs_error("encodeOneHot: encoded " + detail::describe(encoded) + " must be 2-D with one row per index of " +
                        detail::describe(indices));
}

void checkIota(const char *fn, const Tensor &t) {
  if (t.rank() != 1 || !isIndexType(t.elementType()))
    throw poplibs_error(std::string(fn) + ": t " + detail::describe(t) + " must be a 1-D tensor of INT or UNSIGNED_INT");
}

void addIota(poplar::Graph &graph, const Tensor &t, std::int64_t start, const Tensor *offset,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  ByteWriter params;
  params.i64(start).boolean(offset != nullptr);
  std::vector<Tensor> reads;
  if (offset) reads.push_back(*offset);
  poplar::detail::executeKernel(graph, prog, poplar::detail::makeKernel("popops::Iota", reads, {t}, params.take()),
                                debugContext);
}

} // namespace

void encodeOneHot(poplar::Graph &graph, const Tensor &indices, const Tensor &encoded,
                  poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkEncodeOneHot(indices, encoded);
  ByteWriter params;
  params.u64(encoded.dim(1)).boolean(false);
  poplar::detail::executeKernel(
      graph, prog, poplar::detail::makeKernel("popops::EncodeOneHot", {indices}, {encoded}, params.take()),
      debugContext);
}

void encodeOneHot(poplar::Graph &graph, const Tensor &indices, const Tensor &encoded,
                  poplar::program::Sequence &prog, const Tensor &on, const Tensor &off,
                  const poplar::DebugContext &debugContext) {
  checkEncodeOneHot(indices, encoded);
  for (const Tensor *value : {&on, &off})
    if (value->numElements() != 1 || value->elementType() != encoded.elementType())
      throw poplibs_error("encodeOneHot: on and off values such as " + detail::describe(*value) +
                          " must be single elements of the type of " + detail::describe(encoded));
  ByteWriter params;
  params.u64(encoded.dim(1)).boolean(true);
  poplar::detail::executeKernel(
      graph, prog, poplar::detail::makeKernel("popops::EncodeOneHot", {indices, on, off}, {encoded}, params.take()),
      debugContext);
}

void iota(poplar::Graph &graph, const Tensor &t, unsigned startInteger, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext) {
  checkIota("iota", t);
  addIota(graph, t, startInteger, nullptr, prog, debugContext);
}

void iota(poplar::Graph &graph, const Tensor &t, int startInteger, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext) {
  checkIota("iota", t);
  addIota(graph, t, startInteger, nullptr, prog, debugContext);
}

void iotaWithOffset(poplar::Graph &graph, const Tensor &t, const Tensor &offset, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext) {
  checkIota("iotaWithOffset", t);
  if (offset.numElements() != 1 || offset.elementType() != t.elementType())
    throw poplibs_error("iotaWithOffset: offset " + detail::describe(offset) +
                        " must be a single element of the type of " + detail::describe(t));
  addIota(graph, t, 0, &offset, prog, debugContext);
}

} // namespace popops
