// poplar::cycleCount and cycleStamp: counters as [lo32, hi32] UNSIGNED_INT tensors.
#include <poplar/CycleCount.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindCycleCount(py::module_ &m) {
  using namespace poplar;
  m.def("cycleCount", &cycleCount, py::arg("graph"), py::arg("prog"), py::arg("tile"), py::arg("syncType"),
        py::arg("debugContext") = DebugContext(),
        "Wraps `prog` (changed in place) so it writes the cycles it took; returns the [lo32, hi32] tensor");
  m.def("cycleStamp",
        py::overload_cast<Graph &, program::Sequence &, unsigned, SyncType, const DebugContext &>(&cycleStamp),
        py::arg("graph"), py::arg("prog"), py::arg("tile"), py::arg("syncType"),
        py::arg("debugContext") = DebugContext(),
        "Appends a sync and a [lo32, hi32] snapshot of the cycle counter on `tile` to `prog`");
  m.def("cycleStamp",
        py::overload_cast<Graph &, program::Sequence &, const std::vector<unsigned> &, SyncType,
                          const DebugContext &>(&cycleStamp),
        py::arg("graph"), py::arg("prog"), py::arg("tiles"), py::arg("syncType"),
        py::arg("debugContext") = DebugContext());
}

} // namespace popdsl_bindings
