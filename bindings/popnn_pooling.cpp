// popnn/PoolingDef.hpp and popnn/Pooling.hpp: max, average and sum pooling and
// their input gradients, in popnn.pooling as in C++.
#include <sstream>

#include <popnn/Pooling.hpp>
#include <popnn/PoolingDef.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindPopnnPooling(py::module_ &popnn) {
  using namespace popnn;
  using namespace popnn::pooling;
  using poplar::DebugContext;
  using poplar::Graph;
  using poplar::OptionFlags;
  using poplar::Tensor;
  using poplar::program::Sequence;
  checkedEnum<PoolingType>(popnn, "PoolingType")
      .value("MAX", PoolingType::MAX)
      .value("AVG", PoolingType::AVG)
      .value("SUM", PoolingType::SUM);

  py::module_ m = popnn.def_submodule("pooling", "namespace popnn::pooling");
  py::class_<PoolParams>(m, "PoolParams", "A pooling's type, window, stride and padding")
      .def(py::init<PoolingType, std::vector<std::size_t>, std::vector<std::size_t>,
                    std::vector<unsigned>, std::vector<int>, std::vector<int>, std::size_t,
                    std::size_t, poplar::Type>(),
           py::arg("poolingType"), py::arg("inputFieldShape"), py::arg("kernelShape"),
           py::arg("stride"), py::arg("inputTruncationOrPaddingLower"),
           py::arg("inputTruncationOrPaddingUpper"), py::arg("numChannels"),
           py::arg("batchSize"), py::arg("dType"))
      .def_readwrite("poolingType", &PoolParams::poolingType)
      .def_readwrite("inputFieldShape", &PoolParams::inputFieldShape)
      .def_readwrite("kernelShape", &PoolParams::kernelShape)
      .def_readwrite("stride", &PoolParams::stride)
      .def_readwrite("inputTruncationOrPaddingLower", &PoolParams::inputTruncationOrPaddingLower)
      .def_readwrite("inputTruncationOrPaddingUpper", &PoolParams::inputTruncationOrPaddingUpper)
      .def_readwrite("numChannels", &PoolParams::numChannels)
      .def_readwrite("batchSize", &PoolParams::batchSize)
      .def_readwrite("dType", &PoolParams::dType)
      .def("getNumFieldDims", &PoolParams::getNumFieldDims)
      .def("getOutputFieldShape", &PoolParams::getOutputFieldShape)
      .def("__str__", [](const PoolParams &p) {
        std::ostringstream out;
        out << p;
        return out.str();
      });

  const auto graph = py::arg("graph"), params = py::arg("params"), prog = py::arg("prog");
  const auto dc = py::arg("debugContext") = DebugContext();
  const auto options = py::arg("options") = OptionFlags();
  m.def("asString", &asString, py::arg("method"));
  m.def("getOutputFieldShape", &getOutputFieldShape, params);
  m.def("getFwdFlops", &getFwdFlops, params);
  m.def("getBwdFlops", &getBwdFlops, params);
  m.def("getFwdPerfectCycleCount", &getFwdPerfectCycleCount, graph, params);
  m.def("getBwdPerfectCycleCount", &getBwdPerfectCycleCount, graph, params);
  m.def("pool", &pool, graph, params, py::arg("in_"), prog, dc, options);
  m.def("poolInputGradient",
        py::overload_cast<Graph &, const PoolParams &, const Tensor &, const Tensor &,
                          const Tensor &, bool, Sequence &, const DebugContext &,
                          const OptionFlags &>(&poolInputGradient),
        graph, params, py::arg("in_"), py::arg("pooled"), py::arg("pooledGradient"),
        py::arg("useScaledGradient"), prog, dc, options);
  m.def("poolInputGradient",
        py::overload_cast<Graph &, const PoolParams &, const unsigned, const Tensor &, Sequence &,
                          const DebugContext &, const OptionFlags &>(&poolInputGradient),
        graph, params, py::arg("fwdChansPerGroup"), py::arg("pooledGradient"), prog, dc, options);
}

} // namespace popdsl_bindings
