// poplin/Norms.hpp: per-channel normalisation steps, and the reduce callback of their
// distributed forms built from a Python callable.
#include <poplin/Norms.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

poplin::DistributedNormReduceCallback normReduceCallback(py::object reduce, const char *what) {
  if (reduce.is_none()) return {};
  if (!PyCallable_Check(reduce.ptr()))
    throw py::type_error(std::string(what) + ": reduceCallback must be a callable or None, got " +
                         py::repr(reduce).cast<std::string>());
  const std::string caller = what;
  // The graph and the program go by reference: the callable adds its reduction (a gcl
  // all-reduce, say) to the caller's sequence.
  return [reduce, caller](poplar::Graph &graph, const std::vector<poplar::Tensor> &inputs,
                          poplar::program::Sequence &prog, unsigned groupSize, const poplar::DebugContext &dc,
                          const poplar::OptionFlags &options) {
    const auto ref = py::return_value_policy::reference;
    py::list args;
    for (const poplar::Tensor &t : inputs) args.append(t);
    py::object result = reduce(py::cast(&graph, ref), args, py::cast(&prog, ref), groupSize, dc, options);
    try {
      return result.cast<std::vector<poplar::Tensor>>();
    } catch (const py::cast_error &) {
      throw py::type_error(caller + ": the reduce callback must return a list of Tensors, got " +
                           py::repr(result).cast<std::string>());
    }
  };
}

void bindPoplinNorms(py::module_ &m) {
  using namespace poplin;
  using poplar::Graph;
  using poplar::Tensor;
  using poplar::Type;
  using poplar::program::Sequence;
  using T = const Tensor &;
  using DC = const poplar::DebugContext &;
  const auto graph = py::arg("graph"), acts = py::arg("acts"), prog = py::arg("prog"), eps = py::arg("eps"),
             unbiased = py::arg("unbiasedVarEstimate"), type = py::arg("type"), whitened = py::arg("actsWhitened"),
             gradsIn = py::arg("gradsIn"), invStdDev = py::arg("invStdDev"), gamma = py::arg("gamma");
  const auto stable = py::arg("stableAlgo") = false;
  const auto partials = py::arg("partialsType") = poplar::FLOAT;
  const auto dc = py::arg("debugContext") = poplar::DebugContext();

  m.def("createNormGamma", py::overload_cast<Graph &, T, const Type &, DC>(&createNormGamma), graph, acts, type, dc);
  m.def("createNormGamma", py::overload_cast<Graph &, T, DC>(&createNormGamma), graph, acts, dc);
  m.def("createNormBeta", py::overload_cast<Graph &, T, const Type &, DC>(&createNormBeta), graph, acts, type, dc);
  m.def("createNormBeta", py::overload_cast<Graph &, T, DC>(&createNormBeta), graph, acts, dc);
  m.def("createNormParams", &createNormParams, graph, acts, dc);
  m.def("normStatistics", &normStatistics, graph, py::arg("actsUngrouped"), eps, prog, unbiased, stable, partials,
        dc);
  m.def("distributedNormStatistics",
        [](Graph &g, T a, float e, Sequence &p, bool unbiasedVarEstimate, py::object reduce, unsigned normSize,
           bool stableAlgo, const Type &partialsType, DC d) {
          return distributedNormStatistics(g, a, e, p, unbiasedVarEstimate,
                                           normReduceCallback(reduce, "distributedNormStatistics"), normSize,
                                           stableAlgo, partialsType, d);
        },
        py::arg("replicatedGraph"), py::arg("actsUngrouped"), eps, prog, unbiased, py::arg("allReduceCallback"),
        py::arg("normSize"), stable, partials, dc,
        "allReduceCallback(graph, inputs, prog, groupSize, debugContext, options) -> list of Tensors, or None");
  m.def("normWhiten", &normWhiten, graph, acts, py::arg("mean"), py::arg("iStdDev"), prog, dc);
  m.def("normalise", &normalise, graph, whitened, gamma, py::arg("beta"), prog, dc);
  m.def("normParamGradients", &normParamGradients, graph, whitened, gradsIn, prog, partials, dc);
  m.def("normGradients", &normGradients, graph, gradsIn, gamma, prog, dc);
  m.def("normStatisticsGradients", &normStatisticsGradients, graph, whitened, gradsIn, invStdDev, prog, partials, dc);
  m.def("distributedNormStatisticsGradients",
        [](Graph &g, T w, T grads, T inv, Sequence &p, py::object reduce, unsigned normSize, const Type &partialsType,
           DC d) {
          return distributedNormStatisticsGradients(
              g, w, grads, inv, p, normReduceCallback(reduce, "distributedNormStatisticsGradients"), normSize,
              partialsType, d);
        },
        py::arg("replicatedGraph"), whitened, gradsIn, invStdDev, prog, py::arg("reduceCallback"),
        py::arg("normSize"), partials, dc,
        "reduceCallback(graph, inputs, prog, groupSize, debugContext, options) -> list of Tensors, or None");
}

} // namespace popdsl_bindings
