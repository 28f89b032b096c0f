// popops/Scatter.hpp: XLA's scatter, with operand updated in place by a kernel that reads
// the start indices when it runs. The indices are seen as [scatter indices][index vector]
// and the updates as [scatter indices][window elements], whatever their layout.
#include <popops/Scatter.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <numeric>
#include <string>

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

// What a scatter kernel needs: operand's shape, the window's extent in each of operand's
// dimensions, where each index vector element goes, and which windows it handles.
struct ScatterWindows {
  Sizes operand, window, toOperand;
  std::size_t rows = 0;  // scatter indices (rows of the [rows][index vector] indices)
  std::size_t first = 0; // the first scatter index this kernel handles
  std::size_t count = 0; // how many
  detail::OutOfBoundIndices outOfBound;

  void write(ByteWriter &w) const {
    w.sizes(operand).sizes(window).sizes(toOperand).u64(rows).u64(first).u64(count);
    outOfBound.write(w);
  }
  static ScatterWindows read(ByteReader &r) {
    ScatterWindows s;
    s.operand = r.sizes();
    s.window = r.sizes();
    s.toOperand = r.sizes();
    s.rows = r.u64();
    s.first = r.u64();
    s.count = r.u64();
    s.outOfBound = detail::OutOfBoundIndices::read(r);
    return s;
  }
  std::size_t windowElements() const { return std::accumulate(window.begin(), window.end(), std::size_t(1),
                                                              std::multiplies<std::size_t>()); }
  std::string problem() const {
    if (window.size() != operand.size()) return "the window's rank is not the operand's";
    for (std::size_t d = 0; d < operand.size(); ++d)
      if (window[d] > operand[d]) return "the window is larger than the operand";
    for (std::size_t d : toOperand)
      if (d >= operand.size()) return "an index names a dimension the operand does not have";
    if (first > rows || count > rows - first) return "the windows are not among the scatter indices";
    return "";
  }

  // Operand offsets of each window element of scatter index `row`, or none when skipped.
  std::vector<std::size_t> offsets(const std::vector<double> &indices, std::size_t row) const {
    Sizes start(operand.size(), 0);
    for (std::size_t k = 0; k < toOperand.size(); ++k) {
      const std::size_t dim = toOperand[k];
      const long long at = outOfBound.start(indices[row * toOperand.size() + k], operand[dim], window[dim], false);
      if (at < 0) return {};
      start[dim] = std::size_t(at);
    }
    std::vector<std::size_t> found(windowElements());
    Sizes position(operand.size(), 0);
    for (std::size_t &offset : found) {
      offset = 0;
      for (std::size_t d = 0; d < operand.size(); ++d) offset = offset * operand[d] + start[d] + position[d];
      for (std::size_t d = operand.size(); d-- > 0;) {
        if (++position[d] < window[d]) break;
        position[d] = 0;
      }
    }
    return found;
  }
};

ScatterWindows readChecked(ByteReader &params, const char *kind) {
  ScatterWindows s = ScatterWindows::read(params);
  const std::string problem = s.problem();
  if (!problem.empty()) throw poplar::poplar_error(std::string(kind) + ": " + problem);
  return s;
}

// Reads: indices [rows][index vector], values [count][window]; writes (updating): operand.
KernelCompile scatterCompile(ByteReader &params) {
  const ScatterWindows s = readChecked(params, "popops::Scatter");
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popops::Scatter", ops, 3);
    check.elements(0, check.product({s.rows, s.toOperand.size()}))
        .elements(1, check.product({s.count, s.windowElements()}))
        .elements(2, check.product(s.operand))
        .sameType(1, 2);
    return [=] {
      std::vector<double> indices, values, operand;
      poplar::detail::readValues(ops[0], indices);
      poplar::detail::readValues(ops[1], values);
      poplar::detail::readValues(ops[2], operand);
      for (std::size_t n = 0; n < s.count; ++n) {
        const std::vector<std::size_t> at = s.offsets(indices, s.first + n);
        for (std::size_t w = 0; w < at.size(); ++w) operand[at[w]] = values[n * at.size() + w];
      }
      poplar::detail::writeValues(ops[2], operand);
    };
  };
}
const poplar::detail::KernelKind scatterKind("popops::Scatter", scatterCompile);

// Reads: operand, indices [rows][index vector]; writes: the window of scatter index
// `first` (zeros when it is skipped).
KernelCompile scatterWindowCompile(ByteReader &params) {
  const ScatterWindows s = readChecked(params, "popops::ScatterWindow");
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popops::ScatterWindow", ops, 3);
    check.elements(0, check.product(s.operand))
        .elements(1, check.product({s.rows, s.toOperand.size()}))
        .elements(2, s.windowElements())
        .sameType(0, 2)
        .require(s.first < s.rows, "the scatter index");
    return [=] {
      std::vector<double> operand, indices, window(s.windowElements(), 0.0);
      poplar::detail::readValues(ops[0], operand);
      poplar::detail::readValues(ops[1], indices);
      const std::vector<std::size_t> at = s.offsets(indices, s.first);
      for (std::size_t w = 0; w < at.size(); ++w) window[w] = operand[at[w]];
      poplar::detail::writeValues(ops[2], window);
    };
  };
}
const poplar::detail::KernelKind scatterWindowKind("popops::ScatterWindow", scatterWindowCompile);

// A scatter's operands seen as the kernels see them, checked against its parameters.
struct ScatterPlan {
  Tensor indexRows; // [scatter indices][index vector]
  Tensor updateRows; // [scatter indices][window elements]
  Sizes updateWindowShape; // a window as updates holds it
  ScatterWindows windows;
};

[[noreturn]] void failScatter(const Tensor &operand, const std::string &what) {
  throw poputil::poplibs_error("scatter into " + detail::describe(operand) + ": " + what);
}

template <class T> bool isIncreasing(const std::vector<T> &dims) {
  return std::adjacent_find(dims.begin(), dims.end(), [](T a, T b) { return a >= b; }) == dims.end();
}

ScatterPlan planScatter(const Tensor &operand, const Tensor &indices, const Tensor &updates, std::size_t indexVectorDim,
                 const std::vector<unsigned> &updateWindowDims, const std::vector<std::size_t> &insertWindowDims,
                 const std::vector<unsigned> &scatterDimsToOperandDims, const poplar::OptionFlags &options) {
  ScatterPlan p;
  p.windows.outOfBound = detail::OutOfBoundIndices::parse(options);
  if (indices.elementType() != poplar::INT && indices.elementType() != poplar::UNSIGNED_INT)
    failScatter(operand, "indices " + detail::describe(indices) + " must be INT or UNSIGNED_INT");
  if (updates.elementType() != operand.elementType())
    failScatter(operand, "updates " + detail::describe(updates) + " must have the operand's element type");
  if (indexVectorDim > indices.rank()) failScatter(operand, "indexVectorDim is more than the rank of indices");
  const std::size_t vectorLength = indexVectorDim < indices.rank() ? indices.dim(indexVectorDim) : 1;
  if (scatterDimsToOperandDims.size() != vectorLength)
    failScatter(operand, "scatterDimsToOperandDims must have one operand dimension per element of an index vector");
  std::vector<unsigned> mapped = scatterDimsToOperandDims;
  std::sort(mapped.begin(), mapped.end());
  if (!mapped.empty() && (mapped.back() >= operand.rank() || !isIncreasing(mapped)))
    failScatter(operand, "scatterDimsToOperandDims must name distinct dimensions of the operand");
  if (!isIncreasing(updateWindowDims) || (!updateWindowDims.empty() && updateWindowDims.back() >= updates.rank()))
    failScatter(operand, "updateWindowDims must be isIncreasing dimensions of updates");
  if (!isIncreasing(insertWindowDims) || (!insertWindowDims.empty() && insertWindowDims.back() >= operand.rank()))
    failScatter(operand, "insertWindowDims must be isIncreasing dimensions of the operand");
  if (updateWindowDims.size() + insertWindowDims.size() != operand.rank())
    failScatter(operand, "updateWindowDims and insertWindowDims together must have one entry per operand dimension");
  // The window in the operand's dimensions, from updates' window dimensions in order.
  p.windows.operand = operand.shape();
  std::size_t nextWindow = 0;
  for (std::size_t d = 0; d < operand.rank(); ++d) {
    const bool inserted = std::find(insertWindowDims.begin(), insertWindowDims.end(), d) != insertWindowDims.end();
    const std::size_t extent = inserted ? 1 : updates.dim(updateWindowDims[nextWindow++]);
    if (extent > operand.dim(d)) failScatter(operand, "the window is larger than the operand in dimension " +
                                               std::to_string(d));
    p.windows.window.push_back(extent);
  }
  // updates' scatter dimensions must match indices' batch dimensions, in order.
  std::vector<unsigned> updatesOrder, indicesOrder;
  Sizes updateBatch, indexBatch;
  for (unsigned d = 0; d < updates.rank(); ++d)
    if (std::find(updateWindowDims.begin(), updateWindowDims.end(), d) == updateWindowDims.end()) {
      updatesOrder.push_back(d);
      updateBatch.push_back(updates.dim(d));
    }
  for (unsigned d = 0; d < indices.rank(); ++d)
    if (d != indexVectorDim) {
      indicesOrder.push_back(d);
      indexBatch.push_back(indices.dim(d));
    }
  if (updateBatch != indexBatch)
    failScatter(operand, "updates' scatter dimensions " + detail::bracketed(updateBatch) +
                      " must be the batch dimensions of indices " + detail::bracketed(indexBatch));
  if (indexVectorDim < indices.rank()) indicesOrder.push_back(unsigned(indexVectorDim));
  for (unsigned d : updateWindowDims) {
    updatesOrder.push_back(d);
    p.updateWindowShape.push_back(updates.dim(d));
  }
  const std::size_t rows = std::accumulate(indexBatch.begin(), indexBatch.end(), std::size_t(1),
                                           std::multiplies<std::size_t>());
  p.windows.toOperand.assign(scatterDimsToOperandDims.begin(), scatterDimsToOperandDims.end());
  p.windows.rows = rows;
  p.indexRows = indices.dimShuffle(indicesOrder).reshape({rows, vectorLength});
  p.updateRows = updates.dimShuffle(updatesOrder).reshape({rows, p.windows.windowElements()});
  return p;
}

void addScatterKernel(poplar::Graph &graph, poplar::program::Sequence &prog, ScatterWindows windows,
                      std::size_t first, const Tensor &indexRows, const Tensor &values, const Tensor &operand,
                      const poplar::DebugContext &debugContext) {
  windows.first = first;
  windows.count = values.dim(0);
  ByteWriter params;
  windows.write(params);
  poplar::detail::executeKernel(
      graph, prog, poplar::detail::makeKernel("popops::Scatter", {indexRows, values}, {operand}, params.take()),
      debugContext);
}

} // namespace

void scatter(poplar::Graph &graph, const Tensor &operand, const Tensor &indices, const Tensor &updates,
             std::size_t indexVectorDim, std::vector<unsigned> updateWindowDims,
             std::vector<std::size_t> insertWindowDims, std::vector<unsigned> scatterDimsToOperandDims,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
             const poplar::OptionFlags &optionFlags) {
  const ScatterPlan p = planScatter(operand, indices, updates, indexVectorDim, updateWindowDims, insertWindowDims,
                             scatterDimsToOperandDims, optionFlags);
  addScatterKernel(graph, prog, p.windows, 0, p.indexRows, p.updateRows, operand, {debugContext, "scatter"});
}

void scatter(poplar::Graph &graph, const Tensor &operand, const Tensor &indices, const Tensor &updates,
             std::size_t indexVectorDim, std::vector<unsigned> updateWindowDims,
             std::vector<std::size_t> insertWindowDims, std::vector<unsigned> scatterDimsToOperandDims,
             UpdateComputationFunc &updateComputation, poplar::program::Sequence &prog,
             const poplar::DebugContext &debugContext, const poplar::OptionFlags &optionFlags) {
  const ScatterPlan p = planScatter(operand, indices, updates, indexVectorDim, updateWindowDims, insertWindowDims,
                             scatterDimsToOperandDims, optionFlags);
  for (std::size_t row = 0; row < p.windows.rows; ++row) {
    const poplar::DebugContext step(debugContext, "scatter" + std::to_string(row));
    Tensor current = detail::createLinearOutput(graph, operand.elementType(), p.updateWindowShape, {step, "window"});
    ScatterWindows windows = p.windows;
    windows.first = row;
    ByteWriter params;
    windows.write(params);
    poplar::detail::executeKernel(graph, prog,
                                  poplar::detail::makeKernel("popops::ScatterWindow", {operand, p.indexRows},
                                                             {current.flatten()}, params.take()),
                                  step);
    Tensor update = p.updateRows[row].reshape(p.updateWindowShape);
    const Tensor combined = updateComputation(graph, current, update, prog);
    if (combined.shape() != current.shape() || combined.elementType() != operand.elementType())
      failScatter(operand, "the update computation returned " + detail::describe(combined) + ", not a window " +
                        detail::bracketed(p.updateWindowShape) + " of the operand's type");
    addScatterKernel(graph, prog, p.windows, row, p.indexRows, combined.reshape({1, combined.numElements()}),
                     operand, step);
  }
}

} // namespace popops
