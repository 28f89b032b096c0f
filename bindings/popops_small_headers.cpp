// The smaller popops headers: Encoding, Loop, Sort, SortOrder, TopK, Gather,
// GatherStatistics, SequenceSlice, NormaliseImage, HostSliceTensor, CircBuf,
// SelectScalarFromRows, UpdateScalarInRows, AllTrue and NaN.
#include <popops/AllTrue.hpp>
#include <popops/CircBuf.hpp>
#include <popops/Encoding.hpp>
#include <popops/Gather.hpp>
#include <popops/GatherStatistics.hpp>
#include <popops/HostSliceTensor.hpp>
#include <popops/Loop.hpp>
#include <popops/NaN.hpp>
#include <popops/NormaliseImage.hpp>
#include <popops/SelectScalarFromRows.hpp>
#include <popops/SequenceSlice.hpp>
#include <popops/Sort.hpp>
#include <popops/SortOrder.hpp>
#include <popops/TopK.hpp>
#include <popops/UpdateScalarInRows.hpp>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <limits>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

using poplar::DebugContext;
using poplar::Graph;
using poplar::Tensor;
using poplar::program::Program;
using poplar::program::Sequence;

void bindEncodingAndLoops(py::module_ &m, const py::arg_v &dc) {
  using namespace popops;
  const auto graph = py::arg("graph"), prog = py::arg("prog"), t = py::arg("t");
  m.attr("MASKED_LABEL_CODE") = static_cast<unsigned>(MASKED_LABEL_CODE);
  m.def("encodeOneHot", py::overload_cast<Graph &, const Tensor &, const Tensor &, Sequence &, const DebugContext &>(
                            &encodeOneHot),
        graph, py::arg("indices"), py::arg("encoded"), prog, dc);
  m.def("encodeOneHot",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, Sequence &, const Tensor &, const Tensor &,
                          const DebugContext &>(&encodeOneHot),
        graph, py::arg("indices"), py::arg("encoded"), prog, py::arg("on"), py::arg("off"), dc);
  // Python has one integer type: a negative start takes the int overload.
  m.def(
      "iota",
      [](Graph &g, const Tensor &tensor, long long start, Sequence &p, const DebugContext &debugContext) {
        if (start < std::numeric_limits<int>::min() || start > std::numeric_limits<unsigned>::max())
          throw py::value_error("iota: startInteger " + std::to_string(start) +
                                " is outside the range of INT and UNSIGNED_INT");
        if (start < 0) iota(g, tensor, static_cast<int>(start), p, debugContext);
        else iota(g, tensor, static_cast<unsigned>(start), p, debugContext);
      },
      graph, t, py::arg("startInteger"), prog, dc);
  m.def("iotaWithOffset", &iotaWithOffset, graph, t, py::arg("offset"), prog, dc);

  using Counted = Sequence (*)(Graph &, std::size_t, std::size_t, size_t, const CountedLoopBodyType &,
                               const DebugContext &);
  using CountedFromZero = Sequence (*)(Graph &, std::size_t, const CountedLoopBodyType &, const DebugContext &);
  m.def("countedLoop", static_cast<Counted>(&countedLoop), graph, py::arg("begin"), py::arg("end"),
        py::arg("step"), py::arg("body"), dc);
  m.def("countedLoop", static_cast<CountedFromZero>(&countedLoop), graph, py::arg("count"), py::arg("body"), dc);
  using ForWithCount = Sequence (*)(Graph &, const Tensor &, int, const Tensor &, int, const Program &,
                                    const DebugContext &);
  using For = Sequence (*)(Graph &, int, const Tensor &, int, const Program &, const DebugContext &);
  m.def("countedForLoop", static_cast<ForWithCount>(&countedForLoop), graph, py::arg("count"),
        py::arg("initialCount"), py::arg("countLimit"), py::arg("countStep"), py::arg("body"), dc);
  m.def("countedForLoop", static_cast<For>(&countedForLoop), graph, py::arg("initialCount"), py::arg("countLimit"),
        py::arg("countStep"), py::arg("body"), dc);
}

void bindSortAndTopK(py::module_ &m, const py::arg_v &dc) {
  using namespace popops;
  const auto graph = py::arg("graph"), prog = py::arg("prog"), dim = py::arg("dim"), params = py::arg("params");
  checkedEnum<SortOrder>(m, "SortOrder")
      .value("NONE", SortOrder::NONE)
      .value("ASCENDING", SortOrder::ASCENDING)
      .value("DESCENDING", SortOrder::DESCENDING)
      .def("__str__", &streamed<SortOrder>);
  py::class_<TopKParams>(m, "TopKParams")
      .def(py::init<unsigned, bool, SortOrder, bool>(), py::arg("k"), py::arg("largest"), py::arg("sortOrder"),
           py::arg("stableSort") = false)
      .def_readwrite("k", &TopKParams::k)
      .def_readwrite("largest", &TopKParams::largest)
      .def_readwrite("sortOrder", &TopKParams::sortOrder)
      .def_readwrite("stableSort", &TopKParams::stableSort)
      .def("__repr__", &streamed<TopKParams>);
  m.def("sort", &sort, graph, py::arg("t"), dim, prog, dc);
  m.def("sortInPlace", &sortInPlace, graph, py::arg("t"), dim, prog, dc);
  m.def("sortKeyValue", &sortKeyValue, graph, py::arg("k"), py::arg("v"), dim, prog, dc);
  m.def("sortKeyValueInPlace", &sortKeyValueInPlace, graph, py::arg("k"), py::arg("v"), dim, prog, dc);
  m.def("createTopKInput", &createTopKInput, graph, py::arg("type"), py::arg("shape"), params, dc);
  m.def("topK", &topK, graph, prog, py::arg("t"), params, dc);
  m.def("topKKeyValue", &topKKeyValue, graph, prog, py::arg("keys"), py::arg("values"), params, dc);
  m.def("topKWithPermutation", &topKWithPermutation, graph, prog, py::arg("t"), params, dc);
}

void bindGather(py::module_ &m, const py::arg_v &dc) {
  using namespace popops;
  const auto graph = py::arg("graph"), type = py::arg("type"), input = py::arg("input"),
             indices = py::arg("indices"), prog = py::arg("prog");
  py::class_<GatherParams>(m, "GatherParams")
      .def(py::init<>())
      .def(py::init<std::size_t>(), py::arg("maxElementsPerTile"))
      .def_readwrite("maxElementsPerTile", &GatherParams::maxElementsPerTile);
  using AxisInput = Tensor (*)(Graph &, const poplar::Type &, const std::vector<std::size_t> &, unsigned,
                               GatherParams, const DebugContext &);
  using AxisGather = Tensor (*)(Graph &, const Tensor &, const Tensor &, unsigned, Sequence &, GatherParams,
                                const DebugContext &, const poplar::OptionFlags &);
  using XlaInput = Tensor (*)(Graph &, const poplar::Type &, const std::vector<std::size_t> &,
                              const std::vector<std::size_t> &, std::vector<unsigned>, const DebugContext &);
  using XlaGather = Tensor (*)(Graph &, const Tensor &, const Tensor &, std::size_t, const std::vector<std::size_t> &,
                               const std::vector<std::size_t> &, const std::vector<std::size_t> &,
                               const std::vector<unsigned> &, Sequence &, const DebugContext &,
                               const poplar::OptionFlags &);
  m.def("createGatherInput", static_cast<AxisInput>(&createGatherInput), graph, type, py::arg("operandShape"),
        py::arg("axis"), py::arg_v("params", GatherParams(), "GatherParams()"), dc);
  m.def("gather", static_cast<AxisGather>(&gather), graph, input, indices, py::arg("axis"), prog, py::arg("params"),
        dc, py::arg("optionFlags") = poplar::OptionFlags());
  m.def("createGatherInput", static_cast<XlaInput>(&createGatherInput), graph, type, py::arg("inputShape"),
        py::arg("sliceSizes"), py::arg("startIndexMap"), dc);
  m.def("gather", static_cast<XlaGather>(&gather), graph, input, indices, py::arg("indexVectorDim"),
        py::arg("offsetDims"), py::arg("sliceSizes"), py::arg("collapsedSliceDims"), py::arg("startIndexMap"), prog,
        dc, py::arg("optionFlags") = poplar::OptionFlags());
}

void bindRowScalarsAndChecks(py::module_ &m, const py::arg_v &dc) {
  using namespace popops;
  const auto graph = py::arg("graph"), params = py::arg("params"), indices = py::arg("indices");
  m.def("selectScalarFromRows", &selectScalarFromRows, graph, params, indices, py::arg("prog"), dc);
  m.def("updateScalarInRows", &updateScalarInRows, graph, params, indices, py::arg("program"), dc);
  m.def("allTrue", &allTrue, graph, py::arg("A"), py::arg("prog"), dc);
  m.def("hasNaN", &hasNaN, graph, py::arg("src"), py::arg("prog"), dc);
  m.def("hasNaNOrInf", &hasNaNOrInf, graph, py::arg("src"), py::arg("prog"), dc);
}

void bindStatisticsSlicesAndBuffers(py::module_ &m, const py::arg_v &dc) {
  using namespace popops;
  const auto graph = py::arg("graph"), type = py::arg("type"), shape = py::arg("shape"), prog = py::arg("prog");
  const auto input = py::arg("input"), levels = py::arg("levels"), absolute = py::arg("absoluteOfInput");
  using Counts = Tensor (*)(Graph &, const Tensor &, const Tensor &, bool, Sequence &, const DebugContext &,
                            const poplar::OptionFlags &);
  m.def("histogram", static_cast<Counts>(&histogram), graph, input, levels, absolute, prog, dc,
        py::arg("options") = poplar::OptionFlags());
  // The C++ output is a Tensor &, which histogram only writes into.
  m.def(
      "histogram",
      [](Graph &g, const Tensor &in, Tensor output, bool updateOutput, const Tensor &lv, bool abs, Sequence &p,
         const DebugContext &debugContext, const poplar::OptionFlags &options) {
        histogram(g, in, output, updateOutput, lv, abs, p, debugContext, options);
      },
      graph, input, py::arg("output"), py::arg("updateOutput"), levels, absolute, prog, dc,
      py::arg("options") = poplar::OptionFlags());
  m.def("sequenceSlice", &sequenceSlice, graph, py::arg("tIn"), py::arg("tOut"), py::arg("tN"), py::arg("tInOffset"),
        py::arg("tOutOffset"), py::arg("zeroUnused"), prog, dc);
  m.def(
      "createNormaliseImageInput",
      [](Graph &g, const poplar::Type &t, const std::vector<std::size_t> &s, const DebugContext &debugContext) {
        return createNormaliseImageInput(g, t, s, debugContext);
      },
      graph, type, shape, dc);
  m.def("normaliseImage", &normaliseImage, graph, py::arg("seq"), py::arg("tIn"), py::arg("inScale"),
        py::arg("offsets"), py::arg("scales"), dc);
  py::class_<IndicesAndTensor>(m, "IndicesAndTensor")
      .def_readwrite("indices", &IndicesAndTensor::indices)
      .def_readwrite("tensor", &IndicesAndTensor::tensor);
  m.def("createHostSliceableTensor", &createHostSliceableTensor, graph, type, shape, py::arg("isRead"), dc);
  m.def("createHostTransferableTensor", &createHostTransferableTensor, graph, type, shape, py::arg("isRead"), dc);
  // A CircBuf holds its Graph by reference: keep the graph alive as long as the buffer.
  py::class_<CircBuf>(m, "CircBuf")
      .def(py::init<Graph &, const poplar::Type &, unsigned, const std::vector<std::size_t> &,
                    const DebugContext &>(),
           graph, py::arg("dataType"), py::arg("size"), shape, dc, py::keep_alive<1, 2>())
      .def("prev", &CircBuf::prev, py::arg("i"), py::arg("seq"), dc)
      .def("add", &CircBuf::add, py::arg("t"), py::arg("seq"), dc)
      .def("getIndex", &CircBuf::getIndex)
      .def("getTileMapping", &CircBuf::getTileMapping)
      .def("size", &CircBuf::size);
}

} // namespace

void bindPopopsSmallHeaders(py::module_ &m) {
  const py::arg_v dc = py::arg("debugContext") = DebugContext();
  bindEncodingAndLoops(m, dc);
  bindSortAndTopK(m, dc);
  bindGather(m, dc);
  bindStatisticsSlicesAndBuffers(m, dc);
  bindRowScalarsAndChecks(m, dc);
}

} // namespace popdsl_bindings
