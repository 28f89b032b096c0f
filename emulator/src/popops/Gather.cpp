// XLA's gather, and numpy's take (one axis) as a case of it: one kernel reads the
// start indices when it runs and copies each output element from its place in input.
#include <popops/Gather.hpp>

#include <poputil/exceptions.hpp>

#include <algorithm>
#include <numeric>

#include "KernelSupport.hpp"
#include "OutOfBoundIndices.hpp"
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

using Sizes = std::vector<std::size_t>;

struct GatherDims {
  Sizes input, indices;
  std::size_t indexVectorDim;
  Sizes offsetDims, sliceSizes, collapsedSliceDims, startIndexMap;
  detail::OutOfBoundIndices outOfBound;

  void write(ByteWriter &w) const {
    w.sizes(input).sizes(indices).u64(indexVectorDim).sizes(offsetDims).sizes(sliceSizes)
        .sizes(collapsedSliceDims).sizes(startIndexMap);
    outOfBound.write(w);
  }
  static GatherDims read(ByteReader &r) {
    GatherDims d;
    d.input = r.sizes();
    d.indices = r.sizes();
    d.indexVectorDim = r.u64();
    d.offsetDims = r.sizes();
    d.sliceSizes = r.sizes();
    d.collapsedSliceDims = r.sizes();
    d.startIndexMap = r.sizes();
    d.outOfBound = detail::OutOfBoundIndices::read(r);
    return d;
  }

  bool collapsed(std::size_t dim) const {
    return std::find(collapsedSliceDims.begin(), collapsedSliceDims.end(), dim) != collapsedSliceDims.end();
  }
  // The indices' dimensions that enumerate the slices (all but the index vector's).
  Sizes batchShape() const {
    Sizes shape = indices;
    if (indexVectorDim < shape.size()) shape.erase(shape.begin() + std::ptrdiff_t(indexVectorDim));
    return shape;
  }
  std::size_t indexVectorLength() const { return indexVectorDim < indices.size() ? indices[indexVectorDim] : 1; }

  // The output's shape; a message naming the parameter that does not fit, in `problem`.
  Sizes outputShape(std::string &problem) const {
    auto fail = [&](const std::string &what) {
      problem = what;
      return Sizes{};
    };
    if (indexVectorDim > indices.size()) return fail("indexVectorDim is more than the rank of indices");
    if (sliceSizes.size() != input.size()) return fail("sliceSizes must have one size per dimension of input");
    for (std::size_t d = 0; d < input.size(); ++d)
      if (sliceSizes[d] > input[d]) return fail("sliceSizes[" + std::to_string(d) + "] is more than the input's");
    if (startIndexMap.size() != indexVectorLength())
      return fail("startIndexMap must have one input dimension per element of an index vector");
    for (std::size_t d : startIndexMap)
      if (d >= input.size()) return fail("startIndexMap names a dimension input does not have");
    for (std::size_t d : collapsedSliceDims)
      if (d >= input.size() || sliceSizes[d] != 1)
        return fail("collapsedSliceDims must name dimensions of input with slice size 1");
    Sizes kept;
    for (std::size_t d = 0; d < input.size(); ++d)
      if (!collapsed(d)) kept.push_back(sliceSizes[d]);
    const Sizes batch = batchShape();
    if (offsetDims.size() != kept.size())
      return fail("offsetDims must have one output dimension per slice dimension not collapsed");
    const std::size_t rank = batch.size() + kept.size();
    for (std::size_t i = 0; i < offsetDims.size(); ++i)
      if (offsetDims[i] >= rank || (i && offsetDims[i] <= offsetDims[i - 1]))
        return fail("offsetDims must be increasing dimensions of the output");
    Sizes out(rank);
    std::size_t nextKept = 0, nextBatch = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      const bool isOffset = std::find(offsetDims.begin(), offsetDims.end(), d) != offsetDims.end();
      out[d] = isOffset ? kept[nextKept++] : batch[nextBatch++];
    }
    return out;
  }
};

// Row-major strides of a shape.
Sizes stridesOf(const Sizes &shape) {
  Sizes strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

void gatherElements(const GatherDims &g, const Sizes &outShape, const std::vector<double> &input,
                    const std::vector<double> &indices, std::vector<double> &out) {
  const Sizes inStrides = stridesOf(g.input), indexStrides = stridesOf(g.indices);
  Sizes keptDims; // input dimensions the offset dimensions run along, in order
  for (std::size_t d = 0; d < g.input.size(); ++d)
    if (!g.collapsed(d)) keptDims.push_back(d);
  Sizes position(outShape.size(), 0), start(g.input.size()), batchIndex;
  for (std::size_t flat = 0; flat < out.size(); ++flat) {
    // The slice's index vector, from the batch coordinates of this output element.
    batchIndex.clear();
    std::size_t nextOffset = 0;
    for (std::size_t d = 0; d < outShape.size(); ++d) {
      if (nextOffset < g.offsetDims.size() && g.offsetDims[nextOffset] == d) ++nextOffset;
      else batchIndex.push_back(position[d]);
    }
    std::fill(start.begin(), start.end(), 0);
    bool padded = false;
    for (std::size_t k = 0; k < g.startIndexMap.size(); ++k) {
      std::size_t at = 0, b = 0;
      for (std::size_t d = 0; d < g.indices.size(); ++d)
        at += indexStrides[d] * (d == g.indexVectorDim ? k : batchIndex[b++]);
      const std::size_t dim = g.startIndexMap[k];
      const long long first = g.outOfBound.start(indices[at], g.input[dim], g.sliceSizes[dim], true);
      padded = padded || first < 0;
      start[dim] = first < 0 ? 0 : std::size_t(first);
    }
    std::size_t from = 0;
    for (std::size_t d = 0; d < g.input.size(); ++d) from += start[d] * inStrides[d];
    for (std::size_t k = 0; k < keptDims.size(); ++k) from += position[g.offsetDims[k]] * inStrides[keptDims[k]];
    out[flat] = padded ? 0.0 : input[from];
    for (std::size_t d = outShape.size(); d-- > 0;) {
      if (++position[d] < outShape[d]) break;
      position[d] = 0;
    }
  }
}

// Reads: input, indices; writes: out.
KernelCompile gatherCompile(ByteReader &params) {
  const GatherDims g = GatherDims::read(params);
  std::string problem;
  const Sizes outShape = g.outputShape(problem);
  if (!problem.empty()) throw poplar::poplar_error("popops::Gather: " + problem);
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popops::Gather", ops, 3);
    check.elements(0, check.product(g.input)).elements(1, check.product(g.indices))
        .elements(2, check.product(outShape));
    return [=] {
      std::vector<double> input, indices, out(ops[2].numElements);
      poplar::detail::readValues(ops[0], input);
      poplar::detail::readValues(ops[1], indices);
      gatherElements(g, outShape, input, indices, out);
      poplar::detail::writeValues(ops[2], out);
    };
  };
}
const poplar::detail::KernelKind gatherKind("popops::Gather", gatherCompile);

Tensor addGather(poplar::Graph &graph, const Tensor &input, const Tensor &indices, const GatherDims &g,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  if (indices.elementType() != poplar::INT && indices.elementType() != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error("gather: indices " + detail::describe(indices) + " must be INT or UNSIGNED_INT");
  std::string problem;
  const Sizes outShape = g.outputShape(problem);
  if (!problem.empty())
    throw poputil::poplibs_error("gather of " + detail::describe(input) + " at " + detail::describe(indices) +
                                 ": " + problem);
  const Tensor out = detail::createLinearOutput(graph, input.elementType(), outShape, {debugContext, "gathered"});
  ByteWriter params;
  g.write(params);
  poplar::detail::executeKernel(
      graph, prog, poplar::detail::makeKernel("popops::Gather", {input, indices}, {out}, params.take()),
      debugContext);
  return out;
}

} // namespace

Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type, const std::vector<std::size_t> &operandShape,
                         unsigned axis, GatherParams, const poplar::DebugContext &debugContext) {
  if (axis >= operandShape.size())
    throw poputil::poplibs_error("createGatherInput: axis " + std::to_string(axis) + " is not a dimension of " +
                                 detail::bracketed(operandShape));
  return detail::createLinearOutput(graph, type, operandShape, debugContext);
}

Tensor gather(poplar::Graph &graph, const Tensor &input, const Tensor &indices, unsigned axis,
              poplar::program::Sequence &prog, GatherParams, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &optionFlags) {
  if (axis >= input.rank())
    throw poputil::poplibs_error("gather: axis " + std::to_string(axis) + " is not a dimension of " +
                                 detail::describe(input));
  // take(input, indices, axis): scalar indices, slices one deep in axis, which collapses;
  // the output's batch dimensions (indices') sit where axis was.
  GatherDims g{input.shape(), indices.shape(), indices.rank(), {}, input.shape(), {axis}, {axis},
               detail::OutOfBoundIndices::parse(optionFlags)};
  g.sliceSizes[axis] = 1;
  for (std::size_t d = 0; d + 1 < input.rank(); ++d) g.offsetDims.push_back(d < axis ? d : d + indices.rank());
  return addGather(graph, input, indices, g, prog, debugContext);
}

Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type, const std::vector<std::size_t> &inputShape,
                         const std::vector<std::size_t> &sliceSizes, std::vector<unsigned> startIndexMap,
                         const poplar::DebugContext &debugContext) {
  if (sliceSizes.size() != inputShape.size())
    throw poputil::poplibs_error("createGatherInput: sliceSizes " + detail::bracketed(sliceSizes) +
                                 " must have one size per dimension of " + detail::bracketed(inputShape));
  for (unsigned d : startIndexMap)
    if (d >= inputShape.size())
      throw poputil::poplibs_error("createGatherInput: startIndexMap names dimension " + std::to_string(d) +
                                   ", which " + detail::bracketed(inputShape) + " does not have");
  return detail::createLinearOutput(graph, type, inputShape, debugContext);
}

Tensor gather(poplar::Graph &graph, const Tensor &input, const Tensor &indices, std::size_t indexVectorDim,
              const std::vector<std::size_t> &offsetDims, const std::vector<std::size_t> &sliceSizes,
              const std::vector<std::size_t> &collapsedSliceDims, const std::vector<unsigned> &startIndexMap,
              poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &optionFlags) {
  const GatherDims g{input.shape(), indices.shape(), indexVectorDim, offsetDims, sliceSizes, collapsedSliceDims,
                     Sizes(startIndexMap.begin(), startIndexMap.end()),
                     detail::OutOfBoundIndices::parse(optionFlags)};
  return addGather(graph, input, indices, g, prog, debugContext);
}

} // namespace popops
