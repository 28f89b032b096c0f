// Histograms: one kernel counts each element into the bin its value falls in.
#include <popops/GatherStatistics.hpp>

#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

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

// Reads: input, levels; writes: output (levels + 1 counts).
KernelCompile histogramCompile(ByteReader &params) {
  const bool absolute = params.boolean();
  const bool update = params.boolean();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands("popops::Histogram", ops, 3).elements(2, ops[1].numElements + 1);
    return [=] {
      std::vector<double> input, levels, counts;
      poplar::detail::readValues(ops[0], input);
      poplar::detail::readValues(ops[1], levels);
      if (update) poplar::detail::readValues(ops[2], counts);
      else counts.assign(levels.size() + 1, 0.0);
      for (double x : input) {
        const double v = absolute ? std::fabs(x) : x;
        // The bin is the number of levels at or below the value.
        counts[std::size_t(std::upper_bound(levels.begin(), levels.end(), v) - levels.begin())] += 1;
      }
      poplar::detail::writeValues(ops[2], counts);
    };
  };
}
const poplar::detail::KernelKind histogramKind("popops::Histogram", histogramCompile);

void checkHistogram(const Tensor &input, const Tensor &levels, const Tensor &output) {
  for (const auto &named : {std::make_pair("input ", &input), std::make_pair("levels ", &levels)})
    if (named.second->elementType() != poplar::FLOAT && named.second->elementType() != poplar::HALF)
      throw poputil::poplibs_error(std::string("histogram: ") + named.first + detail::describe(*named.second) +
                                   " must be FLOAT or HALF");
  if (input.elementType() != levels.elementType())
    throw poputil::poplibs_error("histogram: input " + detail::describe(input) + " and levels " +
                                 detail::describe(levels) + " must have the same type");
  if (output.elementType() != poplar::FLOAT && output.elementType() != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error("histogram: output " + detail::describe(output) + " must be FLOAT or UNSIGNED_INT");
  if (output.numElements() != levels.numElements() + 1)
    throw poputil::poplibs_error("histogram: output " + detail::describe(output) +
                                 " must have one element more than levels " + detail::describe(levels));
}

// Whether the options ask for float counts (useFloatArithmetic).
bool floatCounts(const poplar::OptionFlags &options) {
  bool useFloat = false;
  detail::parseOptions(options, {{"useFloatArithmetic", detail::boolOption("useFloatArithmetic", useFloat)}});
  return useFloat;
}

} // namespace

void histogram(poplar::Graph &graph, const Tensor &input, Tensor &output, bool updateOutput, const Tensor &levels,
               bool absoluteOfInput, poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
               const poplar::OptionFlags &options) {
  floatCounts(options);
  checkHistogram(input, levels, output);
  ByteWriter params;
  params.boolean(absoluteOfInput).boolean(updateOutput);
  auto kernel = poplar::detail::makeKernel("popops::Histogram", {input, levels}, {output}, params.take());
  kernel.costShape = poplar::detail::CostShape::Reduction;
  // A compare per level for each element, as poplibs' vertices do.
  kernel.cyclesPerVector = unsigned(std::max<std::size_t>(1, levels.numElements()));
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
}

Tensor histogram(poplar::Graph &graph, const Tensor &input, const Tensor &levels, bool absoluteOfInput,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                 const poplar::OptionFlags &options) {
  Tensor output = detail::createLinearOutput(graph, floatCounts(options) ? poplar::FLOAT : poplar::UNSIGNED_INT,
                                             {levels.numElements() + 1}, {debugContext, "histogram"});
  histogram(graph, input, output, false, levels, absoluteOfInput, prog, debugContext);
  return output;
}

} // namespace popops
