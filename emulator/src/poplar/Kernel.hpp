#pragma once
// The work of a compute set. Each kernel names the tensors it reads and writes
// (so the Engine can check and lay them out) and compiles, once memory is laid
// out, into a function the Engine calls each time the compute set executes.
#include <functional>
#include <string>
#include <vector>

#include <poplar/Tensor.hpp>

#include "Access.hpp"

namespace poplar::detail {

struct Kernel {
  std::string vertexType;
  std::vector<Tensor> reads;
  std::vector<Tensor> writes;
  // Receives the accesses of reads then writes, in order.
  std::function<std::function<void()>(const std::vector<Access> &operands)> compile;
};

} // namespace poplar::detail
