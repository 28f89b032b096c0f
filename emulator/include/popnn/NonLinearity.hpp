#pragma once
// Neural-network non-linearities. The softmax variants act over the innermost
// dimension; SOFTMAX_SCALED multiplies its output by a factor returned through
// nonLinearityScaling (1 for every other type).
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popnn/NonLinearityDef.hpp>

namespace popnn {

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         poplar::ComputeSet &cs, const poplar::DebugContext &debugContext = {});
void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         float &nonLinearityScaling, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {});
void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         float &nonLinearityScaling, poplar::ComputeSet &cs,
                         const poplar::DebugContext &debugContext = {});
poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                            float &nonLinearityScaling, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {});

// `act` is the non-linearity's output, except for GELU, GELU_ERF and SWISH where it is the input.
poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType nonLinearityType,
                                         poplar::Tensor act, poplar::Tensor outGradient,
                                         poplar::ComputeSet &cs, const poplar::DebugContext &debugContext = {});
poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType nonLinearityType,
                                         poplar::Tensor act, poplar::Tensor outGradient,
                                         poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debugContext = {});

#define POPNN_DEF_NONLINEARITY(FN, TYPE)                                                           \
  inline poplar::Tensor FN(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,  \
                           const poplar::DebugContext &debugContext = {}) {                         \
    return nonLinearity(graph, NonLinearityType::TYPE, t, prog, debugContext);                      \
  }                                                                                                 \
  inline poplar::Tensor FN(poplar::Graph &graph, poplar::Tensor t, float &nonLinearityScaling,       \
                           poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) { \
    return nonLinearity(graph, NonLinearityType::TYPE, t, nonLinearityScaling, prog, debugContext); \
  }                                                                                                 \
  inline void FN##InPlace(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,   \
                          const poplar::DebugContext &debugContext = {}) {                          \
    nonLinearityInPlace(graph, NonLinearityType::TYPE, t, prog, debugContext);                      \
  }                                                                                                 \
  inline void FN##InPlace(poplar::Graph &graph, poplar::Tensor t, float &nonLinearityScaling,        \
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}) { \
    nonLinearityInPlace(graph, NonLinearityType::TYPE, t, nonLinearityScaling, prog, debugContext); \
  }
POPNN_DEF_NONLINEARITY(sigmoid, SIGMOID)
POPNN_DEF_NONLINEARITY(relu, RELU)
POPNN_DEF_NONLINEARITY(tanh, TANH)
POPNN_DEF_NONLINEARITY(gelu, GELU)
POPNN_DEF_NONLINEARITY(geluErf, GELU_ERF)
POPNN_DEF_NONLINEARITY(swish, SWISH)
POPNN_DEF_NONLINEARITY(softmax, SOFTMAX)
POPNN_DEF_NONLINEARITY(softmaxStable, SOFTMAX_STABLE)
POPNN_DEF_NONLINEARITY(scaledSoftmaxStable, SOFTMAX_SCALED)
#undef POPNN_DEF_NONLINEARITY

} // namespace popnn
