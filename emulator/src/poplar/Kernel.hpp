#pragma once
// The work of a compute set. Each kernel names the tensors it reads and writes
// (so the Engine can check and lay them out) and compiles, once memory is laid
// out, into a function the Engine calls each time the compute set executes.
#include <functional>
#include <string>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include "Access.hpp"

namespace poplar::detail {

struct Kernel {
  std::string vertexType;
  std::vector<Tensor> reads;
  std::vector<Tensor> writes;
  // Estimated cycles per vector of elements (CostModel.hpp): the op's cost.
  unsigned cyclesPerVector = 1;
  // Receives the accesses of reads then writes, in order.
  std::function<std::function<void()>(const std::vector<Access> &operands)> compile;
};

// Adds `kernel` to compute set `cs` of `graph`.
void addKernel(poplar::Graph &graph, poplar::ComputeSet cs, Kernel kernel);
// Adds a compute set named by `debugContext` holding `kernel`, and executes it in `prog`.
void executeKernel(poplar::Graph &graph, poplar::program::Sequence &prog, Kernel kernel,
                   const poplar::DebugContext &debugContext);

} // namespace poplar::detail
