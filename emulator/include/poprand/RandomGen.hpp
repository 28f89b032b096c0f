#pragma once
// Random tensors and dropout. Every function takes an optional `seed` (rank 1, two
// UNSIGNED_INT elements): with it, the values depend only on (seed, seedModifier,
// element position) and the hardware RNG state is left as it was; without it
// (nullptr) the hardware RNG state is used and advanced. `reference` gives the
// output's shape and tile mapping (the output is a clone of it).
#include <array>
#include <cmath>
#include <cstdint>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poprand {

// Uniform in [minVal, maxVal]; FLOAT, HALF or INT (inclusive of both bounds).
poplar::Tensor uniform(poplar::Graph &graph, const poplar::Tensor *seed, std::uint32_t seedModifier,
                       const poplar::Tensor &reference, const poplar::Type &outType, double minVal, double maxVal,
                       poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

// Log-uniform in [minVal, maxVal] (1 <= minVal < maxVal): base^uniform(log minVal, log maxVal).
poplar::Tensor logUniform(poplar::Graph &graph, const poplar::Tensor *seed, std::uint32_t seedModifier,
                          const poplar::Tensor &reference, const poplar::Type &outType, double minVal,
                          double maxVal, poplar::program::Sequence &prog, double base = 2.718281828459045,
                          const poplar::DebugContext &debugContext = {});

// 1 with probability prob, else 0.
poplar::Tensor bernoulli(poplar::Graph &graph, const poplar::Tensor *seed, std::uint32_t seedModifier,
                         const poplar::Tensor &reference, const poplar::Type &outType, double prob,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

// Normal(mean, stdDev); FLOAT or HALF.
poplar::Tensor normal(poplar::Graph &graph, const poplar::Tensor *seed, std::uint32_t seedModifier,
                      const poplar::Tensor &reference, const poplar::Type &outType, double mean, double stdDev,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

// Normal(mean, stdDev) restricted to mean +- alpha * stdDev; FLOAT or HALF.
poplar::Tensor truncatedNormal(poplar::Graph &graph, const poplar::Tensor *seed, std::uint32_t seedModifier,
                               const poplar::Tensor &reference, const poplar::Type &outType, double mean,
                               double stdDev, double alpha, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {});

// input * mask * scale, the mask 1 with probability keepProbability; the output is a
// clone of `reference` (same shape as input).
poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, const std::uint32_t seedModifier,
                       const poplar::Tensor &input, const poplar::Tensor &reference, double keepProbability,
                       double scale, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});
// As above; the output is a clone of `reference` when outputClonesRef, else of `input`.
poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, const std::uint32_t seedModifier,
                       const poplar::Tensor &input, const poplar::Tensor &reference, double keepProbability,
                       double scale, bool outputClonesRef, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});

// Dropout with one mask element per element of `reference`, broadcast to `input`
// (row-, column- or dimension-wise dropout); the output is a clone of `input`.
poplar::Tensor shapedDropout(poplar::Graph &graph, const poplar::Tensor *seed, const std::uint32_t seedModifier,
                             const poplar::Tensor &input, const poplar::Tensor &reference, double keepProbability,
                             double scale, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {});

// Seeds the hardware RNG of every tile from a 64-bit masterSeed (2 x UNSIGNED_INT).
void setSeed(poplar::Graph &graph, const poplar::Tensor &masterSeed, std::uint32_t seedModifier,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace poprand
