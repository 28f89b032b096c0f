#pragma once
// For the C++ test programs: runs `prog` once on `device` and returns the final values of
// the FLOAT tensor `result`.
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>

inline std::vector<float> runAndRead(poplar::Graph &graph, const poplar::program::Sequence &prog,
                                     const poplar::Device &device, const poplar::Tensor &result) {
  graph.createHostRead("result", result);
  poplar::Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  std::vector<float> values(result.numElements());
  engine.readTensor("result", values.data(), values.data() + values.size());
  return values;
}
