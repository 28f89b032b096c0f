// popnn/CTCLoss.hpp: the CTC forward-backward recursions in log space, per batch entry,
// in one kernel.
#include <popnn/CTCLoss.hpp>

#include <poplar/exceptions.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "CTCPlanImpl.hpp"
#include "CTCSupport.hpp"
#include "poplar/AccessValues.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popnn {
namespace ctc {

namespace {

using poplar::Tensor;
using poplar::detail::Access;

using detail::kNegativeInfinity;
using detail::logAdd;

struct CtcProblem {
  std::size_t maxTime, batch, classes, maxLabels, blank;
  bool logits, gradient, softmaxGradient, zeroInfinity;

  void write(poplar::detail::ByteWriter &w) const {
    w.u64(maxTime).u64(batch).u64(classes).u64(maxLabels).u64(blank).boolean(logits).boolean(gradient)
        .boolean(softmaxGradient).boolean(zeroInfinity);
  }
  static CtcProblem read(poplar::detail::ByteReader &r) {
    CtcProblem p;
    p.maxTime = r.u64();
    p.batch = r.u64();
    p.classes = r.u64();
    p.maxLabels = r.u64();
    p.blank = r.u64();
    p.logits = r.boolean();
    p.gradient = r.boolean();
    p.softmaxGradient = r.boolean();
    p.zeroInfinity = r.boolean();
    return p;
  }

  // Entry b's loss, and its gradient into grad (at [t][b][k]); logProbs [t][k] of the entry.
  double entry(std::size_t b, const std::vector<double> &logProbs, const std::vector<double> &labelValues,
               std::size_t steps, std::size_t labelCount, std::vector<double> &grad) const {
    const std::size_t states = 2 * labelCount + 1;
    std::vector<std::size_t> extended(states, blank);
    for (std::size_t i = 0; i < labelCount; ++i) {
      const double label = labelValues[b * maxLabels + i];
      if (label < 0 || label >= double(classes) || label == double(blank)) {
        for (std::size_t t = 0; t < maxTime && gradient; ++t)
          for (std::size_t k = 0; k < classes; ++k) grad[(t * batch + b) * classes + k] = std::nan("");
        return std::nan("");
      }
      extended[2 * i + 1] = std::size_t(label);
    }
    auto lp = [&](std::size_t t, std::size_t s) { return logProbs[t * classes + extended[s]]; };
    // May state s follow state s - 2 (skipping a blank between two different labels)?
    auto skips = [&](std::size_t s) { return s >= 2 && extended[s] != blank && extended[s] != extended[s - 2]; };
    std::vector<double> alpha(steps * states, kNegativeInfinity), beta(steps * states, kNegativeInfinity);
    double logP = labelCount == 0 ? 0.0 : kNegativeInfinity; // no steps: only the empty labelling
    if (steps > 0) {
      alpha[0] = lp(0, 0);
      if (states > 1) alpha[1] = lp(0, 1);
      for (std::size_t t = 1; t < steps; ++t)
        for (std::size_t s = 0; s < states; ++s) {
          double a = alpha[(t - 1) * states + s];
          if (s >= 1) a = logAdd(a, alpha[(t - 1) * states + s - 1]);
          if (skips(s)) a = logAdd(a, alpha[(t - 1) * states + s - 2]);
          alpha[t * states + s] = a + lp(t, s);
        }
      const std::size_t last = steps - 1;
      logP = logAdd(alpha[last * states + states - 1],
                    states > 1 ? alpha[last * states + states - 2] : kNegativeInfinity);
      beta[last * states + states - 1] = lp(last, states - 1);
      if (states > 1) beta[last * states + states - 2] = lp(last, states - 2);
      for (std::size_t t = last; t-- > 0;)
        for (std::size_t s = 0; s < states; ++s) {
          double v = beta[(t + 1) * states + s];
          if (s + 1 < states) v = logAdd(v, beta[(t + 1) * states + s + 1]);
          if (s + 2 < states && skips(s + 2)) v = logAdd(v, beta[(t + 1) * states + s + 2]);
          beta[t * states + s] = v + lp(t, s);
        }
    }
    const bool impossible = logP == kNegativeInfinity;
    if (gradient) {
      for (std::size_t t = 0; t < steps; ++t) {
        double *g = &grad[(t * batch + b) * classes];
        for (std::size_t k = 0; k < classes; ++k) g[k] = softmaxGradient ? std::exp(logProbs[t * classes + k]) : 0.0;
        if (impossible) continue;
        // The probability of being in state s at step t, given the labels, taken from the
        // gradient of its class.
        for (std::size_t s = 0; s < states; ++s)
          g[extended[s]] -= std::exp(alpha[t * states + s] + beta[t * states + s] - lp(t, s) - logP);
      }
      if (impossible && zeroInfinity)
        for (std::size_t t = 0; t < steps; ++t)
          std::fill_n(&grad[(t * batch + b) * classes], classes, 0.0);
    }
    return impossible && zeroInfinity ? 0.0 : -logP;
  }
};

// Reads: data, labels, dataLengths, labelLengths; writes: loss[, gradient].
poplar::detail::KernelCompile ctcLossCompile(poplar::detail::ByteReader &params) {
  const CtcProblem p = CtcProblem::read(params);
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popnn::CTCLoss", ops, p.gradient ? 6 : 5);
    check.elements(0, check.product({p.maxTime, p.batch, p.classes}))
        .elements(1, check.product({p.batch, p.maxLabels}))
        .elements(2, p.batch)
        .elements(3, p.batch)
        .elements(4, p.batch)
        .require(p.blank < p.classes, "the blank class");
    if (p.gradient) check.elements(5, check.product({p.maxTime, p.batch, p.classes}));
    return [=] {
      std::vector<double> data, labels, dataLengths, labelLengths, loss(p.batch);
      poplar::detail::readValues(ops[0], data);
      poplar::detail::readValues(ops[1], labels);
      poplar::detail::readValues(ops[2], dataLengths);
      poplar::detail::readValues(ops[3], labelLengths);
      std::vector<double> grad(p.gradient ? data.size() : 0, 0.0), logProbs(p.maxTime * p.classes);
      for (std::size_t b = 0; b < p.batch; ++b) {
        detail::entryLogProbs(data, p.maxTime, p.batch, p.classes, b, p.logits, logProbs);
        const std::size_t steps = std::size_t(std::clamp(dataLengths[b], 0.0, double(p.maxTime)));
        const std::size_t labelCount = std::size_t(std::clamp(labelLengths[b], 0.0, double(p.maxLabels)));
        loss[b] = p.entry(b, logProbs, labels, steps, labelCount, grad);
      }
      poplar::detail::writeValues(ops[4], loss);
      if (p.gradient) poplar::detail::writeValues(ops[5], grad);
    };
  };
}
const poplar::detail::KernelKind ctcLossKind("popnn::CTCLoss", ctcLossCompile);

void parseBool(const std::string &key, const std::string &value, bool &target) {
  if (value != "true" && value != "false")
    throw poplar::invalid_option("Invalid value '" + value + "' for option '" + key + "': expected true or false");
  target = value == "true";
}

std::pair<Tensor, Tensor> calculateCtc(const char *api, poplar::Graph &graph, const poplar::Type &outType,
                                    const Tensor &data, const Tensor &labels, const Tensor &dataLengths,
                                    const Tensor &labelLengths, poplar::program::Sequence &prog, unsigned blankClass,
                                    const Plan &plan, const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options, bool logits, bool withGradient) {
  CtcProblem p{0, 0, 0, 0, blankClass, logits, withGradient, true, false};
  for (const auto &option : options) {
    if (option.first == "includeSoftmaxGradient") parseBool(option.first, option.second, p.softmaxGradient);
    else if (option.first == "zeroInfinity") parseBool(option.first, option.second, p.zeroInfinity);
    else throw poplar::invalid_option("Unrecognised option '" + option.first + "'");
  }
  p.softmaxGradient = p.softmaxGradient || logits;
  const Plan::Impl &planned = plan.getImpl();
  detail::checkFloatType(api, "outType", outType);
  auto fail = [&](const std::string &what) { throw poputil::poplibs_error(std::string(api) + ": " + what); };
  if (data.rank() != 3 || (data.elementType() != poplar::FLOAT && data.elementType() != poplar::HALF))
    fail("the data " + data.getVarStr() +
         " must be FLOAT or HALF [maxTime][batchSize][numClasses]");
  p.maxTime = data.dim(0);
  p.batch = data.dim(1);
  p.classes = data.dim(2);
  if (p.maxTime != planned.maxTime || p.batch != planned.batchSize || p.classes != planned.numClasses)
    fail("the data " + data.shapeToString() + " does not fit the plan's maxTime, batchSize and numClasses");
  if (labels.rank() != 2 || labels.dim(0) != p.batch || labels.dim(1) > planned.maxLabelLength)
    fail("labels " + labels.getVarStr() +
         " must be [batchSize][at most the plan's maxLabelLength]");
  p.maxLabels = labels.dim(1);
  for (const Tensor *t : {&labels, &dataLengths, &labelLengths})
    if (t->elementType() != poplar::UNSIGNED_INT && t->elementType() != poplar::INT)
      fail(t->getVarStr() + " must be UNSIGNED_INT or INT");
  for (const Tensor *t : {&dataLengths, &labelLengths})
    if (t->shape() != std::vector<std::size_t>{p.batch}) fail(t->getVarStr() + " must be [batchSize]");
  if (blankClass >= p.classes)
    fail("blankClass " + std::to_string(blankClass) + " is not one of the " + std::to_string(p.classes) + " classes");
  Tensor loss = graph.addVariable(outType, {p.batch}, {debugContext, "loss"});
  poputil::mapTensorLinearly(graph, loss);
  std::vector<Tensor> writes = {loss};
  if (withGradient) {
    writes.push_back(graph.addVariable(outType, data.shape(), {debugContext, "gradient"}));
    poputil::mapTensorLinearly(graph, writes.back());
  }
  poplar::detail::ByteWriter params;
  p.write(params);
  auto kernel = poplar::detail::makeKernel("popnn::CTCLoss", {data, labels, dataLengths, labelLengths}, writes,
                                           params.take());
  kernel.costShape = poplar::detail::CostShape::Reduction;
  kernel.cyclesPerVector = unsigned(std::max<std::size_t>(1, 2 * p.maxLabels + 1)); // states per step
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
  return {loss, withGradient ? writes[1] : Tensor()};
}

} // namespace

Plan plan(const poplar::Graph &, const poplar::Type &inType, const poplar::Type &outType, unsigned batchSize,
          unsigned maxTime, unsigned maxLabelLength, unsigned numClasses, const poplar::OptionFlags &options) {
  detail::checkFloatType("ctc::plan", "inType", inType);
  detail::checkFloatType("ctc::plan", "outType", outType);
  auto impl = Plan::Impl::fromOptions(options);
  impl->inType = inType;
  impl->outType = outType;
  impl->batchSize = batchSize;
  impl->maxTime = maxTime;
  impl->maxLabelLength = maxLabelLength;
  impl->numClasses = numClasses;
  return Plan(std::move(impl));
}

Tensor createDataInput(poplar::Graph &graph, const poplar::Type &type, const std::size_t batchSize,
                       const std::size_t maxTime, const std::size_t numClasses, const Plan &,
                       const poplar::DebugContext &debugContext) {
  Tensor t = graph.addVariable(type, {maxTime, batchSize, numClasses}, {debugContext, "data"});
  poputil::mapTensorLinearly(graph, t);
  return t;
}

Tensor createLabelsInput(poplar::Graph &graph, const poplar::Type &type, const std::size_t batchSize,
                         const std::size_t maxLabelLength, const Plan &, const poplar::DebugContext &debugContext) {
  Tensor t = graph.addVariable(type, {batchSize, maxLabelLength}, {debugContext, "labels"});
  poputil::mapTensorLinearly(graph, t);
  return t;
}

std::pair<Tensor, Tensor> calcLossAndGradientLogProbabilities(
    poplar::Graph &graph, const poplar::Type &outType, const Tensor &logProbs, const Tensor &labels,
    const Tensor &dataLengths, const Tensor &labelLengths, poplar::program::Sequence &prog, const unsigned blankClass,
    const Plan &plan, const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return calculateCtc("calcLossAndGradientLogProbabilities", graph, outType, logProbs, labels, dataLengths,
                   labelLengths, prog, blankClass, plan, debugContext, options, false, true);
}

std::pair<Tensor, Tensor> calcLossAndGradientLogits(poplar::Graph &graph, const poplar::Type &outType,
                                                    const Tensor &logits, const Tensor &labels,
                                                    const Tensor &dataLengths, const Tensor &labelLengths,
                                                    poplar::program::Sequence &prog, const unsigned blankClass,
                                                    const Plan &plan, const poplar::DebugContext &debugContext,
                                                    const poplar::OptionFlags &options) {
  return calculateCtc("calcLossAndGradientLogits", graph, outType, logits, labels, dataLengths, labelLengths, prog,
                   blankClass, plan, debugContext, options, true, true);
}

Tensor calcCTCLossLogProbabilities(poplar::Graph &graph, const poplar::Type &outType, const Tensor &logProbs,
                                   const Tensor &labels, const Tensor &dataLengths, const Tensor &labelLengths,
                                   poplar::program::Sequence &prog, const unsigned blankClass, const Plan &plan,
                                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return calculateCtc("calcCTCLossLogProbabilities", graph, outType, logProbs, labels, dataLengths, labelLengths, prog,
                   blankClass, plan, debugContext, options, false, false)
      .first;
}

Tensor calcCTCLossLogits(poplar::Graph &graph, const poplar::Type &outType, const Tensor &logits,
                         const Tensor &labels, const Tensor &dataLengths, const Tensor &labelLengths,
                         poplar::program::Sequence &prog, const unsigned blankClass, const Plan &plan,
                         const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return calculateCtc("calcCTCLossLogits", graph, outType, logits, labels, dataLengths, labelLengths, prog, blankClass,
                   plan, debugContext, options, true, false)
      .first;
}

} // namespace ctc
} // namespace popnn
