#pragma once
// For the C++ test programs that print "name: v v ..." lines: tensors filled from host
// values, a call whose error is printed as "name: <what it said>", and the results run and
// printed a line each.
#include <iostream>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poputil/TileMapping.hpp>

#include "run_and_read.hpp"

// A tensor of `type` (FLOAT, or an integer type the values convert to) mapped over the tiles.
inline poplar::Tensor filledTensor(poplar::Graph &graph, poplar::Type type, std::vector<std::size_t> shape,
                                   const std::vector<float> &values, const std::string &name) {
  poplar::Tensor t = graph.addVariable(type, shape, name);
  poputil::mapTensorLinearly(graph, t);
  if (type == poplar::FLOAT) {
    graph.setInitialValue(t, poplar::ArrayRef<float>(values));
  } else if (type == poplar::UNSIGNED_INT) {
    const std::vector<unsigned> naturals(values.begin(), values.end());
    graph.setInitialValue(t, poplar::ArrayRef<unsigned>(naturals));
  } else {
    const std::vector<int> ints(values.begin(), values.end());
    graph.setInitialValue(t, poplar::ArrayRef<int>(ints));
  }
  return t;
}

// Runs call, printing "name: <what>" for the std::exception it throws.
template <class Call> void reportError(const std::string &name, Call call) {
  try {
    call();
  } catch (const std::exception &error) {
    std::cout << name << ": " << error.what() << '\n';
  }
}

// Runs prog once and prints each FLOAT result as "name: v v ...".
inline void printResults(poplar::Graph &graph, const poplar::program::Sequence &prog, const poplar::Device &device,
                         const std::vector<std::string> &names, const std::vector<poplar::Tensor> &results) {
  std::vector<poplar::Tensor> flat;
  for (const poplar::Tensor &t : results) flat.push_back(t.flatten());
  const std::vector<float> values = runAndRead(graph, prog, device, poplar::concat(flat));
  std::size_t at = 0;
  for (std::size_t r = 0; r < results.size(); ++r) {
    std::cout << names[r] << ":";
    for (std::size_t i = 0; i < results[r].numElements(); ++i) std::cout << ' ' << values[at++];
    std::cout << '\n';
  }
}
