// poplin/MultiConvolution.hpp: sets of convolutions (poplin.multiconv).
#include <poplin/MultiConvolution.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

// A multiconv argument struct with its ConvParams and OptionFlags fields.
template <class Args> py::class_<Args> argsClass(py::module_ &m, const char *name) {
  py::class_<Args> c(m, name);
  c.def_readwrite("params", &Args::params).def_readwrite("options", &Args::options);
  return c;
}

// ConvWeightUpdateArgs and ConvWeightUpdateArgsScalar differ only in their scale.
template <class Args, class Scale> void weightUpdateArgsClass(py::module_ &m, const char *name) {
  argsClass<Args>(m, name)
      .def(py::init([](const poplar::Tensor &dz, const poplar::Tensor &w, const poplar::Tensor &acts,
                       Scale scale, const poplin::ConvParams &p, const poplar::OptionFlags &o) {
             return Args{dz, w, acts, scale, p, o};
           }),
           py::arg("zDeltas"), py::arg("weights"), py::arg("activations"), py::arg("scale"), py::arg("params"),
           py::arg("options") = poplar::OptionFlags())
      .def_readwrite("zDeltas", &Args::zDeltas)
      .def_readwrite("weights", &Args::weights)
      .def_readwrite("activations", &Args::activations)
      .def_readwrite("scale", &Args::scale);
}

} // namespace

void bindPoplinMultiConv(py::module_ &poplin) {
  using namespace poplin::multiconv;
  using poplar::DebugContext;
  using poplar::OptionFlags;
  using poplar::Tensor;
  using poplin::ConvParams;
  using poplin::PlanningCache;
  auto m = poplin.def_submodule("multiconv", "namespace poplin::multiconv");

  const auto params = py::arg("params");
  const auto options = py::arg("options") = OptionFlags();
  argsClass<CreateTensorArgs>(m, "CreateTensorArgs")
      .def(py::init([](const ConvParams &p, const OptionFlags &o, const std::string &name) {
             return CreateTensorArgs{p, o, name};
           }),
           params, options, py::arg("name") = "")
      .def_readwrite("name", &CreateTensorArgs::name);
  argsClass<ConvolutionArgs>(m, "ConvolutionArgs")
      .def(py::init([](const Tensor &in, const Tensor &w, const ConvParams &p, const OptionFlags &o) {
             return ConvolutionArgs{in, w, p, o};
           }),
           py::arg("inputs"), py::arg("weights"), params, options)
      .def_readwrite("inputs", &ConvolutionArgs::inputs)
      .def_readwrite("weights", &ConvolutionArgs::weights);
  argsClass<CalculateWeightDeltasArgs>(m, "CalculateWeightDeltasArgs")
      .def(py::init([](const Tensor &dz, const Tensor &acts, const ConvParams &p, const OptionFlags &o) {
             return CalculateWeightDeltasArgs{dz, acts, p, o};
           }),
           py::arg("zDeltas"), py::arg("activations"), params, options)
      .def_readwrite("zDeltas", &CalculateWeightDeltasArgs::zDeltas)
      .def_readwrite("activations", &CalculateWeightDeltasArgs::activations);
  weightUpdateArgsClass<ConvWeightUpdateArgs, const Tensor &>(m, "ConvWeightUpdateArgs");
  weightUpdateArgsClass<ConvWeightUpdateArgsScalar, float>(m, "ConvWeightUpdateArgsScalar");

  const auto graph = py::arg("graph"), args = py::arg("args"), prog = py::arg("prog");
  const auto dc = py::arg("debugContext") = DebugContext();
  const auto cache = py::arg("cache") = static_cast<PlanningCache *>(nullptr);
  m.def("createWeights", &createWeights, graph, args, py::arg("weightsIndex"), options, cache);
  m.def("createInput", &createInput, graph, args, py::arg("inputIndex"), options, cache);
  // C++ writes into args[i].weights, tensors that Python's copies of args view too.
  m.def("weightsTransposeChansFlipXY", &weightsTransposeChansFlipXY, graph, args, py::arg("weightsIn"),
        prog, py::arg("options"), py::arg("debugContext"), cache);
  m.def("convolution", &convolution, graph, args, py::arg("transposeAndFlipWeights"), prog, dc,
        options, cache);
  m.def("calculateWeightDeltas", &calculateWeightDeltas, graph, args, prog, dc, options, cache);
  // The tensor-scale overload first, so a Tensor scale is never tried as a float.
  m.def("convolutionWeightUpdate",
        py::overload_cast<poplar::Graph &, const std::vector<ConvWeightUpdateArgs> &,
                          poplar::program::Sequence &, const DebugContext &, const OptionFlags &,
                          PlanningCache *>(&convolutionWeightUpdate),
        graph, args, prog, dc, options, cache);
  m.def("convolutionWeightUpdate",
        py::overload_cast<poplar::Graph &, const std::vector<ConvWeightUpdateArgsScalar> &,
                          poplar::program::Sequence &, const DebugContext &, const OptionFlags &,
                          PlanningCache *>(&convolutionWeightUpdate),
        graph, args, prog, dc, options, cache);
}

} // namespace popdsl_bindings
