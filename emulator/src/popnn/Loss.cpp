// popnn losses, accuracy and row-wise arg-max/min/top-k. Each is one kernel over whole
// rows; values are computed in double from the stored elements.
#include <popnn/Loss.hpp>

#include <popops/EncodingConstants.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

#include "poplar/AccessValues.hpp"
#include "poplar/CostModel.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"
#include "popops/KernelSupport.hpp"
#include "popops/RowSort.hpp"

namespace popnn {

namespace {

using poplar::Tensor;
using poplar::detail::Access;
using poplar::detail::ByteReader;
using poplar::detail::ByteWriter;
using poplar::detail::KernelCompile;
using poplar::detail::ValueRows;
using poputil::poplibs_error;

constexpr double kMaskedLabel = MASKED_LABEL_CODE;

// The smallest value added to probabilities before their log, per element type.
double logEpsilon(const poplar::Type &type) { return type == poplar::HALF ? 5.9605e-8 : 1.17549435e-38; }

std::string describe(const Tensor &t) { return popops::detail::describe(t); }

void checkRank(const char *fn, const char *what, const Tensor &t, unsigned rank) {
  if (t.rank() != rank)
    throw poplibs_error(std::string(fn) + ": Rank mismatch: " + what + " " + describe(t) + " must have rank " +
                        std::to_string(rank));
}

void checkDim(const char *fn, const char *what, const Tensor &t, unsigned dim, std::size_t size) {
  if (t.dim(dim) != size)
    throw poplibs_error(std::string(fn) + ": Dimension mismatch: dimension " + std::to_string(dim) + " of " +
                        what + " " + describe(t) + " must be " + std::to_string(size));
}

void checkLabels(const char *fn, const Tensor &modelOutputs, const Tensor &expected) {
  checkRank(fn, "modelOutputs", modelOutputs, 2);
  checkRank(fn, "expected", expected, 1);
  checkDim(fn, "expected", expected, 0, modelOutputs.dim(0));
  if (expected.elementType() != poplar::INT && expected.elementType() != poplar::UNSIGNED_INT)
    throw poplibs_error(std::string(fn) + ": expected " + describe(expected) +
                        " must hold integer labels (INT or UNSIGNED_INT)");
}

void checkSingleElement(const char *fn, const char *what, const Tensor &t) {
  if (t.numElements() != 1)
    throw poplibs_error(std::string(fn) + ": " + what + " " + describe(t) + " must have exactly one element");
}

// Reads: outputs [B][C], labels [B] (, deltasScale, modelOutputScaling); writes loss, deltas.
KernelCompile lossCompile(ByteReader &params) {
  const auto type = static_cast<LossType>(params.u64());
  const std::size_t classes = params.u64();
  const bool scaled = params.boolean();
  const double eps = params.f64();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    const poplar::detail::KernelOperands checked("popnn::Loss", ops, scaled ? 6 : 4);
    const std::size_t firstWrite = scaled ? 4 : 2, rows = ops[1].numElements;
    checked.elements(0, checked.product({rows, classes})).elements(firstWrite, rows)
        .elements(firstWrite + 1, ops[0].numElements);
    if (scaled) checked.elements(2, 1).elements(3, 1);
    return [=] {
      std::vector<double> p, labels, loss, deltas, scale(1, 1.0), outputScale(1, 1.0);
      poplar::detail::readValues(ops[0], p);
      poplar::detail::readValues(ops[1], labels);
      if (scaled) {
        poplar::detail::readValues(ops[2], scale);
        poplar::detail::readValues(ops[3], outputScale);
      }
      const std::size_t rows = labels.size();
      loss.assign(rows, 0.0);
      deltas.resize(p.size());
      const double deltaFactor = scale[0] / outputScale[0];
      for (std::size_t b = 0; b < rows; ++b) {
        const bool masked = labels[b] == kMaskedLabel;
        for (std::size_t c = 0; c < classes; ++c) {
          const double onehot = !masked && labels[b] == static_cast<double>(c) ? 1.0 : 0.0;
          const double x = p[b * classes + c];
          if (type == SUM_SQUARED_LOSS) {
            deltas[b * classes + c] = x - onehot;
            loss[b] += 0.5 * (x - onehot) * (x - onehot);
          } else {
            deltas[b * classes + c] = masked && rows > 1 ? 0.0 : deltaFactor * (x - onehot * outputScale[0]);
            if (onehot != 0.0) loss[b] -= std::log(x + eps) - std::log(outputScale[0]);
          }
        }
      }
      poplar::detail::writeValues(ops[firstWrite], loss);
      poplar::detail::writeValues(ops[firstWrite + 1], deltas);
    };
  };
}
const poplar::detail::KernelKind lossKind("popnn::Loss", lossCompile);

// The first index of the row's maximum (or minimum); NaNs are never chosen unless the
// row holds nothing else (then the last is). The extreme first, in four independent
// chains of compares (one chain took a dependent compare and move an element), then the
// first place that holds it.
template <bool Largest> std::size_t bestIndexOf(const double *row, std::size_t n) {
  const auto better = [](double x, double than) { return Largest ? x > than : x < than; };
  const double none = Largest ? -HUGE_VAL : HUGE_VAL;
  double chains[4] = {none, none, none, none};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int c = 0; c < 4; ++c) chains[c] = better(row[i + c], chains[c]) ? row[i + c] : chains[c];
  for (; i < n; ++i) chains[0] = better(row[i], chains[0]) ? row[i] : chains[0];
  double extreme = chains[0];
  for (int c = 1; c < 4; ++c) extreme = better(chains[c], extreme) ? chains[c] : extreme;
  for (i = 0; i < n; ++i)
    if (row[i] == extreme) return i;
  return n - 1; // every element NaN
}

std::size_t bestIndex(const double *row, std::size_t n, bool largest) {
  return largest ? bestIndexOf<true>(row, n) : bestIndexOf<false>(row, n);
}

// Reads: outputs [B][C], labels [B]; adds to numCorrect (an InOut count in poplibs, so
// a loop over batches accumulates until the program zeroes it).
KernelCompile accuracyCompile(ByteReader &params) {
  const std::size_t classes = params.u64();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands("popnn::CalcAccuracy", ops, 3)
        .elements(0, ops[1].numElements * classes).elements(2, 1)
        .require(classes > 0 && ops[0].numElements / classes == ops[1].numElements, "rows do not match labels");
    return [=] {
      std::vector<double> p, labels, correct;
      poplar::detail::readValues(ops[0], p);
      poplar::detail::readValues(ops[1], labels);
      poplar::detail::readValues(ops[2], correct);
      for (std::size_t b = 0; b < labels.size(); ++b)
        if (labels[b] != kMaskedLabel && static_cast<double>(bestIndex(&p[b * classes], classes, true)) == labels[b])
          ++correct[0];
      poplar::detail::writeValues(ops[2], correct);
    };
  };
}
const poplar::detail::KernelKind accuracyKind("popnn::CalcAccuracy", accuracyCompile);

// Reads: input [B][C]; writes indices [B] and, when asked, values [B]. Rows on the thread pool.
KernelCompile argBestCompile(ByteReader &params) {
  const std::size_t classes = params.u64();
  const bool largest = params.boolean();
  const bool withValues = params.boolean();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands("popnn::ArgBest", ops, withValues ? 3 : 2)
        .require(classes ? ops[0].numElements % classes == 0 : ops[0].numElements == 0, "rows do not divide the input");
    const auto input = std::make_shared<ValueRows>(ops[0], classes);
    return [=] {
      std::vector<double> indices(input->rows()), values(input->rows());
      input->forEachRow([&](std::size_t b, const double *row) {
        const std::size_t i = bestIndex(row, classes, largest);
        indices[b] = static_cast<double>(i);
        values[b] = row[i];
      });
      poplar::detail::writeValues(ops[1], indices);
      if (withValues) poplar::detail::writeValues(ops[2], values);
    };
  };
}
const poplar::detail::KernelKind argBestKind("popnn::ArgBest", argBestCompile);

// Reads: input [B][C]; writes values and indices [B][1][K]. Rows on the thread pool.
KernelCompile topKCompile(ByteReader &params) {
  const std::size_t classes = params.u64();
  const std::size_t k = params.u64();
  const bool sorted = params.boolean();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands("popnn::TopK", ops, 3)
        .require(k <= classes && (classes ? ops[0].numElements % classes == 0 : ops[0].numElements == 0),
                 "k or the rows do not fit the input");
    const auto input = std::make_shared<ValueRows>(ops[0], classes);
    return [=] {
      std::vector<double> values(input->rows() * k), indices(input->rows() * k);
      input->forEachRow([&](std::size_t b, const double *row) {
        thread_local std::vector<std::size_t> order;
        // Descending by value (NaN last), ties to the lower column.
        popops::detail::firstInOrder(classes, k, [row](std::size_t l, std::size_t r) {
          if (std::isnan(row[l]) || std::isnan(row[r])) return !std::isnan(row[l]) && std::isnan(row[r]);
          return row[l] > row[r];
        }, order);
        if (!sorted) std::sort(order.begin(), order.end());
        for (std::size_t i = 0; i < k; ++i) {
          values[b * k + i] = row[order[i]];
          indices[b * k + i] = static_cast<double>(order[i]);
        }
      });
      poplar::detail::writeValues(ops[1], values);
      poplar::detail::writeValues(ops[2], indices);
    };
  };
}
const poplar::detail::KernelKind topKKind("popnn::TopK", topKCompile);

Tensor output(poplar::Graph &graph, const poplar::Type &type, std::vector<std::size_t> shape,
              const poplar::DebugContext &dc, const char *name) {
  return popops::detail::createLinearOutput(graph, type, shape, poplar::DebugContext(dc, name));
}

poplar::program::Sequence lossProgram(poplar::Graph &graph, const Tensor &modelOutputs, const Tensor &expected,
                                      const Tensor &loss, const Tensor &deltas, const Tensor *deltasScale,
                                      const Tensor *modelOutputScaling, LossType lossType,
                                      const poplar::DebugContext &dc) {
  const char *fn = "calcLoss";
  checkLabels(fn, modelOutputs, expected);
  checkRank(fn, "loss", loss, 1);
  checkRank(fn, "deltas", deltas, 2);
  checkDim(fn, "loss", loss, 0, modelOutputs.dim(0));
  checkDim(fn, "deltas", deltas, 0, modelOutputs.dim(0));
  checkDim(fn, "deltas", deltas, 1, modelOutputs.dim(1));
  if (lossType != SUM_SQUARED_LOSS && lossType != CROSS_ENTROPY_LOSS)
    throw poplibs_error("calcLoss: unknown loss type " + std::to_string(static_cast<int>(lossType)));
  const bool scaled = deltasScale != nullptr;
  if (scaled && lossType == SUM_SQUARED_LOSS)
    throw poplibs_error("calcLoss: Loss scaling not implemented for SUM_SQUARED_LOSS");
  std::vector<Tensor> reads = {modelOutputs, expected};
  if (scaled) {
    checkSingleElement(fn, "deltasScale", *deltasScale);
    checkSingleElement(fn, "modelOutputScaling", *modelOutputScaling);
    reads.push_back(deltasScale->flatten());
    reads.push_back(modelOutputScaling->flatten());
  }
  ByteWriter params;
  params.u64(lossType).u64(modelOutputs.dim(1)).boolean(scaled).f64(logEpsilon(modelOutputs.elementType()));
  auto kernel = poplar::detail::makeKernel("popnn::Loss", reads, {loss, deltas}, params.take(),
                                           lossType == SUM_SQUARED_LOSS ? "popnn::LossSumSquared"
                                                                        : "popnn::LossCrossEntropy");
  kernel.cyclesPerVector = poplar::detail::kTranscendentalCycles + 3;
  poplar::program::Sequence prog;
  poplar::detail::executeKernel(graph, prog, std::move(kernel), dc);
  return prog;
}

std::pair<Tensor, Tensor> argBest(poplar::Graph &graph, const Tensor &input, bool largest, bool withValues,
                                  poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                                  const char *fn) {
  checkRank(fn, "input", input, 2);
  const poplar::Type t = input.elementType();
  if (t != poplar::FLOAT && t != poplar::HALF && t != poplar::INT && t != poplar::UNSIGNED_INT)
    throw poplibs_error(std::string(fn) + ": input " + describe(input) +
                        " must be FLOAT, HALF, INT or UNSIGNED_INT");
  const Tensor indices = output(graph, poplar::UNSIGNED_INT, {input.dim(0)}, dc, "indices");
  std::vector<Tensor> writes = {indices};
  Tensor values;
  if (withValues) writes.push_back(values = output(graph, t, {input.dim(0)}, dc, "values"));
  ByteWriter params;
  params.u64(input.dim(1)).boolean(largest).boolean(withValues);
  poplar::detail::executeKernel(graph, prog,
                                poplar::detail::makeKernel("popnn::ArgBest", {input}, writes, params.take(),
                                                           largest ? "popnn::ArgMax" : "popnn::ArgMin"),
                                dc);
  return {values, indices};
}

} // namespace

poplar::program::Program calcLoss(poplar::Graph &graph, const Tensor &modelOutputs, const Tensor &expected,
                                  const Tensor &loss, const Tensor &deltas, const Tensor &deltasScale,
                                  const Tensor &modelOutputScaling, LossType lossType,
                                  const poplar::DebugContext &debugContext) {
  return lossProgram(graph, modelOutputs, expected, loss, deltas, &deltasScale, &modelOutputScaling, lossType,
                     debugContext);
}

poplar::program::Program calcLoss(poplar::Graph &graph, const Tensor &modelOutputs, const Tensor &expected,
                                  const Tensor &loss, const Tensor &deltas, LossType lossType,
                                  const poplar::DebugContext &debugContext) {
  return lossProgram(graph, modelOutputs, expected, loss, deltas, nullptr, nullptr, lossType, debugContext);
}

poplar::program::Program calcLoss(poplar::Graph &graph, const Tensor &modelOutputs, const Tensor &expected,
                                  const Tensor &loss, const Tensor &deltas, const Tensor &deltasScale,
                                  const Tensor &modelOutputScaling, const Tensor &numCorrect, LossType lossType,
                                  const poplar::DebugContext &debugContext) {
  poplar::program::Sequence prog = lossProgram(graph, modelOutputs, expected, loss, deltas, &deltasScale,
                                               &modelOutputScaling, lossType, debugContext);
  prog.add(calcAccuracy(graph, modelOutputs, expected, numCorrect, debugContext));
  return prog;
}

poplar::program::Program calcLoss(poplar::Graph &graph, const Tensor &modelOutputs, const Tensor &expected,
                                  const Tensor &loss, const Tensor &deltas, const Tensor &numCorrect,
                                  LossType lossType, const poplar::DebugContext &debugContext) {
  poplar::program::Sequence prog =
      lossProgram(graph, modelOutputs, expected, loss, deltas, nullptr, nullptr, lossType, debugContext);
  prog.add(calcAccuracy(graph, modelOutputs, expected, numCorrect, debugContext));
  return prog;
}

poplar::program::Program calcAccuracy(poplar::Graph &graph, const Tensor &modelOutputs, const Tensor &expected,
                                      const Tensor &numCorrect, const poplar::DebugContext &debugContext) {
  checkLabels("calcAccuracy", modelOutputs, expected);
  checkSingleElement("calcAccuracy", "numCorrect", numCorrect);
  ByteWriter params;
  params.u64(modelOutputs.dim(1));
  poplar::program::Sequence prog;
  poplar::detail::executeKernel(graph, prog,
                                poplar::detail::makeKernel("popnn::CalcAccuracy", {modelOutputs, expected},
                                                           {numCorrect.flatten()}, params.take()),
                                debugContext);
  return prog;
}

Tensor argMax(poplar::Graph &graph, const Tensor &input, poplar::program::Sequence &prog,
              const poplar::DebugContext &debugContext) {
  return argBest(graph, input, true, false, prog, debugContext, "argMax").second;
}

Tensor argMin(poplar::Graph &graph, const Tensor &input, poplar::program::Sequence &prog,
              const poplar::DebugContext &debugContext) {
  return argBest(graph, input, false, false, prog, debugContext, "argMin").second;
}

std::pair<Tensor, Tensor> maxAndArgMax(poplar::Graph &graph, const Tensor &input, poplar::program::Sequence &prog,
                                       const poplar::DebugContext &debugContext) {
  return argBest(graph, input, true, true, prog, debugContext, "maxAndArgMax");
}

std::pair<Tensor, Tensor> minAndArgMin(poplar::Graph &graph, const Tensor &input, poplar::program::Sequence &prog,
                                       const poplar::DebugContext &debugContext) {
  return argBest(graph, input, false, true, prog, debugContext, "minAndArgMin");
}

Tensor topK(poplar::Graph &graph, const Tensor &input, Tensor &indices, unsigned K, bool sort,
            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkRank("topK", "input", input, 2);
  const poplar::Type t = input.elementType();
  if (t != poplar::FLOAT && t != poplar::HALF && t != poplar::INT && t != poplar::UNSIGNED_INT && t != poplar::BOOL)
    throw poplibs_error("topK: input " + describe(input) + " must be FLOAT, HALF, INT, UNSIGNED_INT or BOOL");
  if (K > input.dim(1))
    throw poplibs_error("topK: K (" + std::to_string(K) + ") must not exceed dimension 1 of input " +
                        describe(input));
  const std::vector<std::size_t> shape = {input.dim(0), 1, K};
  const Tensor values = output(graph, t, shape, debugContext, "topK");
  indices = output(graph, poplar::UNSIGNED_INT, shape, debugContext, "topKIndices");
  ByteWriter params;
  params.u64(input.dim(1)).u64(K).boolean(sort);
  poplar::detail::executeKernel(
      graph, prog, poplar::detail::makeKernel("popnn::TopK", {input}, {values, indices}, params.take()),
      debugContext);
  return values;
}

} // namespace popnn
