// poprand on the emulator. Element k of an output (flat position in `reference`) takes
// its random words from Philox4x32-10 block (key, {k low, k high, stream, attempt}):
// - with a seed tensor: key = (seed[0], seed[1]), stream = seedModifier;
// - without: key and stream are a hash of the hardware seeds (getHwSeeds), which the
//   kernel then replaces with fresh words from the same generator (setHwSeeds), so the
//   next call draws different values.
// Values are pure functions of (key, stream, position): the same on every run and for
// any thread count or tile mapping.
#include <poprand/RandomGen.hpp>
#include <poprand/codelets.hpp>

#include <poplar/RandomSeed.hpp>
#include <poputil/exceptions.hpp>

#include <cmath>
#include <limits>
#include <memory>

#include "Philox.hpp"
#include "poplar/AccessValues.hpp"
#include "poplar/CostModel.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"
#include "poplar/ThreadPool.hpp"
#include "popops/KernelSupport.hpp"

namespace poprand {

namespace {

using detail::PhiloxBlock;
using poplar::Tensor;
using poplar::detail::Access;
using poplar::detail::ByteReader;
using poplar::detail::ByteWriter;
using poputil::poplibs_error;

enum class Distribution { Uniform, UniformInt, LogUniform, Bernoulli, Normal, TruncatedNormal, Dropout };

// Attempt numbers at or above these are never used for elements: they name the streams
// that refill and seed the hardware state.
constexpr std::uint32_t kHwAdvanceStream = 0xFFFFFFFFu;
constexpr std::uint32_t kSetSeedStream = 0xFFFFFFFEu;
// truncatedNormal draws 4 candidates per attempt; past this many attempts (only for a
// tiny alpha, where the truncated normal is nearly flat) it takes a uniform value.
constexpr std::uint32_t kTruncatedNormalAttempts = 64;

// Elements per block of work on the thread pool (each element is a pure function of its
// position, so the blocks change no value).
constexpr std::size_t kElementsPerBlock = 4096;

constexpr double kTwoPow32 = 4294967296.0;
constexpr double kTwoPi = 6.283185307179586;

struct Stream {
  std::uint32_t key0, key1, stream;
  PhiloxBlock block(std::uint64_t position, std::uint32_t attempt) const {
    return detail::philox4x32(key0, key1,
                              {std::uint32_t(position), std::uint32_t(position >> 32), stream, attempt});
  }
};

// In [0, 1) with 32 random bits; in (0, 1] for the log of Box-Muller.
double unitOpen1(std::uint32_t w) { return w / kTwoPow32; }
double unitOpen0(std::uint32_t w) { return (w + 1.0) / kTwoPow32; }

// Two standard normals from two words (Box-Muller).
std::array<double, 2> boxMuller(std::uint32_t w0, std::uint32_t w1) {
  const double r = std::sqrt(-2.0 * std::log(unitOpen0(w0)));
  const double angle = kTwoPi * unitOpen1(w1);
  return {r * std::cos(angle), r * std::sin(angle)};
}

struct Params {
  Distribution distribution;
  double a = 0, b = 0, c = 0; // per distribution: (min, max, base), (mean, stdDev, alpha), (prob), (keep, scale)
  // Dropout: output (input) shape and mask (reference) shape, right-aligned.
  std::vector<std::size_t> outShape, maskShape;
};

double sample(const Params &p, const Stream &s, std::uint64_t position) {
  const PhiloxBlock w = s.block(position, 0);
  switch (p.distribution) {
  case Distribution::Uniform: return p.a + (p.b - p.a) * unitOpen1(w[0]);
  case Distribution::UniformInt: {
    const std::uint64_t range = static_cast<std::uint64_t>(p.b - p.a) + 1; // at most 2^32
    return p.a + static_cast<double>((std::uint64_t(w[0]) * range) >> 32);
  }
  case Distribution::LogUniform: {
    const double lo = std::log(p.a) / std::log(p.c), hi = std::log(p.b) / std::log(p.c);
    return std::min(p.b, std::max(p.a, std::pow(p.c, lo + (hi - lo) * unitOpen1(w[0]))));
  }
  case Distribution::Bernoulli: return unitOpen1(w[0]) < p.a ? 1.0 : 0.0;
  case Distribution::Normal: return p.a + p.b * boxMuller(w[0], w[1])[0];
  case Distribution::TruncatedNormal:
    for (std::uint32_t attempt = 0; attempt < kTruncatedNormalAttempts; ++attempt) {
      const PhiloxBlock v = attempt ? s.block(position, attempt) : w;
      for (int pair = 0; pair < 2; ++pair)
        for (double z : boxMuller(v[2 * pair], v[2 * pair + 1]))
          if (std::fabs(z) <= p.c) return p.a + p.b * z;
    }
    return p.a + p.b * p.c * (2 * unitOpen1(w[0]) - 1);
  case Distribution::Dropout: return unitOpen1(w[0]) < p.a ? p.b : 0.0;
  }
  return 0;
}

// The mask position (flat index in maskShape) of output element `index`.
std::uint64_t maskPosition(const Params &p, std::uint64_t index) {
  std::uint64_t position = 0, stride = 1;
  const std::size_t offset = p.outShape.size() - p.maskShape.size();
  for (std::size_t d = p.outShape.size(); d-- > 0;) {
    const std::uint64_t coordinate = index % p.outShape[d];
    index /= p.outShape[d];
    if (d < offset) continue;
    const std::size_t m = p.maskShape[d - offset];
    if (m != 1) position += coordinate * stride;
    stride *= m;
  }
  return position;
}

// Folds the hardware seeds into a generator key and stream (SplitMix64 steps).
Stream hashHwSeeds(const std::vector<double> &words) {
  std::uint64_t h = 0x243F6A8885A308D3ull;
  for (double w : words) {
    h ^= static_cast<std::uint64_t>(w);
    h += 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
  }
  return {std::uint32_t(h), std::uint32_t(h >> 32), std::uint32_t(h >> 16)};
}

// Word j of a state refilled from `s` on the given stream.
void fillWords(const Stream &s, std::uint32_t streamAttempt, std::vector<double> &words) {
  for (std::size_t j = 0; j < words.size(); j += 4) {
    const PhiloxBlock b = s.block(j / 4, streamAttempt);
    for (std::size_t i = 0; i < 4 && j + i < words.size(); ++i) words[j + i] = b[i];
  }
}

// Reads: seed (2 words) or the hardware seeds, then the dropout input if any;
// writes: the output, then the hardware seeds when they were read.
poplar::detail::KernelCompile randomCompile(ByteReader &r) {
  Params p;
  const std::uint64_t distribution = r.u64();
  if (distribution > static_cast<unsigned>(Distribution::Dropout)) r.corrupt();
  p.distribution = static_cast<Distribution>(distribution);
  p.a = r.f64();
  p.b = r.f64();
  p.c = r.f64();
  p.outShape = r.sizes();
  p.maskShape = r.sizes();
  const bool seeded = r.boolean();
  const std::uint32_t seedModifier = static_cast<std::uint32_t>(r.u64());
  const bool dropout = p.distribution == Distribution::Dropout;
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    const poplar::detail::KernelOperands checked("poprand::Random", ops, 2 + (dropout ? 1 : 0) + (seeded ? 0 : 1));
    const std::size_t out = dropout ? 2 : 1;
    checked.type(0, poplar::UNSIGNED_INT).elements(out, checked.product(p.outShape))
        .require(p.maskShape.size() <= p.outShape.size(), "the mask has more dimensions than the output");
    if (seeded) checked.elements(0, 2);
    else checked.elements(out + 1, ops[0].numElements);
    if (dropout) checked.elements(1, ops[out].numElements);
    // Kept from run to run: a new buffer of a large output's size costs its page faults each run.
    const auto buffers = std::make_shared<std::pair<std::vector<double>, std::vector<double>>>();
    return [=] {
      std::vector<double> state, &input = buffers->first, &out = buffers->second;
      poplar::detail::readValues(ops[0], state);
      const Stream s = seeded ? Stream{std::uint32_t(state[0]), std::uint32_t(state[1]), seedModifier}
                              : hashHwSeeds(state);
      const Access &output = ops[dropout ? 2 : 1];
      out.resize(output.numElements);
      if (dropout) poplar::detail::readValues(ops[1], input);
      const bool integral = output.type == poplar::INT;
      poplar::detail::parallelBlocks(out.size(), kElementsPerBlock, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t k = begin; k < end; ++k) {
          out[k] = dropout ? input[k] * sample(p, s, maskPosition(p, k)) : sample(p, s, k);
          if (integral) out[k] = std::nearbyint(out[k]);
        }
      });
      poplar::detail::writeValues(output, out);
      if (!seeded) {
        fillWords(s, kHwAdvanceStream, state);
        poplar::detail::writeValues(ops[dropout ? 3 : 2], state);
      }
    };
  };
}
const poplar::detail::KernelKind randomKind("poprand::Random", randomCompile);

// Reads masterSeed; writes the new hardware seeds.
poplar::detail::KernelCompile setSeedCompile(ByteReader &r) {
  const std::uint32_t seedModifier = static_cast<std::uint32_t>(r.u64());
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands("poprand::SetSeed", ops, 2).type(0, poplar::UNSIGNED_INT).elements(0, 2);
    return [=] {
      std::vector<double> master, words(ops[1].numElements);
      poplar::detail::readValues(ops[0], master);
      fillWords(Stream{std::uint32_t(master[0]), std::uint32_t(master[1]), seedModifier}, kSetSeedStream, words);
      poplar::detail::writeValues(ops[1], words);
    };
  };
}
const poplar::detail::KernelKind setSeedKind("poprand::SetSeed", setSeedCompile);

void checkSeed(const char *fn, const Tensor &seed, const char *what = "seed") {
  if (seed.rank() != 1 || seed.numElements() != 2 || seed.elementType() != poplar::UNSIGNED_INT)
    throw poplibs_error(std::string(fn) + ": " + what + " " + popops::detail::describe(seed) +
                        " must be a rank-1 UNSIGNED_INT tensor of 2 elements");
}

void checkOutType(const char *fn, const poplar::Type &type, bool allowInt) {
  if (type != poplar::FLOAT && type != poplar::HALF && !(allowInt && type == poplar::INT))
    throw poplibs_error(std::string(fn) + ": output type " + type.toString().str() + " is not supported (" +
                        (allowInt ? "FLOAT, HALF or INT" : "FLOAT or HALF") + ")");
}

// Adds the kernel that fills `out` (from `input` for dropout) and, without a seed,
// the hardware seed copies around it.
void generate(poplar::Graph &graph, const Tensor *seed, std::uint32_t seedModifier, const Params &p,
              const Tensor *input, const Tensor &out, poplar::program::Sequence &prog,
              const poplar::DebugContext &dc, const char *fn) {
  if (seed) checkSeed(fn, *seed);
  ByteWriter params;
  params.u64(static_cast<std::uint64_t>(p.distribution)).f64(p.a).f64(p.b).f64(p.c);
  params.sizes(p.outShape).sizes(p.maskShape).boolean(seed != nullptr).u64(seed ? seedModifier : 0);
  Tensor state = seed ? *seed : poplar::getHwSeeds(graph, prog, dc);
  std::vector<Tensor> reads = {state.flatten()}, writes;
  if (input) reads.push_back(*input);
  writes.push_back(out);
  if (!seed) writes.push_back(state.flatten());
  auto kernel = poplar::detail::makeKernel("poprand::Random", reads, writes, params.take(),
                                           std::string("poprand::") + fn);
  kernel.cyclesPerVector = poplar::detail::kTranscendentalCycles;
  poplar::detail::executeKernel(graph, prog, std::move(kernel), dc);
  if (!seed) poplar::setHwSeeds(graph, state, prog, dc);
}

Tensor fromReference(poplar::Graph &graph, const Tensor *seed, std::uint32_t seedModifier,
                     const Tensor &reference, const poplar::Type &outType, Params p,
                     poplar::program::Sequence &prog, const poplar::DebugContext &dc, const char *fn) {
  const Tensor out = graph.clone(outType, reference, poplar::DebugContext(dc, fn));
  p.outShape = p.maskShape = reference.shape();
  generate(graph, seed, seedModifier, p, nullptr, out, prog, dc, fn);
  return out;
}

void checkProbability(const char *fn, const char *what, double value) {
  if (!(value >= 0.0 && value <= 1.0))
    throw poplibs_error(std::string(fn) + ": " + what + " (" + std::to_string(value) + ") must be in [0, 1]");
}

Tensor dropoutWithMask(poplar::Graph &graph, const Tensor *seed, std::uint32_t seedModifier, const Tensor &input,
                       const Tensor &maskShape, const Tensor &like, double keepProbability, double scale,
                       poplar::program::Sequence &prog, const poplar::DebugContext &dc, const char *fn) {
  checkOutType(fn, input.elementType(), false);
  checkProbability(fn, "keepProbability", keepProbability);
  Params p;
  p.distribution = Distribution::Dropout;
  p.a = keepProbability;
  p.b = scale;
  p.outShape = input.shape();
  p.maskShape = maskShape.shape();
  const Tensor out = graph.clone(input.elementType(), like, poplar::DebugContext(dc, fn));
  generate(graph, seed, seedModifier, p, &input, out, prog, dc, fn);
  return out;
}

} // namespace

void addCodelets(poplar::Graph &) {}

Tensor uniform(poplar::Graph &graph, const Tensor *seed, std::uint32_t seedModifier, const Tensor &reference,
               const poplar::Type &outType, double minVal, double maxVal, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext) {
  checkOutType("uniform", outType, true);
  if (!(minVal <= maxVal))
    throw poplibs_error("uniform: minVal (" + std::to_string(minVal) + ") must not exceed maxVal (" +
                        std::to_string(maxVal) + ")");
  Params p;
  p.distribution = Distribution::Uniform;
  p.a = minVal;
  p.b = maxVal;
  if (outType == poplar::INT) {
    const double lowest = std::numeric_limits<std::int32_t>::lowest(), highest = std::numeric_limits<std::int32_t>::max();
    if (minVal != std::floor(minVal) || maxVal != std::floor(maxVal) || minVal < lowest || maxVal > highest)
      throw poplibs_error("uniform: for INT output, minVal (" + std::to_string(minVal) + ") and maxVal (" +
                          std::to_string(maxVal) + ") must be integers in the int range");
    p.distribution = Distribution::UniformInt;
  }
  return fromReference(graph, seed, seedModifier, reference, outType, p, prog, debugContext, "uniform");
}

Tensor logUniform(poplar::Graph &graph, const Tensor *seed, std::uint32_t seedModifier, const Tensor &reference,
                  const poplar::Type &outType, double minVal, double maxVal, poplar::program::Sequence &prog,
                  double base, const poplar::DebugContext &debugContext) {
  checkOutType("logUniform", outType, true);
  if (minVal < 1.0 || !(maxVal > minVal))
    throw poplibs_error("logUniform: the range [" + std::to_string(minVal) + ", " + std::to_string(maxVal) +
                        "] must have 1 <= minVal < maxVal");
  if (!(base > 0.0) || base == 1.0)
    throw poplibs_error("logUniform: base (" + std::to_string(base) + ") must be positive and not 1");
  constexpr double kLargestHalf = 65504.0;
  if (outType == poplar::HALF && maxVal > kLargestHalf)
    throw poplibs_error("logUniform: maxVal (" + std::to_string(maxVal) + ") is past the largest HALF value (" +
                        std::to_string(kLargestHalf) + ")");
  Params p;
  p.distribution = Distribution::LogUniform;
  p.a = minVal;
  p.b = maxVal;
  p.c = base;
  if (outType == poplar::INT) {
    // Squeezed to the integers inside the range; the kernel rounds INT values to nearest.
    p.a = std::ceil(minVal);
    p.b = std::floor(maxVal);
    if (p.b > std::numeric_limits<std::int32_t>::max() || !(p.b > p.a))
      throw poplibs_error("logUniform: the range [" + std::to_string(minVal) + ", " + std::to_string(maxVal) +
                          "] holds too few INT values");
  }
  return fromReference(graph, seed, seedModifier, reference, outType, p, prog, debugContext, "logUniform");
}

Tensor bernoulli(poplar::Graph &graph, const Tensor *seed, std::uint32_t seedModifier, const Tensor &reference,
                 const poplar::Type &outType, double prob, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext) {
  checkOutType("bernoulli", outType, true);
  checkProbability("bernoulli", "prob", prob);
  Params p;
  p.distribution = Distribution::Bernoulli;
  p.a = prob;
  return fromReference(graph, seed, seedModifier, reference, outType, p, prog, debugContext, "bernoulli");
}

Tensor normal(poplar::Graph &graph, const Tensor *seed, std::uint32_t seedModifier, const Tensor &reference,
              const poplar::Type &outType, double mean, double stdDev, poplar::program::Sequence &prog,
              const poplar::DebugContext &debugContext) {
  checkOutType("normal", outType, false);
  Params p;
  p.distribution = Distribution::Normal;
  p.a = mean;
  p.b = stdDev;
  return fromReference(graph, seed, seedModifier, reference, outType, p, prog, debugContext, "normal");
}

Tensor truncatedNormal(poplar::Graph &graph, const Tensor *seed, std::uint32_t seedModifier,
                       const Tensor &reference, const poplar::Type &outType, double mean, double stdDev,
                       double alpha, poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkOutType("truncatedNormal", outType, false);
  if (!(alpha > 0.0))
    throw poplibs_error("truncatedNormal: alpha (" + std::to_string(alpha) + ") must be positive");
  Params p;
  p.distribution = Distribution::TruncatedNormal;
  p.a = mean;
  p.b = stdDev;
  p.c = alpha;
  return fromReference(graph, seed, seedModifier, reference, outType, p, prog, debugContext, "truncatedNormal");
}

Tensor dropout(poplar::Graph &graph, const Tensor *seed, const std::uint32_t seedModifier, const Tensor &input,
               const Tensor &reference, double keepProbability, double scale, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext) {
  return dropout(graph, seed, seedModifier, input, reference, keepProbability, scale, true, prog, debugContext);
}

Tensor dropout(poplar::Graph &graph, const Tensor *seed, const std::uint32_t seedModifier, const Tensor &input,
               const Tensor &reference, double keepProbability, double scale, bool outputClonesRef,
               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  if (input.shape() != reference.shape())
    throw poplibs_error("dropout: input " + popops::detail::describe(input) + " and reference " +
                        popops::detail::describe(reference) + " must have the same shape");
  return dropoutWithMask(graph, seed, seedModifier, input, reference, outputClonesRef ? reference : input,
                         keepProbability, scale, prog, debugContext, "dropout");
}

Tensor shapedDropout(poplar::Graph &graph, const Tensor *seed, const std::uint32_t seedModifier,
                     const Tensor &input, const Tensor &reference, double keepProbability, double scale,
                     poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  bool broadcasts = reference.rank() <= input.rank();
  for (std::size_t d = 0; broadcasts && d < reference.rank(); ++d) {
    const std::size_t m = reference.dim(reference.rank() - 1 - d), n = input.dim(input.rank() - 1 - d);
    broadcasts = m == n || m == 1;
  }
  if (!broadcasts)
    throw poplibs_error("shapedDropout: reference " + popops::detail::describe(reference) +
                        " must broadcast to input " + popops::detail::describe(input));
  return dropoutWithMask(graph, seed, seedModifier, input, reference, input, keepProbability, scale, prog,
                         debugContext, "shapedDropout");
}

void setSeed(poplar::Graph &graph, const Tensor &masterSeed, std::uint32_t seedModifier,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkSeed("setSeed", masterSeed, "masterSeed");
  const poplar::Target &target = graph.getTarget();
  const Tensor seeds = graph.addVariable(poplar::UNSIGNED_INT,
                                         {target.getNumTiles(), target.getNumWorkerContexts(), 4},
                                         poplar::DebugContext(debugContext, "setSeed"));
  for (unsigned tile = 0; tile < target.getNumTiles(); ++tile) graph.setTileMapping(seeds[tile], tile);
  ByteWriter params;
  params.u64(seedModifier);
  poplar::detail::executeKernel(graph, prog,
                                poplar::detail::makeKernel("poprand::SetSeed", {masterSeed}, {seeds.flatten()},
                                                           params.take()),
                                debugContext);
  poplar::setHwSeeds(graph, seeds, prog, debugContext);
}

} // namespace poprand
