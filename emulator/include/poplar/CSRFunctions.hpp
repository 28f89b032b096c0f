#pragma once
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {

// The floating-point control bits of the IPU's worker status register: exceptions
// on invalid operations (inv), division by zero (div0) and overflow (oflo),
// stochastic rounding (esr), and NaN on overflow (nanoo).
struct FloatingPointBehaviour {
  bool inv = true;
  bool div0 = true;
  bool oflo = true;
  bool esr = true;
  bool nanoo = true;

  FloatingPointBehaviour() = default;
  FloatingPointBehaviour(bool inv, bool div0, bool oflo, bool esr, bool nanoo);
};

// Set the floating-point behaviour of the programs that follow in `prog`. The
// emulator computes in host IEEE arithmetic whatever is set: no floating-point
// exception stops a run (results are inf or NaN, as on the host), rounding is to
// nearest, and overflow gives inf. They check their arguments and add nothing to `prog`.
void setFloatingPointBehaviour(Graph &graph, program::Sequence &prog, const FloatingPointBehaviour &behaviour,
                               const DebugContext &debugContext = {});
// The same, with the bits in a one-element UNSIGNED_INT tensor of the graph.
void setFloatingPointBehaviour(Graph &graph, program::Sequence &prog, const Tensor &behaviour,
                               const DebugContext &debugContext = {});
void setStochasticRounding(Graph &graph, program::Sequence &prog, bool behaviour,
                           const DebugContext &debugContext = {});

} // namespace poplar
