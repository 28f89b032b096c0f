// poplin/MultiConvolution.hpp: sets of convolutions (poplin.multiconv).
#include <poplin/MultiConvolution.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

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
  py::class_<CreateTensorArgs>(m, "CreateTensorArgs")
      .def(py::init([](const ConvParams &p, const OptionFlags &o, const std::string &name) {
             return CreateTensorArgs{p, o, name};
           }),
           params, options, py::arg("name") = "")
      .def_readwrite("params", &CreateTensorArgs::params)
      .def_readwrite("options", &CreateTensorArgs::options)
      .def_readwrite("name", &CreateTensorArgs::name);
  py::class_<ConvolutionArgs>(m, "ConvolutionArgs")
      .def(py::init([](const Tensor &in, const Tensor &w, const ConvParams &p, const OptionFlags &o) {
             return ConvolutionArgs{in, w, p, o};
           }),
           py::arg("inputs"), py::arg("weights"), params, options)
      .def_readwrite("inputs", &ConvolutionArgs::inputs)
      .def_readwrite("weights", &ConvolutionArgs::weights)
      .def_readwrite("params", &ConvolutionArgs::params)
      .def_readwrite("options", &ConvolutionArgs::options);
  py::class_<CalculateWeightDeltasArgs>(m, "CalculateWeightDeltasArgs")
      .def(py::init([](const Tensor &dz, const Tensor &acts, const ConvParams &p, const OptionFlags &o) {
             return CalculateWeightDeltasArgs{dz, acts, p, o};
           }),
           py::arg("zDeltas"), py::arg("activations"), params, options)
      .def_readwrite("zDeltas", &CalculateWeightDeltasArgs::zDeltas)
      .def_readwrite("activations", &CalculateWeightDeltasArgs::activations)
      .def_readwrite("params", &CalculateWeightDeltasArgs::params)
      .def_readwrite("options", &CalculateWeightDeltasArgs::options);
  py::class_<ConvWeightUpdateArgs>(m, "ConvWeightUpdateArgs")
      .def(py::init([](const Tensor &dz, const Tensor &w, const Tensor &acts, const Tensor &scale,
                       const ConvParams &p, const OptionFlags &o) {
             return ConvWeightUpdateArgs{dz, w, acts, scale, p, o};
           }),
           py::arg("zDeltas"), py::arg("weights"), py::arg("activations"), py::arg("scale"), params,
           options)
      .def_readwrite("scale", &ConvWeightUpdateArgs::scale);
  py::class_<ConvWeightUpdateArgsScalar>(m, "ConvWeightUpdateArgsScalar")
      .def(py::init([](const Tensor &dz, const Tensor &w, const Tensor &acts, float scale,
                       const ConvParams &p, const OptionFlags &o) {
             return ConvWeightUpdateArgsScalar{dz, w, acts, scale, p, o};
           }),
           py::arg("zDeltas"), py::arg("weights"), py::arg("activations"), py::arg("scale"), params,
           options)
      .def_readwrite("scale", &ConvWeightUpdateArgsScalar::scale);

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
