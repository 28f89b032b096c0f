// popdsl._core: the Poplar API bound 1:1, in submodules named after its namespaces.
#include "backend.hpp"
#include "bindings.hpp"

using namespace popdsl_bindings;

PYBIND11_MODULE(_core, m) {
  m.doc() = "Raw bindings of the Poplar/poplibs C++ API (embedded emulator or SDK)";
  m.attr("backend") = POPDSL_BACKEND;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const backend::NeedsEmulatorBackend &e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    }
  });
  auto poplar = m.def_submodule("poplar", "namespace poplar");
  auto program = m.def_submodule("program", "namespace poplar::program");
  auto poputil = m.def_submodule("poputil", "namespace poputil");
  auto popops = m.def_submodule("popops", "namespace popops");
  auto poplin = m.def_submodule("poplin", "namespace poplin");
  auto popnn = m.def_submodule("popnn", "namespace popnn");
  auto poprand = m.def_submodule("poprand", "namespace poprand");
  auto gcl = m.def_submodule("gcl", "namespace gcl");
  bindExceptions(poplar);
  bindTypes(poplar);
  bindTarget(poplar);
  bindTensor(poplar);
  bindGraph(poplar);
  bindVertices(poplar);
  bindProgram(program);
  bindExecutable(poplar);
  bindEngine(poplar);
  bindInstances(poplar);
  bindCycleCount(poplar);
  bindCSRFunctions(poplar);
  bindPoputil(poputil);
  bindPoputilGraphFunction(poputil);
  bindPopopsExpr(popops);
  bindPopops(popops);
  bindPopopsGroupedSlice(popops);
  bindPopopsSmallHeaders(popops);
  bindPoplin(poplin);
  bindPoplinConv(poplin);
  bindPoplinMultiConv(poplin);
  bindPoplinNorms(poplin);
  bindPopnn(popnn);
  bindPopnnLoss(popnn);
  bindPopnnPooling(popnn);
  bindPopnnNorms(popnn);
  bindPoprand(poprand);
  bindGcl(gcl);
  nameRefusedIntegers(m); // last: every function is defined
}
