// poplar/CSRFunctions.hpp: the floating-point behaviour settings.
#include <poplar/CSRFunctions.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindCSRFunctions(py::module_ &m) {
  using namespace poplar;
  py::class_<FloatingPointBehaviour>(m, "FloatingPointBehaviour")
      .def(py::init<bool, bool, bool, bool, bool>(), py::arg("inv") = true, py::arg("div0") = true,
           py::arg("oflo") = true, py::arg("esr") = true, py::arg("nanoo") = true)
      .def_readwrite("inv", &FloatingPointBehaviour::inv)
      .def_readwrite("div0", &FloatingPointBehaviour::div0)
      .def_readwrite("oflo", &FloatingPointBehaviour::oflo)
      .def_readwrite("esr", &FloatingPointBehaviour::esr)
      .def_readwrite("nanoo", &FloatingPointBehaviour::nanoo);
  m.def("setFloatingPointBehaviour",
        py::overload_cast<Graph &, program::Sequence &, const FloatingPointBehaviour &, const DebugContext &>(
            &setFloatingPointBehaviour),
        py::arg("graph"), py::arg("prog"), py::arg("behaviour"), py::arg("debugContext") = DebugContext());
  m.def("setFloatingPointBehaviour",
        py::overload_cast<Graph &, program::Sequence &, const Tensor &, const DebugContext &>(&setFloatingPointBehaviour),
        py::arg("graph"), py::arg("prog"), py::arg("behaviour"), py::arg("debugContext") = DebugContext());
  m.def("setStochasticRounding", &setStochasticRounding, py::arg("graph"), py::arg("prog"), py::arg("behaviour"),
        py::arg("debugContext") = DebugContext());
}

} // namespace popdsl_bindings
