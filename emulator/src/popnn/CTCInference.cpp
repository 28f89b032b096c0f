// popnn/CTCInference.hpp: prefix beam search per batch entry, in one kernel.
#include <popnn/CTCInference.hpp>

#include <popnn/CTCLoss.hpp>
#include <poplar/exceptions.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "CTCPlanImpl.hpp"
#include "CTCSupport.hpp"
#include "poplar/AccessValues.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popnn {
namespace ctc_infer {

namespace {

using poplar::Tensor;
using poplar::detail::Access;
using ctc::detail::kNegativeInfinity;
using ctc::detail::logAdd;

using Prefix = std::vector<std::size_t>;

// A prefix's probability (log) over the alignments ending in a blank and in its last label.
struct Ending {
  double blank = kNegativeInfinity, label = kNegativeInfinity;
  double total() const { return logAdd(blank, label); }
};

struct Decoding {
  std::size_t maxTime, batch, classes, blank, beamwidth, topPaths;
  bool logits;

  void write(poplar::detail::ByteWriter &w) const {
    w.u64(maxTime).u64(batch).u64(classes).u64(blank).u64(beamwidth).u64(topPaths).boolean(logits);
  }
  static Decoding read(poplar::detail::ByteReader &r) {
    Decoding d;
    d.maxTime = r.u64();
    d.batch = r.u64();
    d.classes = r.u64();
    d.blank = r.u64();
    d.beamwidth = r.u64();
    d.topPaths = r.u64();
    d.logits = r.boolean();
    return d;
  }

  // The beam's prefixes, most probable first (ties: the smaller prefix first).
  static std::vector<std::pair<Prefix, Ending>> ranked(const std::map<Prefix, Ending> &beam) {
    std::vector<std::pair<Prefix, Ending>> order(beam.begin(), beam.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &a, const auto &b) { return a.second.total() > b.second.total(); });
    return order;
  }

  std::vector<std::pair<Prefix, Ending>> search(const std::vector<double> &logProbs, std::size_t steps) const {
    std::map<Prefix, Ending> beam;
    beam[Prefix()].blank = 0.0;
    for (std::size_t t = 0; t < steps; ++t) {
      const double *lp = &logProbs[t * classes];
      std::map<Prefix, Ending> next;
      std::vector<std::pair<Prefix, Ending>> kept = ranked(beam);
      if (kept.size() > beamwidth) kept.resize(beamwidth);
      for (const auto &entry : kept) {
        const Prefix &prefix = entry.first;
        const Ending &p = entry.second;
        Ending &same = next[prefix];
        same.blank = logAdd(same.blank, p.total() + lp[blank]);
        for (std::size_t c = 0; c < classes; ++c) {
          if (c == blank) continue;
          Prefix extended = prefix;
          extended.push_back(c);
          Ending &longer = next[extended];
          if (!prefix.empty() && prefix.back() == c) {
            same.label = logAdd(same.label, p.label + lp[c]);       // the repeat merges
            longer.label = logAdd(longer.label, p.blank + lp[c]); // a blank came between
          } else {
            longer.label = logAdd(longer.label, p.total() + lp[c]);
          }
        }
      }
      beam = std::move(next);
    }
    std::vector<std::pair<Prefix, Ending>> best = ranked(beam);
    if (best.size() > beamwidth) best.resize(beamwidth);
    return best;
  }
};

// Reads: data, dataLengths; writes: labelProbs, labelLengths, decodedLabels.
poplar::detail::KernelCompile decodeCompile(poplar::detail::ByteReader &params) {
  const Decoding d = Decoding::read(params);
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popnn::CTCBeamSearch", ops, 5);
    check.elements(0, check.product({d.maxTime, d.batch, d.classes}))
        .elements(1, d.batch)
        .elements(2, check.product({d.batch, d.topPaths}))
        .elements(3, check.product({d.batch, d.topPaths}))
        .elements(4, check.product({d.batch, d.topPaths, d.maxTime}))
        .require(d.blank < d.classes && d.topPaths <= d.beamwidth, "the blank class and the paths");
    return [=] {
      std::vector<double> data, lengths, logProbs;
      poplar::detail::readValues(ops[0], data);
      poplar::detail::readValues(ops[1], lengths);
      std::vector<double> probs(d.batch * d.topPaths, std::numeric_limits<double>::infinity());
      std::vector<double> labelLengths(d.batch * d.topPaths, 0.0);
      std::vector<double> labels(d.batch * d.topPaths * d.maxTime, double(d.blank));
      for (std::size_t b = 0; b < d.batch; ++b) {
        ctc::detail::entryLogProbs(data, d.maxTime, d.batch, d.classes, b, d.logits, logProbs);
        const std::size_t steps = std::size_t(std::clamp(lengths[b], 0.0, double(d.maxTime)));
        const auto best = d.search(logProbs, steps);
        for (std::size_t path = 0; path < std::min(best.size(), d.topPaths); ++path) {
          const std::size_t at = b * d.topPaths + path;
          probs[at] = -best[path].second.total();
          labelLengths[at] = double(best[path].first.size());
          std::copy(best[path].first.begin(), best[path].first.end(), labels.begin() + std::ptrdiff_t(at * d.maxTime));
        }
      }
      poplar::detail::writeValues(ops[2], probs);
      poplar::detail::writeValues(ops[3], labelLengths);
      poplar::detail::writeValues(ops[4], labels);
    };
  };
}
const poplar::detail::KernelKind decodeKind("popnn::CTCBeamSearch", decodeCompile);

std::tuple<Tensor, Tensor, Tensor> decode(const char *api, poplar::Graph &graph, const Tensor &data,
                                          const Tensor &dataLengths, poplar::program::Sequence &prog,
                                          unsigned blankClass, unsigned beamwidth, unsigned topPaths,
                                          const ctc::Plan &plan, const poplar::DebugContext &debugContext,
                                          const poplar::OptionFlags &options, bool logits) {
  auto fail = [&](const std::string &what) { throw poputil::poplibs_error(std::string(api) + ": " + what); };
  if (options.begin() != options.end()) throw poplar::invalid_option("Unrecognised option '" +
                                                                     options.begin()->first + "'");
  if (data.rank() != 3) fail("the data " + data.getVarStr() + " must be [maxTime][batchSize][numClasses]");
  ctc::detail::checkFloatType(api, "the data's type", data.elementType());
  const ctc::Plan::Impl &planned = plan.getImpl();
  if (data.dim(0) != planned.maxTime || data.dim(1) != planned.batchSize || data.dim(2) != planned.numClasses)
    fail("the data " + data.shapeToString() + " does not fit the plan's maxTime, batchSize and numClasses");
  if (dataLengths.shape() != std::vector<std::size_t>{data.dim(1)} ||
      (dataLengths.elementType() != poplar::UNSIGNED_INT && dataLengths.elementType() != poplar::INT))
    fail("dataLengths " + dataLengths.getVarStr() + " must be UNSIGNED_INT or INT [batchSize]");
  if (blankClass >= data.dim(2))
    fail("blankClass " + std::to_string(blankClass) + " is not one of the " + std::to_string(data.dim(2)) +
         " classes");
  if (topPaths == 0 || topPaths > beamwidth)
    fail("topPaths " + std::to_string(topPaths) + " must be between 1 and beamwidth " + std::to_string(beamwidth));
  const std::size_t batch = data.dim(1), maxTime = data.dim(0);
  Tensor probs = graph.addVariable(data.elementType(), {batch, topPaths}, {debugContext, "labelProbs"});
  Tensor lengths = graph.addVariable(poplar::UNSIGNED_INT, {batch, topPaths}, {debugContext, "labelLengths"});
  Tensor labels = graph.addVariable(poplar::UNSIGNED_INT, {batch, topPaths, maxTime}, {debugContext, "decoded"});
  for (Tensor *t : {&probs, &lengths, &labels}) poputil::mapTensorLinearly(graph, *t);
  const Decoding d{maxTime, batch, data.dim(2), blankClass, beamwidth, topPaths, logits};
  poplar::detail::ByteWriter params;
  d.write(params);
  auto kernel = poplar::detail::makeKernel("popnn::CTCBeamSearch", {data, dataLengths}, {probs, lengths, labels},
                                           params.take());
  kernel.costShape = poplar::detail::CostShape::Reduction;
  kernel.cyclesPerVector = beamwidth; // each step extends every beam
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
  return std::make_tuple(probs, lengths, labels);
}

} // namespace

ctc::Plan plan(const poplar::Graph &, const poplar::Type &inType, unsigned batchSize, unsigned maxTime,
               unsigned numClasses, unsigned beamwidth, const poplar::OptionFlags &options) {
  ctc::detail::checkFloatType("ctc_infer::plan", "inType", inType);
  auto impl = ctc::Plan::Impl::fromOptions(options);
  impl->inType = impl->outType = inType;
  impl->batchSize = batchSize;
  impl->maxTime = maxTime;
  impl->numClasses = numClasses;
  impl->beamwidth = beamwidth;
  return ctc::Plan(std::move(impl));
}

Tensor createDataInput(poplar::Graph &graph, const poplar::Type &type, const std::size_t batchSize,
                       const std::size_t maxTime, const std::size_t numClasses, const ctc::Plan &plan,
                       const poplar::DebugContext &debugContext) {
  return ctc::createDataInput(graph, type, batchSize, maxTime, numClasses, plan, debugContext);
}

std::tuple<Tensor, Tensor, Tensor>
beamSearchDecoderLogProbabilities(poplar::Graph &graph, const Tensor &logProbs, const Tensor &dataLengths,
                                  poplar::program::Sequence &prog, unsigned blankClass, unsigned beamwidth,
                                  unsigned topPaths, const ctc::Plan &plan, const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options) {
  return decode("beamSearchDecoderLogProbabilities", graph, logProbs, dataLengths, prog, blankClass, beamwidth,
                topPaths, plan, debugContext, options, false);
}

std::tuple<Tensor, Tensor, Tensor> beamSearchDecoderLogits(poplar::Graph &graph, const Tensor &logits,
                                                           const Tensor &dataLengths, poplar::program::Sequence &prog,
                                                           unsigned blankClass, unsigned beamwidth,
                                                           unsigned topPaths, const ctc::Plan &plan,
                                                           const poplar::DebugContext &debugContext,
                                                           const poplar::OptionFlags &options) {
  return decode("beamSearchDecoderLogits", graph, logits, dataLengths, prog, blankClass, beamwidth, topPaths, plan,
                debugContext, options, true);
}

} // namespace ctc_infer
} // namespace popnn
