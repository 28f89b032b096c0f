// The shared body of poplin's and popnn's normalisations, composed as poplibs does: one reduceMany
// compute set for the sums, maps for everything element-wise.
#include "poplin/NormStatistics.hpp"

#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Reduce.hpp>
#include <popops/ScaledAdd.hpp>
#include <poplar/exceptions.hpp>
#include <poputil/exceptions.hpp>

#include <functional>
#include <numeric>

#include "poplar/TensorImpl.hpp"
#include "popops/KernelSupport.hpp"

namespace poplin {
namespace detail {

namespace {

using poplar::Tensor;
using poputil::poplibs_error;
namespace pe = popops::expr;

std::size_t product(std::vector<std::size_t>::const_iterator begin, std::vector<std::size_t>::const_iterator end) {
  return std::accumulate(begin, end, std::size_t{1}, std::multiplies<std::size_t>());
}

std::size_t fieldSize(const std::vector<std::size_t> &shape) { return product(shape.begin() + 2, shape.end()); }

// [1][C][1...] (rank of acts) viewing a [C] parameter.
Tensor perChannel(const Tensor &param, std::size_t actsRank) {
  std::vector<std::size_t> shape(actsRank, 1);
  shape[1] = param.numElements();
  return param.reshape(shape);
}

// The wider of the accumulation type asked for and the data's.
poplar::Type accumulationType(const poplar::Type &partialsType, const poplar::Type &dataType) {
  return partialsType == poplar::HALF && dataType == poplar::FLOAT ? poplar::FLOAT : partialsType;
}

std::vector<std::size_t> allButChannels(std::size_t rank) {
  std::vector<std::size_t> dims{0};
  for (std::size_t d = 2; d < rank; ++d) dims.push_back(d);
  return dims;
}

pe::Cast asFloat(const pe::Expr &e) { return pe::Cast(e, poplar::FLOAT); }

} // namespace

Grouping Grouping::perChannel(const std::vector<std::size_t> &actsShape) {
  return {PER_CHANNEL, 0, false, actsShape};
}

Grouping Grouping::perGroup(const char *fn, const std::vector<std::size_t> &actsShape, std::size_t numGroups,
                            bool strided) {
  if (numGroups == 0 || actsShape[1] % numGroups != 0)
    throw poplibs_error(std::string(fn) + ": the " + std::to_string(actsShape[1]) +
                        " channels do not split into " + std::to_string(numGroups) + " groups");
  return {PER_GROUP, numGroups, strided, actsShape};
}

std::size_t Grouping::numStatistics() const {
  return kind == PER_CHANNEL ? actsShape[1] : actsShape[0] * numGroups;
}

std::size_t Grouping::elementsPerStatistic() const {
  return product(actsShape.begin(), actsShape.end()) / numStatistics();
}

Tensor Grouping::grouped(const Tensor &acts) const {
  const std::size_t batch = actsShape[0], channels = actsShape[1], field = fieldSize(actsShape);
  const Tensor flat = acts.reshape({batch, channels, field});
  if (kind == PER_CHANNEL) return flat.dimShuffle({1, 0, 2}).reshape({channels, batch * field});
  const std::size_t perGroup = channels / numGroups;
  if (!strided) return flat.reshape({batch * numGroups, perGroup * field});
  return flat.reshape({batch, perGroup, numGroups, field}).dimShuffle({0, 2, 1, 3})
      .reshape({batch * numGroups, perGroup * field});
}

Tensor Grouping::spread(const Tensor &statistic) const {
  if (kind == PER_CHANNEL) return detail::perChannel(statistic, actsShape.size());
  const std::size_t batch = actsShape[0], channels = actsShape[1], perGroup = channels / numGroups;
  // Channel c of batch element b reads statistic b * numGroups + (its group).
  const Tensor perBatchChannel =
      strided ? statistic.reshape({batch, 1, numGroups}).broadcast(perGroup, 1).reshape({batch, channels})
              : statistic.reshape({batch, numGroups, 1}).broadcast(perGroup, 2).reshape({batch, channels});
  std::vector<std::size_t> shape(actsShape.size(), 1);
  shape[0] = batch;
  shape[1] = channels;
  return perBatchChannel.reshape(shape);
}

Distribution Distribution::of(const char *fn, const poplar::Graph &graph, const Tensor &acts,
                              DistributedNormReduceCallback reduce, unsigned normBatchSize) {
  checkActs(fn, "acts", acts);
  const std::size_t batch = acts.dim(0);
  if (normBatchSize < batch || normBatchSize % batch != 0)
    throw poplibs_error(std::string(fn) + ": the norm batch size " + std::to_string(normBatchSize) +
                        " must be a multiple of the batch of acts " + popops::detail::describe(acts) +
                        " on each replica");
  const unsigned groupSize = static_cast<unsigned>(normBatchSize / batch);
  const unsigned replicas = graph.getReplicationFactor();
  if (replicas % groupSize != 0)
    throw poplibs_error(std::string(fn) + ": a norm batch of " + std::to_string(normBatchSize) + " spans " +
                        std::to_string(groupSize) + " replicas, which do not divide the graph's " +
                        std::to_string(replicas) + " replica(s) into groups");
  // As poplibs: a batch that is all on this replica, or no callback, needs no reduction.
  if (groupSize == 1 || !reduce) return {};
  return {std::move(reduce), groupSize};
}

std::vector<Tensor> Distribution::sum(poplar::Graph &graph, const std::vector<Tensor> &shares,
                                      poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                                      const char *fn) const {
  std::vector<Tensor> sums = reduce(graph, shares, prog, groupSize, {dc, "distributedReduce"}, {});
  if (sums.size() != shares.size())
    throw poplibs_error(std::string(fn) + ": the reduce callback returned " + std::to_string(sums.size()) +
                        " tensor(s) for the " + std::to_string(shares.size()) + " it was given");
  for (std::size_t i = 0; i < sums.size(); ++i)
    if (!sums[i].valid() || sums[i].shape() != shares[i].shape())
      throw poplibs_error(std::string(fn) + ": the reduce callback returned " +
                          (sums[i].valid() ? popops::detail::describe(sums[i]) : std::string("an invalid tensor")) +
                          " for input " + std::to_string(i) + " " + popops::detail::describe(shares[i]) +
                          ": each sum has its input's shape");
  return sums;
}

void checkActs(const char *fn, const char *role, const Tensor &acts) {
  if (acts.rank() < 2)
    throw poplibs_error(std::string(fn) + ": " + role + " " + popops::detail::describe(acts) +
                        " must have rank 2 or more ([B][C][...F...])");
  if (acts.elementType() != poplar::FLOAT && acts.elementType() != poplar::HALF)
    throw poplibs_error(std::string(fn) + ": " + role + " " + popops::detail::describe(acts) +
                        " must be FLOAT or HALF");
  if (acts.numElements() == 0)
    throw poplibs_error(std::string(fn) + ": " + role + " " + popops::detail::describe(acts) + " is empty");
}

void checkShape(const char *fn, const char *role, const Tensor &t, const std::vector<std::size_t> &shape) {
  if (t.shape() != shape || (t.elementType() != poplar::FLOAT && t.elementType() != poplar::HALF))
    throw poplibs_error(std::string(fn) + ": " + role + " " + popops::detail::describe(t) +
                        " must be a FLOAT or HALF tensor of shape " + poplar::detail::shapeString(shape));
}

void checkChannelParam(const char *fn, const char *role, const Tensor &param, const Tensor &acts) {
  checkShape(fn, role, param, {acts.dim(1)});
}

void checkNoOptions(const poplar::OptionFlags &options) {
  if (options.begin() != options.end())
    throw poplar::invalid_option("Unrecognised option '" + options.begin()->first + "'");
}

bool booleanOption(const poplar::OptionFlags &options, const std::string &known, bool byDefault) {
  bool value = byDefault;
  for (const auto &[key, text] : options) {
    if (key != known) throw poplar::invalid_option("Unrecognised option '" + key + "'");
    if (text != "true" && text != "false")
      throw poplar::invalid_option("Invalid value '" + text + "' for option '" + key + "': expected true or false");
    value = text == "true";
  }
  return value;
}

std::pair<Tensor, Tensor> statistics(poplar::Graph &graph, const Tensor &acts, float eps,
                                     poplar::program::Sequence &prog, bool unbiasedVarEstimate, bool stableAlgo,
                                     const poplar::Type &partialsType, const Grouping &grouping,
                                     const poplar::DebugContext &dc, const char *fn,
                                     const Distribution &distribution) {
  // Every replica of a distributed batch sums its own elements, scales them by the whole
  // batch's count and has the callback add up those shares of the means.
  const std::size_t count = grouping.elementsPerStatistic() * distribution.groupSize;
  if (unbiasedVarEstimate && count < 2)
    throw poplibs_error(std::string(fn) + ": an unbiased variance needs 2 or more elements per statistic, " +
                        popops::detail::describe(acts) + " has " + std::to_string(count));
  const poplar::Type accumulation = accumulationType(partialsType, acts.elementType());
  const Tensor grouped = grouping.grouped(acts);
  const float perElement = 1.0f / static_cast<float>(count);
  const float varianceScale = unbiasedVarEstimate ? static_cast<float>(count) / (count - 1) : 1.0f;
  const auto summed = [&](std::vector<Tensor> shares) {
    return distribution.distributed() ? distribution.sum(graph, shares, prog, dc, fn) : shares;
  };
  Tensor mean, variance;
  if (stableAlgo) {
    // The mean first, then the squares of the centred activations: no cancellation.
    const Tensor sum = popops::reduce(graph, grouped, accumulation, {1}, popops::Operation::ADD, prog, {dc, "sum"});
    mean = summed({popops::map(graph, pe::_1 * pe::Const(perElement), {sum}, prog, {dc, "mean"})})[0];
    const Tensor centred = popops::map(graph, pe::Cast(pe::_1, accumulation) - pe::_2,
                                       {grouped, mean.expand({1})}, prog, {dc, "centred"});
    const Tensor squares =
        popops::reduce(graph, centred, accumulation, {1}, popops::Operation::SQUARE_ADD, prog, {dc, "squares"});
    variance = summed({popops::map(graph, pe::_1 * pe::Const(perElement), {squares}, prog, {dc, "power"})})[0];
    if (unbiasedVarEstimate)
      variance = popops::map(graph, pe::_1 * pe::Const(varianceScale), {variance}, prog, {dc, "variance"});
  } else {
    std::vector<Tensor> sums;
    popops::reduceMany(graph,
                       {popops::SingleReduceOp(grouped, {1}, popops::Operation::ADD, accumulation, "sum"),
                        popops::SingleReduceOp(grouped, {1}, popops::Operation::SQUARE_ADD, accumulation, "squares")},
                       sums, prog, {dc, "sums"});
    // (E[x], E[x^2]), then E[x^2] - E[x]^2, scaled to N / (N - 1) for the unbiased estimate.
    const std::vector<Tensor> moments =
        summed(popops::map(graph, {pe::_1 * pe::Const(perElement), pe::_2 * pe::Const(perElement)},
                           {sums[0], sums[1]}, prog, {dc, "meanAndPower"}));
    mean = moments[0];
    variance = popops::map(graph, (pe::_2 - pe::_1 * pe::_1) * pe::Const(varianceScale), {mean, moments[1]}, prog,
                           {dc, "variance"});
  }
  const Tensor invStdDev = popops::varianceToInvStdDev(graph, variance, eps, prog, acts.elementType(), {dc, "invStdDev"});
  return {popops::cast(graph, mean, acts.elementType(), prog, {dc, "mean"}), invStdDev};
}

Tensor whiten(poplar::Graph &graph, const Tensor &acts, const Tensor &mean, const Tensor &invStdDev,
              poplar::program::Sequence &prog, const Grouping &grouping, const poplar::DebugContext &dc,
              const char *fn) {
  checkShape(fn, "mean", mean, {grouping.numStatistics()});
  checkShape(fn, "invStdDev", invStdDev, {grouping.numStatistics()});
  return popops::map(graph, pe::Cast((asFloat(pe::_1) - asFloat(pe::_2)) * asFloat(pe::_3), acts.elementType()),
                     {acts, grouping.spread(mean), grouping.spread(invStdDev)}, prog, {dc, "whiten"});
}

std::pair<Tensor, Tensor> normalise(poplar::Graph &graph, const Tensor &acts, const Tensor &gamma,
                                    const Tensor &beta, const Tensor &mean, const Tensor &invStdDev,
                                    poplar::program::Sequence &prog, const Grouping &grouping,
                                    const poplar::DebugContext &dc, const char *fn) {
  checkChannelParam(fn, "gamma", gamma, acts);
  checkChannelParam(fn, "beta", beta, acts);
  const Tensor whitened = whiten(graph, acts, mean, invStdDev, prog, grouping, dc, fn);
  return {scaleAndShift(graph, whitened, gamma, beta, prog, dc, fn), whitened};
}

Tensor scaleAndShift(poplar::Graph &graph, const Tensor &acts, const Tensor &multiplicand, const Tensor &addend,
                     poplar::program::Sequence &prog, const poplar::DebugContext &dc, const char *fn) {
  checkChannelParam(fn, "multiplicand", multiplicand, acts);
  checkChannelParam(fn, "addend", addend, acts);
  return popops::map(graph, pe::Cast(asFloat(pe::_1) * asFloat(pe::_2) + asFloat(pe::_3), acts.elementType()),
                     {acts, perChannel(multiplicand, acts.rank()), perChannel(addend, acts.rank())}, prog,
                     {dc, "scaleAndShift"});
}

std::pair<Tensor, Tensor> paramGradients(poplar::Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn,
                                         poplar::program::Sequence &prog, const poplar::Type &partialsType,
                                         const poplar::DebugContext &dc, const char *fn) {
  checkActs(fn, "actsWhitened", actsWhitened);
  checkShape(fn, "gradsIn", gradsIn, actsWhitened.shape());
  const poplar::Type accumulation = accumulationType(partialsType, actsWhitened.elementType());
  const Tensor weighted = popops::map(graph, pe::Cast(pe::_1, accumulation) * pe::Cast(pe::_2, accumulation),
                                      {gradsIn, actsWhitened}, prog, {dc, "gradsInTimesWhitened"});
  const auto dims = allButChannels(actsWhitened.rank());
  const poplar::Type out = actsWhitened.elementType();
  std::vector<Tensor> deltas;
  popops::reduceMany(graph,
                     {popops::SingleReduceOp(weighted, dims, popops::Operation::ADD, out, "gammaDelta"),
                      popops::SingleReduceOp(gradsIn, dims, popops::Operation::ADD, out, "betaDelta")},
                     deltas, prog, {dc, "paramGradients"});
  return {deltas[0], deltas[1]};
}

Tensor gradients(poplar::Graph &graph, const Tensor &actsWhitened, const Tensor &gradsIn, const Tensor &invStdDev,
                 const Tensor &gamma, poplar::program::Sequence &prog, const poplar::Type &partialsType,
                 const Grouping &grouping, const poplar::DebugContext &dc, const char *fn,
                 const Distribution &distribution) {
  checkShape(fn, "gradsIn", gradsIn, actsWhitened.shape());
  checkShape(fn, "invStdDev", invStdDev, {grouping.numStatistics()});
  const poplar::Type accumulation = accumulationType(partialsType, actsWhitened.elementType());
  const auto widened = [&](const pe::Expr &e) { return pe::Cast(e, accumulation); };
  // g = gradsIn * gamma (the gradient at the whitened activations) and g * whitened.
  std::vector<Tensor> gradsAtWhitened;
  if (gamma.valid()) {
    checkChannelParam(fn, "gamma", gamma, actsWhitened);
    gradsAtWhitened = popops::map(
        graph, {widened(pe::_1) * widened(pe::_2), widened(pe::_1) * widened(pe::_2) * widened(pe::_3)},
        {gradsIn, perChannel(gamma, actsWhitened.rank()), actsWhitened}, prog, {dc, "gradsAtWhitened"});
  } else {
    gradsAtWhitened = popops::map(graph, {widened(pe::_1), widened(pe::_1) * widened(pe::_2)},
                                  {gradsIn, actsWhitened}, prog, {dc, "gradsAtWhitened"});
  }
  std::vector<Tensor> sums;
  popops::reduceMany(graph,
                     {popops::SingleReduceOp(grouping.grouped(gradsAtWhitened[0]), {1}, popops::Operation::ADD,
                                             accumulation, "sumGrads"),
                      popops::SingleReduceOp(grouping.grouped(gradsAtWhitened[1]), {1}, popops::Operation::ADD,
                                             accumulation, "sumGradsTimesWhitened")},
                     sums, prog, {dc, "gradientSums"});
  // (mean(g), mean(g * whitened)); a distributed batch adds up each replica's share.
  const float perElement = 1.0f / static_cast<float>(grouping.elementsPerStatistic() * distribution.groupSize);
  std::vector<Tensor> means = popops::map(graph, {pe::_1 * pe::Const(perElement), pe::_2 * pe::Const(perElement)},
                                          {sums[0], sums[1]}, prog, {dc, "gradientMeans"});
  if (distribution.distributed()) means = distribution.sum(graph, means, prog, dc, fn);
  return popops::map(graph,
                     pe::Cast(widened(pe::_5) * (pe::_1 - pe::_2 - widened(pe::_3) * pe::_4),
                              actsWhitened.elementType()),
                     {gradsAtWhitened[0], grouping.spread(means[0]), actsWhitened, grouping.spread(means[1]),
                      grouping.spread(invStdDev)},
                     prog, {dc, "gradients"});
}

template <typename Scale>
void paramUpdate(poplar::Graph &graph, const Tensor &gammaDelta, const Tensor &betaDelta, Scale scale,
                 Tensor &gamma, Tensor &beta, poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                 const char *fn) {
  checkShape(fn, "gammaDelta", gammaDelta, gamma.shape());
  checkShape(fn, "betaDelta", betaDelta, beta.shape());
  popops::scaledAddTo(graph, gamma, gammaDelta, scale, prog, {dc, "gamma"});
  popops::scaledAddTo(graph, beta, betaDelta, scale, prog, {dc, "beta"});
}

template void paramUpdate<float>(poplar::Graph &, const Tensor &, const Tensor &, float, Tensor &, Tensor &,
                                 poplar::program::Sequence &, const poplar::DebugContext &, const char *);
template void paramUpdate<const Tensor &>(poplar::Graph &, const Tensor &, const Tensor &, const Tensor &, Tensor &,
                                          Tensor &, poplar::program::Sequence &, const poplar::DebugContext &,
                                          const char *);

} // namespace detail
} // namespace poplin
