// popops grouped multi-slices and multi-updates (a leading group dimension).
#include <popops/DynamicSlice.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindPopopsGroupedSlice(py::module_ &m) {
  using namespace popops;
  const auto dc = py::arg("debugContext") = poplar::DebugContext();
  const auto graph = py::arg("graph"), t = py::arg("t"), s = py::arg("s"), offsets = py::arg("offsets"),
             dims = py::arg("dims"), sizes = py::arg("sizes"), prog = py::arg("prog"), plan = py::arg("plan"),
             options = py::arg("options");
  m.def("createGroupedSliceableTensor", &createGroupedSliceableTensor, graph, py::arg("type"),
        py::arg("groupSize"), py::arg("shape"), dims, sizes, plan, options, dc);
  m.def("createGroupedSliceTensor", &createGroupedSliceTensor, graph, py::arg("type"), py::arg("groupSize"),
        py::arg("shape"), dims, sizes, py::arg("numIndices"), plan, options, dc);
  m.def("createGroupedIndicesTensor", &createGroupedIndicesTensor, graph, py::arg("groupSize"), dims,
        py::arg("numIndices"), plan, options, dc);
  m.def("groupedMultiSlice", &groupedMultiSlice, graph, t, offsets, dims, sizes, prog, plan, options, dc);
  m.def("groupedMultiUpdate", &groupedMultiUpdate, graph, t, s, offsets, dims, sizes, prog, plan, options, dc);
  m.def("groupedMultiUpdateAdd", &groupedMultiUpdateAdd, graph, t, s, offsets, py::arg("scale"), dims, sizes,
        prog, plan, options, dc);
  m.def("groupedMultiUpdateMax", &groupedMultiUpdateMax, graph, t, s, offsets, dims, sizes, prog, plan, options,
        dc);
  m.def("groupedMultiUpdateMul", &groupedMultiUpdateMul, graph, t, s, offsets, dims, sizes, prog, plan, options,
        dc);
}

} // namespace popdsl_bindings
