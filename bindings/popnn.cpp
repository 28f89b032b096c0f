// popnn: non-linearities and their gradients, log-softmax and spatial softmax.
#include <popnn/LogSoftmax.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/SpatialSoftMax.hpp>
#include <popnn/codelets.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindPopnn(py::module_ &m) {
  using namespace popnn;
  using poplar::Graph;
  using poplar::Tensor;
  using poplar::program::Sequence;
  checkedEnum<NonLinearityType>(m, "NonLinearityType")
      .value("SIGMOID", NonLinearityType::SIGMOID)
      .value("HARD_SIGMOID", NonLinearityType::HARD_SIGMOID)
      .value("RELU", NonLinearityType::RELU)
      .value("TANH", NonLinearityType::TANH)
      .value("GELU", NonLinearityType::GELU)
      .value("GELU_ERF", NonLinearityType::GELU_ERF)
      .value("SWISH", NonLinearityType::SWISH)
      .value("SOFTMAX", NonLinearityType::SOFTMAX)
      .value("SOFTMAX_STABLE", NonLinearityType::SOFTMAX_STABLE)
      .value("SOFTMAX_SCALED", NonLinearityType::SOFTMAX_SCALED);
  const auto dc = py::arg("debugContext") = poplar::DebugContext();

  m.def("addCodelets", &popnn::addCodelets, py::arg("graph"));
  m.def("logSoftmax", &logSoftmax, py::arg("graph"), py::arg("t"), py::arg("prog"), dc);
  m.def("logSoftmaxInPlace", &logSoftmaxInPlace, py::arg("graph"), py::arg("t"), py::arg("prog"), dc);
  m.def("spatialSoftMax2D", &spatialSoftMax2D, py::arg("graph"), py::arg("prog"), py::arg("fields"),
        py::arg("temperature"), py::arg("disableSoftmax") = false, dc);
  m.def("nonLinearity", py::overload_cast<Graph &, NonLinearityType, Tensor, Sequence &, const poplar::DebugContext &>(&nonLinearity),
        py::arg("graph"), py::arg("nonLinearityType"), py::arg("t"), py::arg("prog"), dc);
  m.def("nonLinearityInPlace",
        py::overload_cast<Graph &, NonLinearityType, Tensor, Sequence &, const poplar::DebugContext &>(&nonLinearityInPlace),
        py::arg("graph"), py::arg("nonLinearityType"), py::arg("t"), py::arg("prog"), dc);
  m.def("nonLinearityInPlace",
        py::overload_cast<Graph &, NonLinearityType, Tensor, poplar::ComputeSet &, const poplar::DebugContext &>(&nonLinearityInPlace),
        py::arg("graph"), py::arg("nonLinearityType"), py::arg("t"), py::arg("cs"), dc);
  // C++ returns the softmax scaling through a reference; Python gets (tensor, scaling).
  m.def("nonLinearityWithScaling", [](Graph &g, NonLinearityType type, Tensor t, Sequence &prog, const poplar::DebugContext &d) {
    float scaling = 1;
    Tensor out = nonLinearity(g, type, t, scaling, prog, d);
    return py::make_tuple(out, scaling);
  }, py::arg("graph"), py::arg("nonLinearityType"), py::arg("t"), py::arg("prog"), dc);
  m.def("nonLinearityInputGradient",
        py::overload_cast<Graph &, NonLinearityType, Tensor, Tensor, Sequence &, const poplar::DebugContext &>(&nonLinearityInputGradient),
        py::arg("graph"), py::arg("nonLinearityType"), py::arg("act"), py::arg("outGradient"), py::arg("prog"), dc);
  m.def("nonLinearityInputGradient",
        py::overload_cast<Graph &, NonLinearityType, Tensor, Tensor, poplar::ComputeSet &, const poplar::DebugContext &>(&nonLinearityInputGradient),
        py::arg("graph"), py::arg("nonLinearityType"), py::arg("act"), py::arg("outGradient"), py::arg("cs"), dc);

  using Fn = Tensor (*)(Graph &, Tensor, Sequence &, const poplar::DebugContext &);
  using InPlaceFn = void (*)(Graph &, Tensor, Sequence &, const poplar::DebugContext &);
#define BIND_NONLINEARITY(FN)                                                                                  \
  m.def(#FN, static_cast<Fn>(&popnn::FN), py::arg("graph"), py::arg("t"), py::arg("prog"), dc);                \
  m.def(#FN "InPlace", static_cast<InPlaceFn>(&popnn::FN##InPlace), py::arg("graph"), py::arg("t"), py::arg("prog"), dc);
  BIND_NONLINEARITY(sigmoid) BIND_NONLINEARITY(relu) BIND_NONLINEARITY(tanh) BIND_NONLINEARITY(gelu)
  BIND_NONLINEARITY(geluErf) BIND_NONLINEARITY(swish) BIND_NONLINEARITY(softmax) BIND_NONLINEARITY(softmaxStable)
  BIND_NONLINEARITY(scaledSoftmaxStable)
#undef BIND_NONLINEARITY
}

} // namespace popdsl_bindings
