#pragma once
// The computation poplin's norms and popnn's bn and gn share, built from popops reductions and maps. A Grouping
// says which activations each statistic covers: `grouped` views acts [B][C][...F...]
// as [statistics][elements per statistic], `spread` views a [statistics] tensor so it
// broadcasts against acts.
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplin/Norms.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace poplin {
namespace detail {

struct Grouping {
  enum Kind { PER_CHANNEL, PER_GROUP };
  Kind kind;
  std::size_t numGroups; // PER_GROUP only
  bool strided;          // PER_GROUP only: channel g + k * numGroups is in group g
  std::vector<std::size_t> actsShape;

  static Grouping perChannel(const std::vector<std::size_t> &actsShape);
  // Checks that numGroups divides the channels.
  static Grouping perGroup(const char *fn, const std::vector<std::size_t> &actsShape, std::size_t numGroups,
                           bool strided);
  std::size_t numStatistics() const;
  std::size_t elementsPerStatistic() const;
  poplar::Tensor grouped(const poplar::Tensor &acts) const;
  poplar::Tensor spread(const poplar::Tensor &statistic) const;
};

// A batch spread over replicas: `reduce` sums each replica's share of the statistics'
// means over groupSize replicas. Without reduce (groupSize 1) the batch is this replica's.
struct Distribution {
  DistributedNormReduceCallback reduce;
  unsigned groupSize = 1;

  // normBatchSize is a multiple of acts' batch, and the groups of normBatchSize / B
  // replicas divide the graph's replicas.
  static Distribution of(const char *fn, const poplar::Graph &graph, const poplar::Tensor &acts,
                         DistributedNormReduceCallback reduce, unsigned normBatchSize);
  bool distributed() const { return static_cast<bool>(reduce); }
  // The reduced `shares` (checked: one tensor of the same shape back for each).
  std::vector<poplar::Tensor> sum(poplar::Graph &graph, const std::vector<poplar::Tensor> &shares,
                                  poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                                  const char *fn) const;
};

// Acts have rank 2 or more and are FLOAT or HALF.
void checkActs(const char *fn, const char *role, const poplar::Tensor &acts);
// t is a FLOAT or HALF tensor of exactly this shape.
void checkShape(const char *fn, const char *role, const poplar::Tensor &t, const std::vector<std::size_t> &shape);
// [C] parameters (gamma, beta) of acts.
void checkChannelParam(const char *fn, const char *role, const poplar::Tensor &param, const poplar::Tensor &acts);
// Refuses option keys other than `known` and values other than true/false; returns
// the value of `known` (or `byDefault`).
bool booleanOption(const poplar::OptionFlags &options, const std::string &known, bool byDefault);
// Refuses every option (batch norm has none).
void checkNoOptions(const poplar::OptionFlags &options);

std::pair<poplar::Tensor, poplar::Tensor> statistics(poplar::Graph &graph, const poplar::Tensor &acts, float eps,
                                                     poplar::program::Sequence &prog, bool unbiasedVarEstimate,
                                                     bool stableAlgo, const poplar::Type &partialsType,
                                                     const Grouping &grouping, const poplar::DebugContext &dc,
                                                     const char *fn, const Distribution &distribution = {});
poplar::Tensor whiten(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &mean,
                      const poplar::Tensor &invStdDev, poplar::program::Sequence &prog, const Grouping &grouping,
                      const poplar::DebugContext &dc, const char *fn);
// (whitened * gamma + beta, whitened).
std::pair<poplar::Tensor, poplar::Tensor> normalise(poplar::Graph &graph, const poplar::Tensor &acts,
                                                    const poplar::Tensor &gamma, const poplar::Tensor &beta,
                                                    const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                                                    poplar::program::Sequence &prog, const Grouping &grouping,
                                                    const poplar::DebugContext &dc, const char *fn);
// acts * multiplicand + addend, both [C].
poplar::Tensor scaleAndShift(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &multiplicand,
                             const poplar::Tensor &addend, poplar::program::Sequence &prog,
                             const poplar::DebugContext &dc, const char *fn);
// (gammaDelta, betaDelta): sum over all but the channel dimension of gradsIn * whitened
// and of gradsIn.
std::pair<poplar::Tensor, poplar::Tensor> paramGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                                         const poplar::Tensor &gradsIn,
                                                         poplar::program::Sequence &prog,
                                                         const poplar::Type &partialsType,
                                                         const poplar::DebugContext &dc, const char *fn);
// invStdDev * (g - mean(g) - whitened * mean(g * whitened)), g = gradsIn * gamma (gradsIn
// alone for a gamma that is not valid()), the means over each statistic's elements.
poplar::Tensor gradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
                         const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                         poplar::program::Sequence &prog, const poplar::Type &partialsType,
                         const Grouping &grouping, const poplar::DebugContext &dc, const char *fn,
                         const Distribution &distribution = {});
// gamma += gammaDelta * scale, beta += betaDelta * scale; Scale is float or a Tensor.
template <typename Scale>
void paramUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta, const poplar::Tensor &betaDelta,
                 Scale scale, poplar::Tensor &gamma, poplar::Tensor &beta, poplar::program::Sequence &prog,
                 const poplar::DebugContext &dc, const char *fn);

} // namespace detail
} // namespace poplin
