#pragma once
// What the CTC loss and the beam-search decoder share: sums of probabilities in log space,
// an entry's log probabilities from the [maxTime][batch][classes] data, and checks.
#include <poplar/Type.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace popnn {
namespace ctc {
namespace detail {

constexpr double kNegativeInfinity = -std::numeric_limits<double>::infinity();

// log(exp(a) + exp(b)).
inline double logAdd(double a, double b) {
  if (a == kNegativeInfinity) return b;
  if (b == kNegativeInfinity) return a;
  const double high = std::max(a, b);
  return high + std::log1p(std::exp(std::min(a, b) - high));
}

// Entry b's [maxTime][classes] log probabilities: the data, log-softmaxed over the classes
// when they are logits.
inline void entryLogProbs(const std::vector<double> &data, std::size_t maxTime, std::size_t batch,
                          std::size_t classes, std::size_t b, bool logits, std::vector<double> &out) {
  out.resize(maxTime * classes);
  for (std::size_t t = 0; t < maxTime; ++t) {
    const double *in = &data[(t * batch + b) * classes];
    double normaliser = logits ? kNegativeInfinity : 0.0;
    for (std::size_t k = 0; k < classes && logits; ++k) normaliser = logAdd(normaliser, in[k]);
    for (std::size_t k = 0; k < classes; ++k) out[t * classes + k] = in[k] - normaliser;
  }
}

inline void checkFloatType(const char *api, const char *what, const poplar::Type &type) {
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error(std::string(api) + ": " + what + " " + type.toString().str() +
                                 " must be FLOAT or HALF");
}

} // namespace detail
} // namespace ctc
} // namespace popnn
