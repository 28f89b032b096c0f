// poplin/ConvParams.hpp and poplin/Convolution.hpp: convolutions and their
// training passes.
#include <sstream>

#include <poplin/ConvParams.hpp>
#include <poplin/Convolution.hpp>
#include <poputil/exceptions.hpp>

#include <pybind11/operators.h>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

using poplin::ConvParams;

// The C++ getters index their vectors unchecked; from Python a bad dimension is an error.
template <class Result, class Getter> auto perDimension(const char *name, Getter getter) {
  return [name, getter](const ConvParams &p, unsigned dim) -> Result {
    if (dim >= p.getNumFieldDims() || p.kernelShape.size() != p.getNumFieldDims())
      throw poputil::poplibs_error("ConvParams::" + std::string(name) + ": dimension " +
                                   std::to_string(dim) + " is not one of the " +
                                   std::to_string(p.getNumFieldDims()) + " field dimensions");
    p.validate(); // the transforms must cover every dimension
    return (p.*getter)(dim);
  };
}

template <class T> std::string printed(const T &value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

void bindConvParams(py::module_ &m) {
  using Counts = std::vector<unsigned>;
  using Sizes = std::vector<std::size_t>;
  py::class_<ConvParams> params(m, "ConvParams", "The shape and transforms of a convolution");

  py::class_<ConvParams::InputTransform>(params, "InputTransform")
      .def(py::init<>())
      .def(py::init<std::size_t>(), py::arg("size"))
      .def(py::init<Counts, Counts, Counts, Counts, Counts, std::vector<bool>>(),
           py::arg("truncationLower"), py::arg("truncationUpper"), py::arg("dilation"),
           py::arg("paddingLower"), py::arg("paddingUpper"), py::arg("flip"))
      .def_readwrite("truncationLower", &ConvParams::InputTransform::truncationLower)
      .def_readwrite("truncationUpper", &ConvParams::InputTransform::truncationUpper)
      .def_readwrite("dilation", &ConvParams::InputTransform::dilation)
      .def_readwrite("paddingLower", &ConvParams::InputTransform::paddingLower)
      .def_readwrite("paddingUpper", &ConvParams::InputTransform::paddingUpper)
      .def_readwrite("flip", &ConvParams::InputTransform::flip)
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def(py::self < py::self)
      .def("__hash__", [](const ConvParams::InputTransform &t) { return poplin::hash_value(t); });

  py::class_<ConvParams::OutputTransform>(params, "OutputTransform")
      .def(py::init<>())
      .def(py::init<std::size_t>(), py::arg("size"))
      .def(py::init<Counts, Counts, Counts, Counts, Counts>(), py::arg("truncationLower"),
           py::arg("truncationUpper"), py::arg("striding"), py::arg("paddingLower"),
           py::arg("paddingUpper"))
      .def_readwrite("truncationLower", &ConvParams::OutputTransform::truncationLower)
      .def_readwrite("truncationUpper", &ConvParams::OutputTransform::truncationUpper)
      .def_readwrite("stride", &ConvParams::OutputTransform::stride)
      .def_readwrite("paddingLower", &ConvParams::OutputTransform::paddingLower)
      .def_readwrite("paddingUpper", &ConvParams::OutputTransform::paddingUpper)
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def(py::self < py::self)
      .def("__hash__", [](const ConvParams::OutputTransform &t) { return poplin::hash_value(t); });

  params.def(py::init<>())
      .def(py::init<poplar::Type, std::size_t, Sizes, Sizes, std::size_t, std::size_t,
                    std::size_t>(),
           py::arg("dataType"), py::arg("batchSize"), py::arg("inputFieldShape"),
           py::arg("kernelShape"), py::arg("inputChannelsPerConvGroup"),
           py::arg("outputChannelsPerConvGroup"), py::arg("numConvGroups"))
      .def(py::init<poplar::Type, poplar::Type, std::size_t, Sizes, Sizes, std::size_t,
                    std::size_t, std::size_t>(),
           py::arg("inputType"), py::arg("outputType"), py::arg("batchSize"),
           py::arg("inputFieldShape"), py::arg("kernelShape"),
           py::arg("inputChannelsPerConvGroup"), py::arg("outputChannelsPerConvGroup"),
           py::arg("numConvGroups"))
      .def(py::init<poplar::Type, poplar::Type, std::size_t, Sizes, Sizes, std::size_t,
                    std::size_t, std::size_t, ConvParams::InputTransform,
                    ConvParams::InputTransform, ConvParams::OutputTransform>(),
           py::arg("inputType"), py::arg("outputType"), py::arg("batchSize"),
           py::arg("inputFieldShape"), py::arg("kernelShape"),
           py::arg("inputChannelsPerConvGroup"), py::arg("outputChannelsPerConvGroup"),
           py::arg("numConvGroups"), py::arg("inputTransform"), py::arg("kernelTransform"),
           py::arg("outputTransform"))
      .def_readwrite("inputType", &ConvParams::inputType)
      .def_readwrite("outputType", &ConvParams::outputType)
      .def_readwrite("batchSize", &ConvParams::batchSize)
      .def_readwrite("inputFieldShape", &ConvParams::inputFieldShape)
      .def_readwrite("kernelShape", &ConvParams::kernelShape)
      .def_readwrite("inputChannelsPerConvGroup", &ConvParams::inputChannelsPerConvGroup)
      .def_readwrite("outputChannelsPerConvGroup", &ConvParams::outputChannelsPerConvGroup)
      .def_readwrite("numConvGroups", &ConvParams::numConvGroups)
      .def_readwrite("inputTransform", &ConvParams::inputTransform)
      .def_readwrite("kernelTransform", &ConvParams::kernelTransform)
      .def_readwrite("outputTransform", &ConvParams::outputTransform)
      .def("getUntransformedOutputSize",
           perDimension<std::size_t>("getUntransformedOutputSize",
                                     &ConvParams::getUntransformedOutputSize),
           py::arg("dim"))
      .def("getOutputSize", perDimension<std::size_t>("getOutputSize", &ConvParams::getOutputSize),
           py::arg("dim"))
      .def("getInputSize", perDimension<std::size_t>("getInputSize", &ConvParams::getInputSize),
           py::arg("dim"))
      .def("getTruncatedInputSize",
           perDimension<unsigned>("getTruncatedInputSize", &ConvParams::getTruncatedInputSize),
           py::arg("dim"))
      .def("getTruncatedKernelSize",
           perDimension<unsigned>("getTruncatedKernelSize", &ConvParams::getTruncatedKernelSize),
           py::arg("dim"))
      .def("getTransformedInputSize",
           perDimension<unsigned>("getTransformedInputSize", &ConvParams::getTransformedInputSize),
           py::arg("dim"))
      .def("getTransformedKernelSize",
           perDimension<unsigned>("getTransformedKernelSize",
                                  &ConvParams::getTransformedKernelSize),
           py::arg("dim"))
      .def("getOutputFieldShape",
           [](const ConvParams &p) {
             p.validate();
             return p.getOutputFieldShape();
           })
      .def("getNumOutputChansPerConvGroup", &ConvParams::getNumOutputChansPerConvGroup)
      .def("getNumOutputChans", &ConvParams::getNumOutputChans)
      .def("getNumInputChansPerConvGroup", &ConvParams::getNumInputChansPerConvGroup)
      .def("getNumInputChans", &ConvParams::getNumInputChans)
      .def("getNumConvGroups", &ConvParams::getNumConvGroups)
      .def("getNumFieldDims", &ConvParams::getNumFieldDims)
      .def("getBatchSize", &ConvParams::getBatchSize)
      .def("validate", &ConvParams::validate)
      .def("canonicalize", &ConvParams::canonicalize)
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def(py::self < py::self)
      .def("__hash__", [](const ConvParams &p) { return std::hash<ConvParams>()(p); })
      .def("__str__", &printed<ConvParams>);
  m.def("hash_value", py::overload_cast<const ConvParams::InputTransform &>(&poplin::hash_value),
        py::arg("it"));
  m.def("hash_value", py::overload_cast<const ConvParams::OutputTransform &>(&poplin::hash_value),
        py::arg("ot"));
}

} // namespace

void bindPoplinConv(py::module_ &m) {
  using namespace poplin;
  using poplar::DebugContext;
  using poplar::Graph;
  using poplar::OptionFlags;
  using poplar::Tensor;
  using poplar::program::Sequence;
  bindConvParams(m);

  const auto dc = py::arg("debugContext") = DebugContext();
  const auto options = py::arg("options") = OptionFlags();
  const auto cache = py::arg("cache") = static_cast<PlanningCache *>(nullptr);
  const auto graph = py::arg("graph"), params = py::arg("params"), prog = py::arg("prog");

  m.def("getFwdFlops", &getFwdFlops, params);
  m.def("getBwdFlops", &getBwdFlops, params);
  m.def("getWuFlops", &getWuFlops, params);
  m.def("getFwdPerfectCycleCount", &getFwdPerfectCycleCount, graph, params);
  m.def("getBwdPerfectCycleCount", &getBwdPerfectCycleCount, graph, params);
  m.def("getWuPerfectCycleCount", &getWuPerfectCycleCount, graph, params);

  // The create functions' debugContext is required in C++; it gets a default here.
  m.def("createWeights", &createWeights, graph, params, dc, options, cache);
  m.def("createInput", &createInput, graph, params, dc, options, cache);
  m.def("createConvOutput", &createConvOutput, graph, params, dc, options, cache);
  m.def("createBiases", py::overload_cast<Graph &, const Tensor &, const ConvParams &,
                                          const DebugContext &, const OptionFlags &,
                                          PlanningCache *>(&createBiases),
        graph, py::arg("activations"), params, py::arg("debugContext") = DebugContext("biases"),
        options, cache);
  m.def("createBiases",
        py::overload_cast<Graph &, const Tensor &, const DebugContext &>(&createBiases), graph,
        py::arg("activations"), py::arg("debugContext") = DebugContext("biases"));

  m.def("convolution", &convolution, graph, py::arg("in_"), py::arg("weights"), params,
        py::arg("transposeAndFlipWeights"), prog, dc, options, cache);
  m.def("convolutionWithOutput", &convolutionWithOutput, graph, py::arg("in_"), py::arg("weights"),
        py::arg("out"), params, py::arg("transposeAndFlipWeights"), prog, dc, options, cache);
  m.def("weightsTransposeChansFlipXY",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, Sequence &, const DebugContext &,
                          const poplar::OptionFlags &>(&weightsTransposeChansFlipXY),
        graph, py::arg("weightsIn"), py::arg("weightsOut"), prog, dc, options);
  m.def("calculateWeightDeltas", &calculateWeightDeltas, graph, py::arg("zDeltas"),
        py::arg("activations"), params, prog, dc, options, cache);
  // The tensor-scale overloads come first so a Tensor scale is never tried as a float.
  m.def("convolutionWeightUpdate",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, const Tensor &, ConvParams,
                          const Tensor &, Sequence &, const DebugContext &, const OptionFlags &,
                          PlanningCache *>(&convolutionWeightUpdate),
        graph, py::arg("zDeltas"), py::arg("weights"), py::arg("activations"), params,
        py::arg("scale"), prog, dc, options, cache);
  m.def("convolutionWeightUpdate",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, const Tensor &, ConvParams,
                          float, Sequence &, const DebugContext &, const OptionFlags &,
                          PlanningCache *>(&convolutionWeightUpdate),
        graph, py::arg("zDeltas"), py::arg("weights"), py::arg("activations"), params,
        py::arg("scale"), prog, dc, options, cache);
  m.def("convolutionBiasUpdate",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, const Tensor &,
                          const OptionFlags &, Sequence &, const DebugContext &>(
            &convolutionBiasUpdate),
        graph, py::arg("zDeltas"), py::arg("biases"), py::arg("scale"), py::arg("options"), prog,
        dc);
  m.def("convolutionBiasUpdate",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, float, const OptionFlags &,
                          Sequence &, const DebugContext &>(&convolutionBiasUpdate),
        graph, py::arg("zDeltas"), py::arg("biases"), py::arg("scale"), py::arg("options"), prog,
        dc);
  m.def("addBias", &addBias, graph, py::arg("in_"), py::arg("biases"), prog, dc);

  m.def("preplanConvolutions",
        [](Graph &g, const std::vector<ConvParams> &convs, const OptionFlags &opts,
           PlanningCache &planningCache) {
          std::set<ConvPlanParams> plans;
          for (const ConvParams &p : convs) plans.emplace(&g.getTarget(), p, &opts);
          preplanConvolutions(g, plans, planningCache);
        },
        graph, py::arg("convs"), py::arg("options"), py::arg("cache"),
        "Plans each of `convs` (a list of ConvParams) with the same options");
  // C++ writes to a std::ostream; Python gets the text.
  m.def("reportPlanInfo",
        [](const Graph &g, const ConvParams &p, const OptionFlags &opts, PlanningCache *c) {
          std::ostringstream out;
          reportPlanInfo(out, g, p, opts, c);
          return out.str();
        },
        graph, params, options, cache);
  m.def("reportWeightUpdatePlanInfo",
        [](const Graph &g, const ConvParams &p, const OptionFlags &opts, PlanningCache *c) {
          std::ostringstream out;
          reportWeightUpdatePlanInfo(out, g, p, opts, c);
          return out.str();
        },
        graph, py::arg("fwdParams"), py::arg("fwdOptions") = OptionFlags(), cache);
  py::class_<PlanCosts>(m, "PlanCosts")
      .def_readonly("cycles", &PlanCosts::cycles)
      .def_readonly("memory", &PlanCosts::memory);
  m.def("reportPlanEstimatedCosts", &reportPlanEstimatedCosts, graph, params, options, cache);
  m.def("fullyConnectedWeightTranspose", &fullyConnectedWeightTranspose, graph,
        py::arg("activations"), params, prog, dc, options, cache);
  m.def("convolutionValidateOptions", &convolutionValidateOptions, py::arg("options"));
}

} // namespace popdsl_bindings
