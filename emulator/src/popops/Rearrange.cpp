// popops/Rearrange.hpp: regrouping keeps contents; see the header for what the emulator does.
#include <popops/Rearrange.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <limits>
#include <string>

#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popops {
namespace rearrange {

namespace {

void checkGrouping(const poplar::Tensor &t, const poputil::GroupingInfo &g, const char *what) {
  if (t.rank() > 1 && (g.first >= t.rank() || g.second == 0 || t.dim(g.first) % g.second != 0))
    throw poputil::poplibs_error(std::string("regroupTensor: grouping ") + what + " (dimension " +
                                 std::to_string(g.first) + ", " + std::to_string(g.second) +
                                 " elements) does not divide the tensor");
}

// Reads a transposed view of the matrices, writes them: an element copy.
poplar::detail::KernelCompile transposeCompile(poplar::detail::ByteReader &) {
  return [](const std::vector<poplar::detail::Access> &operands) {
    poplar::detail::KernelOperands("popops::Transpose", operands, 2)
        .elements(1, operands[0].numElements)
        .sameType(0, 1);
    const poplar::detail::Access from = operands[0], to = operands[1];
    return std::function<void()>([from, to] { poplar::detail::copyElements(from, to); });
  };
}
const poplar::detail::KernelKind transposeKind("popops::Transpose", transposeCompile);

// Adds to cs the kernel writing `out` from `in`'s rows x cols matrices transposed.
void addTranspose(poplar::Graph &graph, const poplar::ComputeSet &cs, const poplar::Tensor &in,
                  const poplar::Tensor &out) {
  poplar::detail::addKernel(graph, cs, poplar::detail::makeKernel("popops::Transpose", {in}, {out}));
}

} // namespace

bool canUseFastTranspose(const poplar::Target &target, const poplar::Type &type, unsigned numRows,
                         unsigned numColumns, unsigned numTranspositions) {
  const unsigned block = type == poplar::QUARTER ? 8
                         : type == poplar::HALF || type == poplar::SHORT || type == poplar::UNSIGNED_SHORT ? 4
                                                                                                          : 0;
  return block && numRows % block == 0 && numColumns % block == 0 &&
         numTranspositions <= std::numeric_limits<unsigned short>::max() &&
         numRows / block <= target.getRptCountMax() && numColumns / block <= target.getRptCountMax();
}

void addTransposeVertices(poplar::Graph &graph, const poplar::ComputeSet &cs, const poplar::Type &dType,
                          unsigned rows, unsigned cols, const poplar::Graph::TileToTensorMapping &mapping,
                          std::function<std::pair<const poplar::Tensor, const poplar::Tensor>(size_t)> getInOut,
                          const poplar::DebugContext &) {
  const std::size_t elements = std::size_t(rows) * cols;
  for (const std::vector<poplar::Interval> &intervals : mapping)
    for (const poplar::Interval &interval : intervals)
      for (std::size_t i = interval.begin(); i < interval.end(); ++i) {
        const std::pair<const poplar::Tensor, const poplar::Tensor> inOut = getInOut(i);
        for (const poplar::Tensor *t : {&inOut.first, &inOut.second})
          if (t->rank() != 1 || t->numElements() != elements || t->elementType() != dType)
            throw poputil::poplibs_error("addTransposeVertices: transposition " + std::to_string(i) + "'s " +
                                         (t == &inOut.first ? "input " : "output ") + t->getVarStr() +
                                         " must be " + std::to_string(elements) + " " + dType.toString().str() +
                                         " elements, flattened");
        addTranspose(graph, cs, inOut.first.reshape({rows, cols}).transpose().flatten(), inOut.second);
      }
}

poplar::Tensor partialTranspose(poplar::Graph &graph, const poplar::Tensor &in, const poplar::ComputeSet &cs,
                                const poplar::DebugContext &debugContext) {
  if (in.rank() < 2)
    throw poputil::poplibs_error("partialTranspose: " + in.getVarStr() + " has fewer than two dimensions");
  const poplar::Tensor swapped = in.dimRoll(in.rank() - 1, in.rank() - 2);
  poplar::Tensor out = graph.addVariable(in.elementType(), swapped.shape(), {debugContext, "partialTranspose"});
  poputil::mapTensorLinearly(graph, out);
  addTranspose(graph, cs, swapped, out);
  return out;
}

unsigned getMinimumRegroupGrainSize(const poplar::Type &type) {
  if (type == poplar::QUARTER) return 8;
  if (type == poplar::HALF || type == poplar::SHORT || type == poplar::UNSIGNED_SHORT) return 4;
  if (type == poplar::FLOAT || type == poplar::INT || type == poplar::UNSIGNED_INT) return 2;
  return 1;
}

poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t,
                             std::vector<poplar::program::Copy> &copies, const poplar::ComputeSet &,
                             const poputil::GroupingInfo &from, const poputil::GroupingInfo &to,
                             const poplar::DebugContext &debugContext) {
  checkGrouping(t, from, "from");
  checkGrouping(t, to, "to");
  if (t.rank() <= 1) return t;
  poplar::Tensor out = graph.clone(t, poplar::DebugContext(debugContext, "regrouped"));
  copies.emplace_back(t, out);
  return out;
}

poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &copies,
                             const poplar::ComputeSet &transposeCS, const poputil::GroupingInfo &from,
                             const poputil::GroupingInfo &to, const poplar::DebugContext &debugContext) {
  std::vector<poplar::program::Copy> made;
  poplar::Tensor out = regroupTensor(graph, t, made, transposeCS, from, to, debugContext);
  for (const poplar::program::Copy &c : made) copies.add(c);
  return out;
}

poplar::Tensor regroupIfPossible(poplar::Graph &, const poplar::Tensor &t, poplar::program::Sequence &,
                                 const poputil::GroupingInfo &, const poplar::DebugContext &) {
  return t;
}

poplar::Tensor regroupIfBeneficial(poplar::Graph &, const poplar::Tensor &in, const poplar::Tensor &ref,
                                   poplar::program::Sequence &, const poplar::DebugContext &) {
  if (in.shape() != ref.shape())
    throw poputil::poplibs_error("regroupIfBeneficial: in and ref must have the same shape");
  return in;
}

poplar::Tensor regroupIfBeneficial(poplar::Graph &, const poplar::Tensor &in, const poplar::Tensor &ref,
                                   std::vector<poplar::program::Copy> &, poplar::ComputeSet,
                                   const poplar::DebugContext &) {
  if (in.shape() != ref.shape())
    throw poputil::poplibs_error("regroupIfBeneficial: in and ref must have the same shape");
  return in;
}

poplar::Tensor regroupIfBeneficial(poplar::Graph &, const poplar::Tensor &in, std::size_t,
                                   poplar::program::Sequence &, const poplar::DebugContext &) {
  return in;
}

} // namespace rearrange
} // namespace popops
