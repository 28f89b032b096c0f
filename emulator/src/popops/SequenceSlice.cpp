// Copies of runs of rows between two tensors at offsets read when the program runs.
#include <popops/SequenceSlice.hpp>

#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cstring>

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

namespace {

// Reads: tIn [inRows][rowElements], tN, tInOffset, tOutOffset; writes: tOut [outRows][rowElements].
KernelCompile sequenceSliceCompile(ByteReader &params) {
  const std::size_t rowElements = params.u64();
  const bool zeroUnused = params.boolean();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popops::SequenceSlice", ops, 5);
    check.sameType(0, 4).elements(2, ops[1].numElements).elements(3, ops[1].numElements)
        .require(rowElements ? ops[0].numElements % rowElements == 0 && ops[4].numElements % rowElements == 0
                             : ops[0].numElements == 0 && ops[4].numElements == 0,
                 "the rows do not divide tIn and tOut");
    const std::size_t inRows = rowElements ? ops[0].numElements / rowElements : 0;
    const std::size_t outRows = rowElements ? ops[4].numElements / rowElements : 0;
    const std::size_t rowBytes = rowElements * ops[0].elemSize;
    return [=] {
      std::vector<double> counts, inOffsets, outOffsets;
      poplar::detail::readValues(ops[1], counts);
      poplar::detail::readValues(ops[2], inOffsets);
      poplar::detail::readValues(ops[3], outOffsets);
      detail::DenseOperand in(ops[0], ops[0].sharesVariableWith(ops[4])), out(ops[4]);
      const std::uint8_t *from = in.read<std::uint8_t>();
      std::uint8_t *to = out.update<std::uint8_t>();
      std::vector<bool> written(outRows, false);
      for (std::size_t j = 0; j < counts.size(); ++j) {
        for (double r = 0; r < counts[j]; ++r) {
          const double src = inOffsets[j] + r, dst = outOffsets[j] + r;
          if (src >= double(inRows) || dst >= double(outRows)) break;
          std::memcpy(to + std::size_t(dst) * rowBytes, from + std::size_t(src) * rowBytes, rowBytes);
          written[std::size_t(dst)] = true;
        }
      }
      if (zeroUnused)
        for (std::size_t row = 0; row < outRows; ++row)
          if (!written[row]) std::memset(to + row * rowBytes, 0, rowBytes);
      out.commit();
    };
  };
}
const poplar::detail::KernelKind sequenceSliceKind("popops::SequenceSlice", sequenceSliceCompile);

} // namespace

void sequenceSlice(poplar::Graph &graph, const Tensor &tIn, const Tensor &tOut, const Tensor &tN,
                   const Tensor &tInOffset, const Tensor &tOutOffset, bool zeroUnused, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext) {
  if (tIn.rank() < 2 || tOut.rank() < 2 || tIn[0].numElements() != tOut[0].numElements())
    throw poputil::poplibs_error("sequenceSlice: tIn " + detail::describe(tIn) + " and tOut " +
                                 detail::describe(tOut) + " must have rank 2 or more and rows of one size");
  if (tIn.elementType() != tOut.elementType())
    throw poputil::poplibs_error("sequenceSlice: tIn " + detail::describe(tIn) + " and tOut " +
                                 detail::describe(tOut) + " must have the same type");
  for (const Tensor *t : {&tN, &tInOffset, &tOutOffset})
    if (t->rank() != 1 || t->elementType() != poplar::UNSIGNED_INT || t->numElements() != tN.numElements())
      throw poputil::poplibs_error("sequenceSlice: tN, tInOffset and tOutOffset must be 1-D UNSIGNED_INT of one "
                                   "size; " + detail::describe(*t) + " is not");
  ByteWriter params;
  params.u64(tIn[0].numElements()).boolean(zeroUnused);
  poplar::detail::executeKernel(graph, prog,
                                poplar::detail::makeKernel("popops::SequenceSlice",
                                                           {tIn, tN, tInOffset, tOutOffset}, {tOut}, params.take()),
                                debugContext);
}

} // namespace popops
