#pragma once
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Program.hpp>

namespace popops {

// Sets elements of `t` to fillValue converted to t's element type. Defined for
// FillValueType double, float, int, unsigned, long long and unsigned long long;
// `t` may be FLOAT, HALF, INT, UNSIGNED_INT, BOOL, CHAR, UNSIGNED_CHAR,
// SIGNED_CHAR, LONGLONG or UNSIGNED_LONGLONG.

// The compute set forms fill only the given flat regions of `t` (those of `tile`).
template <typename FillValueType>
void fill(poplar::Graph &graph, poplar::Tensor t, const std::vector<poplar::Interval> &tileRegions,
          unsigned tile, poplar::ComputeSet fillCS, FillValueType fillValue);
template <typename FillValueType>
void fill(poplar::Graph &graph, const poplar::Tensor &t, unsigned tile, poplar::ComputeSet fillCS,
          FillValueType fillValue);
template <typename FillValueType>
void fill(poplar::Graph &graph, const poplar::Tensor &t,
          const std::vector<std::vector<poplar::Interval>> &mapping, poplar::ComputeSet fillCS,
          FillValueType fillValue);
template <typename FillValueType>
void fill(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog,
          FillValueType fillValue, const poplar::DebugContext &debugContext = {});

} // namespace popops
