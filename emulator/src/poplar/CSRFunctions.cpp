#include <poplar/CSRFunctions.hpp>
#include <poplar/exceptions.hpp>

#include "GraphState.hpp"
#include "TensorImpl.hpp"

namespace poplar {

FloatingPointBehaviour::FloatingPointBehaviour(bool inv, bool div0, bool oflo, bool esr, bool nanoo)
    : inv(inv), div0(div0), oflo(oflo), esr(esr), nanoo(nanoo) {}

// The emulator's arithmetic does not change with these settings (CSRFunctions.hpp),
// so each only checks what it is given.
void setFloatingPointBehaviour(Graph &, program::Sequence &, const FloatingPointBehaviour &, const DebugContext &) {}

void setFloatingPointBehaviour(Graph &graph, program::Sequence &, const Tensor &behaviour, const DebugContext &) {
  const detail::TensorImpl &impl = detail::tensorImpl(behaviour);
  if (impl.vars != detail::graphState(graph).vars)
    throw poplar_error("setFloatingPointBehaviour: tensor " + impl.describe() + " belongs to a different graph");
  if (impl.type != UNSIGNED_INT || impl.numElements() != 1)
    throw poplar_error("setFloatingPointBehaviour: the behaviour must be one UNSIGNED_INT element, but tensor " +
                       impl.describe() + " has " + std::to_string(impl.numElements()) + " elements");
}

void setStochasticRounding(Graph &, program::Sequence &, bool, const DebugContext &) {}

} // namespace poplar
