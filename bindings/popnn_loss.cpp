// popnn/Loss.hpp: classification losses, accuracy, arg-max/min and top-k.
#include <popnn/Loss.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindPopnnLoss(py::module_ &m) {
  using namespace popnn;
  using poplar::Graph;
  using poplar::Tensor;
  using poplar::program::Program;
  using poplar::program::Sequence;
  checkedEnum<LossType>(m, "LossType")
      .value("SUM_SQUARED_LOSS", SUM_SQUARED_LOSS)
      .value("CROSS_ENTROPY_LOSS", CROSS_ENTROPY_LOSS)
      .export_values();
  const auto dc = py::arg("debugContext") = poplar::DebugContext();
  const auto graph = py::arg("graph"), outputs = py::arg("modelOutputs"), expected = py::arg("expected"),
             loss = py::arg("loss"), deltas = py::arg("deltas"), numCorrect = py::arg("numCorrect"),
             lossType = py::arg("lossType");
  using T = const Tensor &;
  using PD = const poplar::DebugContext &;
  m.def("calcLoss", py::overload_cast<Graph &, T, T, T, T, T, T, LossType, PD>(&calcLoss), graph, outputs,
        expected, loss, deltas, py::arg("deltasScale"), py::arg("modelOutputScaling"), lossType, dc);
  m.def("calcLoss", py::overload_cast<Graph &, T, T, T, T, LossType, PD>(&calcLoss), graph, outputs, expected,
        loss, deltas, lossType, dc);
  m.def("calcLoss", py::overload_cast<Graph &, T, T, T, T, T, T, T, LossType, PD>(&calcLoss), graph, outputs,
        expected, loss, deltas, py::arg("deltasScale"), py::arg("modelOutputScaling"), numCorrect, lossType, dc);
  m.def("calcLoss", py::overload_cast<Graph &, T, T, T, T, T, LossType, PD>(&calcLoss), graph, outputs, expected,
        loss, deltas, numCorrect, lossType, dc);
  m.def("calcAccuracy", &calcAccuracy, graph, outputs, expected, numCorrect, dc,
        "Adds to numCorrect (one element) the rows whose first maximum is at the label, as poplibs "
        "does: zero it before the first batch.");
  const auto input = py::arg("input"), prog = py::arg("prog");
  m.def("argMax", &argMax, graph, input, prog, dc);
  m.def("argMin", &argMin, graph, input, prog, dc);
  m.def("maxAndArgMax", &maxAndArgMax, graph, input, prog, dc);
  m.def("minAndArgMin", &minAndArgMin, graph, input, prog, dc);
  // C++ sets `indices` through a reference; Python gets (values, indices).
  m.def("topK", [](Graph &g, const Tensor &in, unsigned k, bool sort, Sequence &p, PD d) {
    Tensor indices;
    Tensor values = topK(g, in, indices, k, sort, p, d);
    return py::make_tuple(values, indices);
  }, graph, input, py::arg("K"), py::arg("sort"), prog, dc);
}

} // namespace popdsl_bindings
