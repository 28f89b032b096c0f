#pragma once
// The work of a compute set. Each kernel names the tensors it reads and writes
// (so the Engine can check and lay them out) and compiles, once memory is laid
// out, into a function the Engine calls each time the compute set executes.
//
// A kernel is fully described by its kind, its operands and its parameters (in
// the portable byte form of Bytes.hpp): a registry maps each kind to a factory
// that makes the compile function from the parameters. Libraries build their
// kernels through that registry too, so a deserialized Executable re-creates
// exactly the kernels the graph-building code made.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include "Access.hpp"
#include "Bytes.hpp"

namespace poplar::detail {

// Receives the accesses of reads then writes, in order.
using KernelCompile = std::function<std::function<void()>(const std::vector<Access> &operands)>;
using KernelFactory = KernelCompile (*)(ByteReader &params);

// How the cost model (CostModel.hpp) counts a kernel's work; the library that makes
// the kernel says which, so Poplar's cost model needs no knowledge of poplibs.
enum class CostShape : std::uint8_t {
  ElementWise, // the output elements on each tile
  Reduction,   // the input elements on each tile
  MatMul,      // the FLOPs of [groups, m, k] x [groups, k, n] outputs on each tile, on the AMP
  Convolution, // multiplyAddsPerOutput multiply-adds for each output element on each tile, on the AMP
};
constexpr unsigned kNumCostShapes = 4;

struct Kernel {
  std::string kind;       // the registry key, e.g. "popops::Reduce"
  std::string vertexType; // the name shown to people (defaults to kind)
  std::vector<Tensor> reads;
  std::vector<Tensor> writes;
  std::vector<std::uint8_t> params;
  // Estimated cycles per vector of elements (CostModel.hpp): the op's cost.
  unsigned cyclesPerVector = 1;
  CostShape costShape = CostShape::ElementWise;
  std::uint64_t multiplyAddsPerOutput = 0; // CostShape::Convolution only
  KernelCompile compile;
};

// Registers a kernel kind at static initialisation: `const KernelKind k("name", factory);`
struct KernelKind {
  KernelKind(const char *kind, KernelFactory factory);
};

// A kernel of a registered kind; the factory reads `params` now, so bad parameters fail
// when the graph is built. Throws poplar_error for an unregistered kind.
Kernel makeKernel(const std::string &kind, std::vector<Tensor> reads, std::vector<Tensor> writes,
                  std::vector<std::uint8_t> params = {}, std::string vertexType = "");

// Adds `kernel` to compute set `cs` of `graph`.
void addKernel(poplar::Graph &graph, poplar::ComputeSet cs, Kernel kernel);
// Adds a compute set named by `debugContext` holding `kernel`, and executes it in `prog`.
void executeKernel(poplar::Graph &graph, poplar::program::Sequence &prog, Kernel kernel,
                   const poplar::DebugContext &debugContext);

} // namespace poplar::detail
