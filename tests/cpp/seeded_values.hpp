#pragma once
// For the C++ test programs whose Python tests remake their operands in float64 numpy
// (recurrent_reference.values): value(i, seed, scale), tensors filled with it, and values
// printed exactly enough to compare.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>

inline float value(std::size_t i, double seed, double scale) {
  return float(scale * std::sin(0.37 * double(i) + seed));
}

inline std::vector<float> values(std::size_t n, double seed, double scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value(i, seed, scale);
  return v;
}

inline void fill(poplar::Graph &graph, const poplar::Tensor &t, double seed, double scale) {
  graph.setInitialValue(t, poplar::ArrayRef<float>(values(t.numElements(), seed, scale)));
}

// " v v v ...", each to 9 significant digits.
inline std::string exactly(const std::vector<float> &vs) {
  std::string text;
  for (float v : vs) {
    char number[32];
    std::snprintf(number, sizeof number, " %.9g", double(v));
    text += number;
  }
  return text;
}
