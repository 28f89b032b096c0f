// poprand: random tensors, dropout and seeding. `seed` is a Tensor or None (the
// hardware RNG state).
#include <poprand/RandomGen.hpp>
#include <poprand/codelets.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindPoprand(py::module_ &m) {
  using namespace poprand;
  using poplar::Graph;
  using poplar::Tensor;
  using poplar::Type;
  using poplar::program::Sequence;
  using PD = const poplar::DebugContext &;
  const auto dc = py::arg("debugContext") = poplar::DebugContext();
  const auto graph = py::arg("graph"), seed = py::arg("seed").none(true), modifier = py::arg("seedModifier"),
             reference = py::arg("reference"), outType = py::arg("outType"), prog = py::arg("prog"),
             input = py::arg("input"), keep = py::arg("keepProbability"), scale = py::arg("scale");

  m.def("addCodelets", &poprand::addCodelets, graph);
  m.def("uniform", &uniform, graph, seed, modifier, reference, outType, py::arg("minVal"), py::arg("maxVal"), prog,
        dc);
  m.def("logUniform", &logUniform, graph, seed, modifier, reference, outType, py::arg("minVal"),
        py::arg("maxVal"), prog, py::arg("base") = 2.718281828459045, dc);
  m.def("bernoulli", &bernoulli, graph, seed, modifier, reference, outType, py::arg("prob"), prog, dc);
  m.def("normal", &normal, graph, seed, modifier, reference, outType, py::arg("mean"), py::arg("stdDev"), prog, dc);
  m.def("truncatedNormal", &truncatedNormal, graph, seed, modifier, reference, outType, py::arg("mean"),
        py::arg("stdDev"), py::arg("alpha"), prog, dc);
  m.def("dropout",
        py::overload_cast<Graph &, const Tensor *, const std::uint32_t, const Tensor &, const Tensor &, double,
                          double, Sequence &, PD>(&dropout),
        graph, seed, modifier, input, reference, keep, scale, prog, dc);
  m.def("dropout",
        py::overload_cast<Graph &, const Tensor *, const std::uint32_t, const Tensor &, const Tensor &, double,
                          double, bool, Sequence &, PD>(&dropout),
        graph, seed, modifier, input, reference, keep, scale, py::arg("outputClonesRef"), prog, dc);
  m.def("shapedDropout", &shapedDropout, graph, seed, modifier, input, reference, keep, scale, prog, dc);
  m.def("setSeed", &setSeed, graph, py::arg("masterSeed"), modifier, prog, dc);
}

} // namespace popdsl_bindings
