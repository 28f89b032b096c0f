// popops outside the map family: reductions, dynamic slices, fill/zero, cast,
// pad, scaled add, addCodelets.
#include <popops/Cast.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/Fill.hpp>
#include <popops/Operation.hpp>
#include <popops/Pad.hpp>
#include <popops/Reduce.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/Zero.hpp>
#include <popops/codelets.hpp>

#include <pybind11/operators.h>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

using poplar::ComputeSet;
using poplar::DebugContext;
using poplar::Graph;
using poplar::Interval;
using poplar::OptionFlags;
using poplar::Tensor;
using poplar::Type;
using poplar::program::Sequence;
using Sizes = std::vector<std::size_t>;
using Mapping = std::vector<std::vector<Interval>>;

// Replaces the contents of a Python list, as the C++ API fills its vector argument.
template <class T> void assignList(py::list &list, const std::vector<T> &values) {
  list.attr("clear")();
  for (const T &v : values) list.append(v);
}

// ReduceParams' `update`. The SDK deletes ReduceParams(op, float constantScale,
// bool update) so that a scale cannot silently become `update`; here that means
// accepting only bools.
bool updateFlag(py::handle update) {
  if (py::isinstance<py::bool_>(update) || py::isinstance(update, py::module_::import("numpy").attr("bool_")))
    return update.cast<bool>();
  throw py::type_error("ReduceParams: update must be a bool, got " + std::string(py::repr(update)) +
                       ". ReduceParams(op, constantScale, update) was removed from poplibs: "
                       "pass the scale as a one-element tensor, ReduceParams(op, update, scale)");
}

void bindReduce(py::module_ &m) {
  using namespace popops;
  checkedEnum<Operation>(m, "Operation")
      .value("ADD", Operation::ADD)
      .value("MUL", Operation::MUL)
      .value("MIN", Operation::MIN)
      .value("MAX", Operation::MAX)
      .value("LOGICAL_AND", Operation::LOGICAL_AND)
      .value("LOGICAL_OR", Operation::LOGICAL_OR)
      .value("SQUARE_ADD", Operation::SQUARE_ADD)
      .value("LOG_ADD", Operation::LOG_ADD);

  py::class_<ReduceParams>(m, "ReduceParams")
      .def(py::init<>())
      .def(py::init([](Operation op, py::handle update) { return ReduceParams(op, updateFlag(update)); }),
           py::arg("op"), py::arg("update") = false)
      .def(py::init([](Operation op, py::handle update, Tensor scale) {
             return ReduceParams(op, updateFlag(update), scale);
           }),
           py::arg("op"), py::arg("update"), py::arg("scale"))
      .def_readwrite("op", &ReduceParams::op)
      .def_readwrite("update", &ReduceParams::update)
      .def_readwrite("useScale", &ReduceParams::useScale)
      .def_readwrite("scale", &ReduceParams::scale)
      .def("__repr__", [](const ReduceParams &p) {
        return "ReduceParams(" + streamed(p.op) + ", update=" + (p.update ? "True" : "False") +
               (p.useScale ? ", scale=" + p.scale.getVarStr() : std::string()) + ")";
      });
  py::implicitly_convertible<Operation, ReduceParams>();

  const auto dc = py::arg("debugContext") = DebugContext();
  const auto options = py::arg("options") = OptionFlags();
  m.def("reduce",
        py::overload_cast<Graph &, const Tensor &, const Type &, const Sizes &, ReduceParams, Sequence &,
                          const DebugContext &, const OptionFlags &>(&reduce),
        py::arg("graph"), py::arg("in_"), py::arg("outType"), py::arg("dims"), py::arg("params"), py::arg("prog"),
        dc, options);
  m.def("reduce",
        py::overload_cast<Graph &, const Tensor &, const Sizes &, ReduceParams, Sequence &,
                          const DebugContext &, const OptionFlags &>(&reduce),
        py::arg("graph"), py::arg("in_"), py::arg("dims"), py::arg("params"), py::arg("prog"), dc, options);
  m.def("reduceWithOutput",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, const Sizes &, ReduceParams, Sequence &,
                          const DebugContext &, const OptionFlags &>(&reduceWithOutput),
        py::arg("graph"), py::arg("in_"), py::arg("out"), py::arg("dims"), py::arg("params"), py::arg("prog"),
        dc, options);
  // The deprecated compute set forms append to the Python list `css`.
  m.def("reduce",
        [](Graph &g, const Tensor &in, const Type &outType, const Sizes &dims, ReduceParams params,
           py::list css, const DebugContext &debugContext, const OptionFlags &opts) {
          std::vector<ComputeSet> added;
          Tensor out = reduce(g, in, outType, dims, params, added, debugContext, opts);
          for (const auto &cs : added) css.append(cs);
          return out;
        },
        py::arg("graph"), py::arg("in_"), py::arg("outType"), py::arg("dims"), py::arg("params"), py::arg("css"),
        dc, options);
  m.def("reduce",
        [](Graph &g, const Tensor &in, const Sizes &dims, ReduceParams params, py::list css,
           const DebugContext &debugContext, const OptionFlags &opts) {
          std::vector<ComputeSet> added;
          Tensor out = reduce(g, in, dims, params, added, debugContext, opts);
          for (const auto &cs : added) css.append(cs);
          return out;
        },
        py::arg("graph"), py::arg("in_"), py::arg("dims"), py::arg("params"), py::arg("css"), dc, options);
  m.def("reduceWithOutput",
        [](Graph &g, const Tensor &in, const Tensor &out, const Sizes &dims, ReduceParams params, py::list css,
           const DebugContext &debugContext, const OptionFlags &opts) {
          std::vector<ComputeSet> added;
          reduceWithOutput(g, in, out, dims, params, added, debugContext, opts);
          for (const auto &cs : added) css.append(cs);
        },
        py::arg("graph"), py::arg("in_"), py::arg("out"), py::arg("dims"), py::arg("params"), py::arg("css"),
        dc, options);

  py::class_<SingleReduceOp>(m, "SingleReduceOp")
      .def(py::init<Tensor, Sizes, ReduceParams, Type, std::string>(), py::arg("in_"), py::arg("dims"),
           py::arg("params"), py::arg("outType"), py::arg("debugName") = "")
      .def(py::init<Tensor, Sizes, ReduceParams, std::string>(), py::arg("in_"), py::arg("dims"),
           py::arg("params"), py::arg("debugName") = "")
      .def_readwrite("in_", &SingleReduceOp::in)
      .def_readwrite("dims", &SingleReduceOp::dims)
      .def_readwrite("params", &SingleReduceOp::params)
      .def_readwrite("useOutType", &SingleReduceOp::useOutType)
      .def_readwrite("outType", &SingleReduceOp::outType)
      .def_readwrite("debugName", &SingleReduceOp::debugName);
  // `outputs`: a list, filled with the results when empty; also returned.
  m.def("reduceMany",
        [](Graph &g, const std::vector<SingleReduceOp> &reductions, py::list outputs, Sequence &prog,
           const DebugContext &debugContext, const OptionFlags &opts) {
          auto results = outputs.cast<std::vector<Tensor>>();
          reduceMany(g, reductions, results, prog, debugContext, opts);
          assignList(outputs, results);
          return outputs;
        },
        py::arg("graph"), py::arg("reductions"), py::arg("outputs"), py::arg("prog"), dc, options);
}

void bindDynamicSlice(py::module_ &m) {
  using namespace popops;
  const auto dc = py::arg("debugContext") = DebugContext();
  const auto options = py::arg("options") = OptionFlags();

  py::class_<SlicePlan>(m, "SlicePlan", "How a multi-slice/update is laid out; SlicePlan() is the null plan")
      .def(py::init<>())
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def(py::self < py::self)
      .def("__repr__", &streamed<SlicePlan>);
  using PlanFn = SlicePlan (*)(const Graph &, const Type &, std::size_t, std::size_t, const Sizes &,
                                const OptionFlags &);
  using GroupedPlanFn = SlicePlan (*)(const Graph &, const Type &, std::size_t, std::size_t, std::size_t,
                                       const Sizes &, const OptionFlags &);
  m.def_submodule("embedding", "namespace popops::embedding")
      .def("plan", static_cast<PlanFn>(&embedding::plan), py::arg("graph"), py::arg("dataType"),
           py::arg("numEntries"), py::arg("outputSize"), py::arg("numLookups"), options)
      .def("plan", static_cast<GroupedPlanFn>(&embedding::plan), py::arg("graph"), py::arg("dataType"),
           py::arg("groupSize"), py::arg("numEntries"), py::arg("outputSize"), py::arg("numLookups"), options);

  m.def("createSliceableTensor",
        py::overload_cast<Graph &, const Type &, const Sizes &, const Sizes &, const Sizes &, std::size_t,
                          const DebugContext &>(&createSliceableTensor),
        py::arg("graph"), py::arg("type"), py::arg("shape"), py::arg("dims"), py::arg("sizes"),
        py::arg("minGrainSize") = 0, dc);
  m.def("createSliceableTensor",
        py::overload_cast<Graph &, const Type &, const Sizes &, const Sizes &, const Sizes &, const SlicePlan &,
                          const OptionFlags &, const DebugContext &>(&createSliceableTensor),
        py::arg("graph"), py::arg("type"), py::arg("shape"), py::arg("dims"), py::arg("sizes"), py::arg("plan"),
        py::arg("options"), dc);
  m.def("createSliceTensor",
        py::overload_cast<Graph &, const Tensor &, const Sizes &, const Sizes &, std::size_t,
                          const DebugContext &>(&createSliceTensor),
        py::arg("graph"), py::arg("t"), py::arg("dims"), py::arg("sizes"), py::arg("numIndices"), dc);
  m.def("createSliceTensor",
        py::overload_cast<Graph &, const Type &, const Sizes &, const Sizes &, const Sizes &, std::size_t,
                          const SlicePlan &, const OptionFlags &, const DebugContext &>(&createSliceTensor),
        py::arg("graph"), py::arg("type"), py::arg("shape"), py::arg("dims"), py::arg("sizes"),
        py::arg("numIndices"), py::arg("plan"), py::arg("options"), dc);
  m.def("createIndicesTensor", &createIndicesTensor, py::arg("graph"), py::arg("dims"), py::arg("numIndices"),
        py::arg("plan"), py::arg("options"), dc);
  m.def("createSliceableTensorFromSlice", &createSliceableTensorFromSlice, py::arg("graph"), py::arg("s"),
        py::arg("dims"), py::arg("numSlices"), dc);

  m.def("dynamicSlice", &dynamicSlice, py::arg("graph"), py::arg("t"), py::arg("offset"), py::arg("dims"),
        py::arg("sizes"), py::arg("prog"), dc, options);
  m.def("createDynamicSliceOutput", &createDynamicSliceOutput, py::arg("graph"), py::arg("t"),
        py::arg("offset"), py::arg("dims"), py::arg("sizes"), dc, options);
  m.def("dynamicSliceWithOutput", &dynamicSliceWithOutput, py::arg("graph"), py::arg("output"), py::arg("t"),
        py::arg("offset"), py::arg("dims"), py::arg("sizes"), py::arg("prog"), dc, options);
  m.def("getSliceMapping", &getSliceMapping, py::arg("graph"), py::arg("t"), py::arg("dims"), py::arg("sizes"));
  m.def("dynamicUpdate", &dynamicUpdate, py::arg("graph"), py::arg("t"), py::arg("s"), py::arg("offset"),
        py::arg("dims"), py::arg("sizes"), py::arg("prog"), dc, options);

  m.def("multiSlice",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, const Sizes &, const Sizes &, Sequence &,
                          const SlicePlan &, const OptionFlags &, const DebugContext &>(&multiSlice),
        py::arg("graph"), py::arg("t"), py::arg("offsets"), py::arg("dims"), py::arg("sizes"), py::arg("prog"),
        py::arg("plan"), py::arg("options"), dc);
  m.def("multiSlice",
        py::overload_cast<Graph &, const Tensor &, poplar::ArrayRef<unsigned>, std::size_t, Sequence &,
                          const DebugContext &, const OptionFlags &>(&multiSlice),
        py::arg("graph"), py::arg("t"), py::arg("offsets"), py::arg("dim"), py::arg("prog"), dc,
        py::arg("optionFlags") = OptionFlags());
  m.def("multiUpdate", &multiUpdate, py::arg("graph"), py::arg("t"), py::arg("s"), py::arg("offsets"),
        py::arg("dims"), py::arg("sizes"), py::arg("prog"), py::arg("plan"), py::arg("options"), dc);
  m.def("multiUpdateAdd",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, const Tensor &, const Tensor &, const Sizes &,
                          const Sizes &, Sequence &, const SlicePlan &, const OptionFlags &,
                          const DebugContext &>(&multiUpdateAdd),
        py::arg("graph"), py::arg("t"), py::arg("s"), py::arg("offsets"), py::arg("scale"), py::arg("dims"),
        py::arg("sizes"), py::arg("prog"), py::arg("plan"), py::arg("options"), dc);
  m.def("multiUpdateAdd",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, poplar::ArrayRef<unsigned>, const Tensor &,
                          std::size_t, Sequence &, const DebugContext &, const OptionFlags &>(&multiUpdateAdd),
        py::arg("graph"), py::arg("t"), py::arg("s"), py::arg("offsets"), py::arg("scale"), py::arg("dim"),
        py::arg("prog"), dc, py::arg("optionFlags") = OptionFlags());
  m.def("multiUpdateMax", &multiUpdateMax, py::arg("graph"), py::arg("t"), py::arg("s"), py::arg("offsets"),
        py::arg("dims"), py::arg("sizes"), py::arg("prog"), py::arg("plan"), py::arg("options"), dc);
  m.def("multiUpdateMul", &multiUpdateMul, py::arg("graph"), py::arg("t"), py::arg("s"), py::arg("offsets"),
        py::arg("dims"), py::arg("sizes"), py::arg("prog"), py::arg("plan"), py::arg("options"), dc);
}

// fill with a Python int (as long long) or float (as double), in all four forms.
template <class Value> void bindFill(py::module_ &m) {
  using popops::fill;
  m.def("fill", py::overload_cast<Graph &, const Tensor &, Sequence &, Value, const DebugContext &>(&fill<Value>),
        py::arg("graph"), py::arg("t"), py::arg("prog"), py::arg("fillValue"),
        py::arg("debugContext") = DebugContext());
  m.def("fill",
        py::overload_cast<Graph &, Tensor, const std::vector<Interval> &, unsigned, ComputeSet, Value>(&fill<Value>),
        py::arg("graph"), py::arg("t"), py::arg("tileRegions"), py::arg("tile"), py::arg("fillCS"),
        py::arg("fillValue"));
  m.def("fill", py::overload_cast<Graph &, const Tensor &, unsigned, ComputeSet, Value>(&fill<Value>),
        py::arg("graph"), py::arg("t"), py::arg("tile"), py::arg("fillCS"), py::arg("fillValue"));
  m.def("fill", py::overload_cast<Graph &, const Tensor &, const Mapping &, ComputeSet, Value>(&fill<Value>),
        py::arg("graph"), py::arg("t"), py::arg("mapping"), py::arg("fillCS"), py::arg("fillValue"));
}

void bindFillZeroCast(py::module_ &m) {
  using namespace popops;
  const auto dc = py::arg("debugContext") = DebugContext();
  // double before long long: see bindPad.
  bindFill<double>(m);
  bindFill<long long>(m);
  m.def("zero", py::overload_cast<Graph &, const Tensor &, Sequence &, const DebugContext &>(&zero),
        py::arg("graph"), py::arg("t"), py::arg("prog"), dc);
  m.def("zero", py::overload_cast<Graph &, Tensor, const std::vector<Interval> &, unsigned, ComputeSet>(&zero),
        py::arg("graph"), py::arg("t"), py::arg("tileRegions"), py::arg("tile"), py::arg("zeroCS"));
  m.def("zero", py::overload_cast<Graph &, const Tensor &, unsigned, ComputeSet>(&zero), py::arg("graph"),
        py::arg("t"), py::arg("tile"), py::arg("zeroCS"));
  m.def("zero", py::overload_cast<Graph &, const Tensor &, const Mapping &, ComputeSet>(&zero), py::arg("graph"),
        py::arg("t"), py::arg("mapping"), py::arg("zeroCS"));

  m.def("cast", py::overload_cast<Graph &, const Tensor &, const Type &, Sequence &, const DebugContext &>(&cast),
        py::arg("graph"), py::arg("src"), py::arg("dstType"), py::arg("prog"), dc);
  m.def("cast", py::overload_cast<Graph &, Tensor, Tensor, const DebugContext &>(&cast), py::arg("graph"),
        py::arg("src"), py::arg("dst"), dc);
  m.def("cast", py::overload_cast<Graph &, Tensor, Tensor, ComputeSet>(&cast), py::arg("graph"), py::arg("src"),
        py::arg("dst"), py::arg("cs"));
  m.def("cast", py::overload_cast<Graph &, Tensor, const Type &, ComputeSet, const DebugContext &>(&cast),
        py::arg("graph"), py::arg("src"), py::arg("dstType"), py::arg("cs"), dc);
  m.def("castWithOutput", &castWithOutput, py::arg("graph"), py::arg("src"), py::arg("dst"), py::arg("prog"), dc);
}

void bindPad(py::module_ &m) {
  using namespace popops;
  using Amounts = std::vector<std::ptrdiff_t>;
  auto paddingModule = m.def_submodule("padding", "namespace popops::padding");
  checkedEnum<padding::Type>(paddingModule, "Type")
      .value("EDGE", padding::Type::EDGE)
      .value("REFLECT", padding::Type::REFLECT);
  checkedEnum<padding::MappingMethod>(paddingModule, "MappingMethod")
      .value("NONE", padding::MappingMethod::NONE)
      .value("ZERO", padding::MappingMethod::ZERO)
      .value("EDGE", padding::MappingMethod::EDGE);
  const auto method = py::arg_v("mappingMethod", padding::MappingMethod::ZERO, "padding.MappingMethod.ZERO");
  // float before int: in pybind11's converting pass the first overload that
  // converts wins, and a numpy float must not be truncated to an int. Python
  // ints already match the int overload in the exact pass.
  m.def("pad",
        py::overload_cast<Graph &, const Tensor &, const Amounts &, const Amounts &, float,
                          padding::MappingMethod>(&pad),
        py::arg("graph"), py::arg("t"), py::arg("paddingLower"), py::arg("paddingUpper"), py::arg("val") = 0.0f,
        method);
  m.def("pad",
        py::overload_cast<Graph &, const Tensor &, const Amounts &, const Amounts &, int,
                          padding::MappingMethod>(&pad),
        py::arg("graph"), py::arg("t"), py::arg("paddingLower"), py::arg("paddingUpper"), py::arg("val"), method);
  m.def("pad",
        py::overload_cast<Graph &, const Tensor &, const Amounts &, const Amounts &, const Tensor &,
                          padding::MappingMethod>(&pad),
        py::arg("graph"), py::arg("t"), py::arg("paddingLower"), py::arg("paddingUpper"), py::arg("val"), method);
  m.def("pad",
        py::overload_cast<Graph &, const Tensor &, std::ptrdiff_t, std::ptrdiff_t, unsigned, float,
                          padding::MappingMethod>(&pad),
        py::arg("graph"), py::arg("t"), py::arg("paddingLower"), py::arg("paddingUpper"), py::arg("dim"),
        py::arg("val") = 0.0f, method);
  m.def("pad",
        py::overload_cast<Graph &, const Tensor &, std::ptrdiff_t, std::ptrdiff_t, unsigned, int,
                          padding::MappingMethod>(&pad),
        py::arg("graph"), py::arg("t"), py::arg("paddingLower"), py::arg("paddingUpper"), py::arg("dim"),
        py::arg("val"), method);
  m.def("pad",
        py::overload_cast<Graph &, const Tensor &, std::ptrdiff_t, std::ptrdiff_t, unsigned, const Tensor &,
                          padding::MappingMethod>(&pad),
        py::arg("graph"), py::arg("t"), py::arg("paddingLower"), py::arg("paddingUpper"), py::arg("dim"),
        py::arg("val"), method);
  m.def("pad", py::overload_cast<const Tensor &, const Amounts &, const Amounts &, padding::Type>(&pad),
        py::arg("t"), py::arg("paddingLower"), py::arg("paddingUpper"), py::arg("type"));
  m.def("pad", py::overload_cast<const Tensor &, std::ptrdiff_t, std::ptrdiff_t, unsigned, padding::Type>(&pad),
        py::arg("t"), py::arg("paddingLower"), py::arg("paddingUpper"), py::arg("dim"), py::arg("type"));
}

void bindScaledAdd(py::module_ &m) {
  using namespace popops;
  checkedEnum<ScaledAddSpecialisation>(m, "ScaledAddSpecialisation")
      .value("DEFAULT", ScaledAddSpecialisation::DEFAULT)
      .value("X_MINUS_AX_PLUS_BY", ScaledAddSpecialisation::X_MINUS_AX_PLUS_BY);
  const auto dc = py::arg("debugContext") = DebugContext();
  const auto options = py::arg("options") = OptionFlags();
  using ShortFloat = void(Graph &, Tensor, Tensor, float, Sequence &, const DebugContext &, const OptionFlags &);
  using ShortTensor = void(Graph &, Tensor, Tensor, Tensor, Sequence &, const DebugContext &, const OptionFlags &);
  using TwoFloat = void(Graph &, Tensor, float, Tensor, float, Sequence &, const DebugContext &, const OptionFlags &);
  using TwoTensor = void(Graph &, Tensor, Tensor, Tensor, Tensor, Sequence &, const DebugContext &, const OptionFlags &);
  using SpecialFloat = void(Graph &, Tensor, float, Tensor, float, Sequence &, const ScaledAddSpecialisation,
                            const DebugContext &, const OptionFlags &);
  using SpecialTensor = void(Graph &, Tensor, Tensor, Tensor, Tensor, Sequence &, const ScaledAddSpecialisation,
                             const DebugContext &, const OptionFlags &);
  // Each form has a float-scale and a tensor-scale overload with the same arguments.
  auto bindBoth = [&](const char *name, auto *floatForm, auto *tensorForm, auto... args) {
    m.def(name, floatForm, args...);
    m.def(name, tensorForm, args...);
  };
  const auto graph = py::arg("graph"), A = py::arg("A"), B = py::arg("B"), prog = py::arg("prog");
  const auto scaleA = py::arg("scaleA"), scaleB = py::arg("scaleB");
  bindBoth("scaledAddTo", static_cast<ShortFloat *>(&scaledAddTo), static_cast<ShortTensor *>(&scaledAddTo),
           graph, A, B, scaleB, prog, dc, options);
  bindBoth("scaledSubtractFrom", static_cast<ShortFloat *>(&scaledSubtractFrom),
           static_cast<ShortTensor *>(&scaledSubtractFrom), graph, A, B, scaleB, prog, dc, options);
  bindBoth("scaledAddTo", static_cast<TwoFloat *>(&scaledAddTo), static_cast<TwoTensor *>(&scaledAddTo), graph,
           A, scaleA, B, scaleB, prog, dc, options);
  bindBoth("scaledSubtractFrom", static_cast<TwoFloat *>(&scaledSubtractFrom),
           static_cast<TwoTensor *>(&scaledSubtractFrom), graph, A, scaleA, B, scaleB, prog, dc, options);
  bindBoth("scaledAddTo", static_cast<SpecialFloat *>(&scaledAddTo), static_cast<SpecialTensor *>(&scaledAddTo),
           graph, A, scaleA, B, scaleB, prog, py::arg("speciality"), dc, options);
}

} // namespace

void bindPopops(py::module_ &m) {
  m.def("addCodelets", &popops::addCodelets, py::arg("graph"));
  bindReduce(m);
  bindDynamicSlice(m);
  bindFillZeroCast(m);
  bindPad(m);
  bindScaledAdd(m);
}

} // namespace popdsl_bindings
