// Instances (popdsl.distributed's seam): the exchange that carries the emulator's
// collectives between processes or threads that each run a slice of the replicas.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "backend.hpp"
#include "bindings.hpp"

namespace popdsl_bindings {

void bindInstances(py::module_ &m) {
  m.def(
      "_setProcessInstanceExchange",
      [](unsigned instances, unsigned index, py::object allGather) {
        if (allGather.is_none()) return backend::setProcessInstanceExchange(instances, index, nullptr);
        // Called by engines with the GIL released; the Python function returns a list of bytes.
        auto fn = allGather.cast<py::function>();
        backend::setProcessInstanceExchange(instances, index, [fn](const std::string &mine) {
          py::gil_scoped_acquire gil;
          std::vector<std::string> all;
          for (const py::handle item : fn(py::bytes(mine))) all.push_back(item.cast<std::string>());
          return all;
        });
      },
      py::arg("instances"), py::arg("index"), py::arg("allGather"),
      "Emulator: the all-gather (bytes -> list of every instance's bytes) that engines running a slice of the "
      "replicas (target.firstRuntimeReplica/numberRuntimeReplica) send their collectives through; None: none");
  py::class_<backend::ThreadInstances, std::shared_ptr<backend::ThreadInstances>>(
      m, "_ThreadInstances", "Emulator: instances as threads of one process (popdsl.distributed.run_in_threads)")
      .def(py::init(&backend::threadInstances), py::arg("instances"), py::arg("timeoutSeconds"))
      .def("use", &backend::ThreadInstances::use, py::arg("index"),
           "Engines made on this thread from now on are instance `index`")
      .def("release", &backend::ThreadInstances::release, "Engines made on this thread from now on are no instance")
      .def(
          "allGather",
          [](backend::ThreadInstances &t, unsigned index, const py::bytes &mine) {
            std::vector<std::string> all;
            const std::string bytes = mine;
            {
              py::gil_scoped_release release;
              all = t.allGather(index, bytes);
            }
            py::list out;
            for (const auto &a : all) out.append(py::bytes(a));
            return out;
          },
          py::arg("index"), py::arg("mine"))
      .def("abort", &backend::ThreadInstances::abort, py::arg("why"));
}

} // namespace popdsl_bindings
