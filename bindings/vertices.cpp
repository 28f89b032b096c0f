// Codelets and custom vertices: Graph.addCodelets/addVertex/connect/... and
// VertexRef/FieldRef, with the C++ names.
#include <poplar/Graph.hpp>
#include <poplar/PerfEstimateFunc.hpp>
#include <poplar/VertexIntrospector.hpp>
#include <poplar/exceptions.hpp>

#include <pybind11/stl.h>

#include <optional>
#include <sstream>

#include "backend.hpp"
#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

using poplar::FieldRef;
using poplar::Graph;
using poplar::Tensor;
using poplar::VertexRef;

// Calls `f` with a Python number (bool, int, float or a numpy scalar of those kinds)
// as bool, long long or double; false when `value` is not a number.
template <class F> bool withNumber(py::handle value, F f) {
  const py::module_ np = py::module_::import("numpy");
  if (py::isinstance<py::bool_>(value) || py::isinstance(value, np.attr("bool_"))) {
    f(value.cast<bool>());
  } else if (py::isinstance<py::int_>(value) || py::isinstance(value, np.attr("integer"))) {
    try {
      f(py::int_(py::reinterpret_borrow<py::object>(value)).cast<long long>());
    } catch (const py::cast_error &) {
      throw py::value_error("the integer " + std::string(py::str(value)) + " does not fit in 64 bits");
    }
  } else if (py::isinstance<py::float_>(value) || py::isinstance(value, np.attr("floating"))) {
    f(py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>());
  } else {
    return false;
  }
  return true;
}

// The tensors of a Python list connected to a list field.
std::vector<Tensor> tensorList(py::handle value, const char *what) {
  std::vector<Tensor> tensors;
  for (py::handle item : value) {
    if (!py::isinstance<Tensor>(item))
      throw py::type_error(std::string(what) + ": a list connected to a field must hold only Tensors, not " +
                           std::string(py::str(py::type::of(item).attr("__name__"))));
    tensors.push_back(item.cast<Tensor>());
  }
  return tensors;
}

[[noreturn]] void notConnectable(py::handle value, const char *what) {
  throw py::type_error(std::string(what) + ": expected a Tensor, a list of Tensors or a number, not " +
                       std::string(py::str(py::type::of(value).attr("__name__"))));
}

bool isList(py::handle value) { return py::isinstance<py::sequence>(value) && !py::isinstance<py::str>(value); }

// Graph.connect(field, value): a Tensor, a list of Tensors, or a number (a constant edge).
void connectValue(Graph &g, const FieldRef &field, py::handle value) {
  if (py::isinstance<Tensor>(value)) g.connect(field, value.cast<const Tensor &>());
  else if (withNumber(value, [&](auto number) { g.connect(field, number); })) return;
  else if (isList(value)) g.connect(field, poplar::ArrayRef<Tensor>(tensorList(value, "connect")));
  else notConnectable(value, "connect");
}

// One entry of addVertex's connections, as the SDK's ConnectionDesc forms.
Graph::ConnectionDesc connectionDesc(const std::string &field, py::handle value) {
  if (py::isinstance<Tensor>(value)) return {field, value.cast<Tensor>()};
  std::optional<Graph::ConnectionDesc> desc;
  if (withNumber(value, [&](auto number) { desc.emplace(field, number); })) return *desc;
  if (isList(value)) {
    const std::vector<Tensor> tensors = tensorList(value, "addVertex");
    return {field, poplar::ArrayRef<Tensor>(tensors)};
  }
  notConnectable(value, "addVertex");
}

// Initial values of a plain field: a number or a sequence/array of numbers.
void setFieldInitialValue(Graph &g, const FieldRef &field, py::handle values) {
  py::array arr = py::array::ensure(values);
  if (!arr || arr.ndim() > 1)
    throw py::type_error("setInitialValue: expected a number or a 1-D sequence of numbers for a vertex field");
  const char kind = arr.dtype().kind();
  const bool isList = arr.ndim() == 1;
  const auto apply = [&](auto sample) {
    using T = decltype(sample);
    py::array_t<T, py::array::c_style | py::array::forcecast> typed(arr);
    if (isList) g.setInitialValue(field, poplar::ArrayRef<T>(typed.data(), static_cast<std::size_t>(typed.size())));
    else g.setInitialValue(field, *typed.data());
  };
  if (kind == 'f') apply(double());
  else if (kind == 'u') apply(static_cast<unsigned long long>(0));
  else if (kind == 'i' || kind == 'b') apply(static_cast<long long>(0));
  else throw py::type_error("setInitialValue: values of dtype " + std::string(py::str(arr.dtype())) + " cannot set a vertex field");
}

// `object`, keeping `owner` alive as long as it lives.
py::object owned(py::object object, py::handle owner) {
  object.attr("_owner") = owner;
  return object;
}

// A string with a line break or a brace is codelet source text; any other string or path names a file.
bool isSourceText(py::handle src) {
  return py::isinstance<py::str>(src) && src.cast<std::string>().find_first_of("\n{") != std::string::npos;
}

// A Python estimator: fn(VertexIntrospector, Target) returning a cycle count, a
// VertexPerfEstimate or (cycles, flops). It runs (and is released) with the GIL held.
poplar::PerfEstimateFunc pythonEstimator(py::function fn) {
  std::shared_ptr<py::function> holder(new py::function(std::move(fn)), [](py::function *f) {
    py::gil_scoped_acquire gil;
    delete f;
  });
  return [holder](const poplar::VertexIntrospector &vertex, const poplar::Target &target) {
    py::gil_scoped_acquire gil;
    py::object result = (*holder)(vertex, target);
    if (py::isinstance<poplar::VertexPerfEstimate>(result)) return result.cast<poplar::VertexPerfEstimate>();
    if (py::isinstance<py::tuple>(result)) {
      const auto pair = result.cast<std::pair<std::uint64_t, std::uint64_t>>();
      return poplar::VertexPerfEstimate(pair.first, pair.second);
    }
    return poplar::VertexPerfEstimate(result.cast<std::uint64_t>());
  };
}

// A FieldData's initial values as Python numbers of its element type's kind.
py::object initialValues(const poplar::FieldData &field, const poplar::Target &target, bool one) {
  const poplar::Type type = backend::fieldElementType(field);
  const auto convert = [&](auto sample) -> py::object {
    using T = decltype(sample);
    if (one) return py::cast(field.getInitialValue<T>(target));
    return py::cast(field.getInitialValues<T>(target));
  };
  if (type == poplar::BOOL) return convert(bool());
  if (type.isFloatingPoint()) return convert(double());
  if (type == poplar::UNSIGNED_CHAR || type == poplar::UNSIGNED_SHORT || type == poplar::UNSIGNED_INT ||
      type == poplar::UNSIGNED_LONGLONG)
    return convert(static_cast<unsigned long long>(0));
  return convert(static_cast<long long>(0));
}

// Graph.getMaxVertexFieldValueAs(vertexType, field, dtype): the template argument as a numpy dtype.
py::object maxVertexFieldValueAs(const Graph &g, const std::string &vertexType, const std::string &field, py::handle dtype) {
  const py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  const auto as = [&](auto sample) { return py::cast(g.getMaxVertexFieldValueAs<decltype(sample)>(vertexType, field)); };
  if (kind == 'b') return as(bool());
  if (kind == 'f' && size == 4) return as(float());
  if (kind == 'f' && size == 8) return as(double());
  if (kind == 'i' && size == 1) return as(std::int8_t());
  if (kind == 'i' && size == 2) return as(std::int16_t());
  if (kind == 'i' && size == 4) return as(std::int32_t());
  if (kind == 'i' && size == 8) return as(std::int64_t());
  if (kind == 'u' && size == 1) return as(std::uint8_t());
  if (kind == 'u' && size == 2) return as(std::uint16_t());
  if (kind == 'u' && size == 4) return as(std::uint32_t());
  if (kind == 'u' && size == 8) return as(std::uint64_t());
  throw py::type_error("getMaxVertexFieldValueAs: dtype " + std::string(py::str(dt)) +
                       " is not a bool, integer, float32 or float64 type");
}

} // namespace

void bindVertices(py::module_ &m) {
  using namespace poplar;
  checkedEnum<CodeletFileType>(m, "CodeletFileType")
      .value("PreprocessedAsmSource", CodeletFileType::PreprocessedAsmSource)
      .value("AsmSource", CodeletFileType::AsmSource)
      .value("CSource", CodeletFileType::CSource)
      .value("CppSource", CodeletFileType::CppSource)
      .value("IrSource", CodeletFileType::IrSource)
      .value("Object", CodeletFileType::Object)
      .value("Auto", CodeletFileType::Auto);

  // VertexRef and FieldRef point into their graph, so each keeps the Python object
  // it came from (and so the Graph) alive in `_owner`. (pybind11's keep_alive
  // crashes when a call fails to match its arguments.)
  py::class_<FieldRef> field(m, "FieldRef", py::dynamic_attr());
  py::class_<VertexRef>(m, "VertexRef", py::dynamic_attr())
      .def("getId", &VertexRef::getId)
      .def("__getitem__", [](py::object self, const std::string &name) {
             return owned(py::cast(self.cast<const VertexRef &>()[name]), self);
           },
           py::arg("field"))
      .def("__eq__", [](const VertexRef &a, const VertexRef &b) { return a.getId() == b.getId(); })
      .def("__hash__", [](const VertexRef &v) { return v.getId(); })
      .def("__repr__", [](const VertexRef &v) { return "<poplar.VertexRef " + std::to_string(v.getId()) + ">"; });
  field
      .def("__getitem__", [](py::object self, std::size_t index) {
             return owned(py::cast(self.cast<const FieldRef &>()[index]), self);
           },
           py::arg("index"))
      .def("isIndexed", &FieldRef::isIndexed)
      .def("getIndex", &FieldRef::getIndex)
      .def_readonly("vertex", &FieldRef::vertex)
      .def_readonly("fieldId", &FieldRef::fieldId);

  py::class_<VertexPerfEstimate>(m, "VertexPerfEstimate")
      .def(py::init<std::uint64_t, std::uint64_t>(), py::arg("cycles") = 0, py::arg("flops") = 0)
      .def_readwrite("cycles", &VertexPerfEstimate::cycles)
      .def_readwrite("flops", &VertexPerfEstimate::flops)
      .def("__eq__", [](const VertexPerfEstimate &a, const VertexPerfEstimate &b) {
        return a.cycles == b.cycles && a.flops == b.flops;
      })
      .def("__repr__", [](const VertexPerfEstimate &e) {
        return "VertexPerfEstimate(cycles=" + std::to_string(e.cycles) + ", flops=" + std::to_string(e.flops) + ")";
      });
  py::class_<FieldData::SizeT>(m, "FieldDataSize").def("size", &FieldData::SizeT::size);
  py::class_<FieldData>(m, "FieldData")
      .def("rank", &FieldData::rank)
      .def("size", &FieldData::size)
      .def("getSizeAtIndex", &FieldData::getSizeAtIndex, py::arg("i"))
      .def("__getitem__", &FieldData::operator[], py::arg("i"))
      .def("name", &FieldData::name)
      .def("getInitialValue", [](const FieldData &f, const Target &t) { return initialValues(f, t, true); },
           py::arg("target"))
      .def("getInitialValues", [](const FieldData &f, const Target &t) { return initialValues(f, t, false); },
           py::arg("target"));
  py::class_<VertexIntrospector>(m, "VertexIntrospector")
      .def("getFieldInfo", &VertexIntrospector::getFieldInfo, py::arg("name"))
      .def("getComputeSet", &VertexIntrospector::getComputeSet);

  auto graph = py::reinterpret_borrow<py::class_<Graph>>(m.attr("Graph"));
  graph
      .def("addCodelets",
           [](Graph &g, py::object src, CodeletFileType type, const std::string &compileFlags,
              const std::string &targetName) {
             if (isSourceText(src)) {
               std::stringstream text(src.cast<std::string>());
               return g.addCodelets(text, compileFlags, type == CodeletFileType::Auto ? CodeletFileType::CppSource : type,
                                    targetName);
             }
             if (py::isinstance<py::list>(src) || py::isinstance<py::tuple>(src)) {
               if (type != CodeletFileType::Auto)
                 throw py::type_error("addCodelets: a list of paths takes no CodeletFileType (each file's extension decides)");
               std::vector<std::string> paths;
               for (py::handle p : src) paths.push_back(py::str(py::module_::import("os").attr("fspath")(p)));
               return g.addCodelets(ArrayRef<std::string>(paths), compileFlags, targetName);
             }
             const std::string path = py::str(py::module_::import("os").attr("fspath")(src));
             return g.addCodelets(StringRef(path), type, compileFlags, targetName);
           },
           py::arg("src"), py::arg_v("type", CodeletFileType::Auto, "CodeletFileType.Auto"), py::arg("compileFlags") = "",
           py::arg("targetName") = "",
           "Compiles codelets: a file path (str or os.PathLike; a .gp object written by popc is loaded), "
           "a list of paths, or C++ source text (a str containing a line break or a '{'); the arguments in "
           "the order of the SDK's "
           "addCodelets(src, type, compileFlags, targetName)")
      .def("addCodelets",
           [](Graph &g, py::object src, const std::string &compileFlags, const std::string &targetName) {
             if (isSourceText(src)) {
               std::stringstream text(src.cast<std::string>());
               return g.addCodelets(text, compileFlags, CodeletFileType::CppSource, targetName);
             }
             if (py::isinstance<py::list>(src) || py::isinstance<py::tuple>(src)) {
               std::vector<std::string> paths;
               for (py::handle p : src) paths.push_back(py::str(py::module_::import("os").attr("fspath")(p)));
               return g.addCodelets(ArrayRef<std::string>(paths), compileFlags, targetName);
             }
             const std::string path = py::str(py::module_::import("os").attr("fspath")(src));
             return g.addCodelets(StringRef(path), CodeletFileType::Auto, compileFlags, targetName);
           },
           py::arg("src"), py::arg("compileFlags"), py::arg("targetName") = "",
           "addCodelets(srcs, compileFlags, targetName) and addCodelets(stream, compileFlags, ...): the "
           "SDK's list and stream forms, which take the flags second")
      .def("hasCodelet", &Graph::hasCodelet, py::arg("vertexType"))
      .def("_vertexFieldDirections",
           [](const Graph &g, const std::string &vertexType) -> py::object {
             const auto directions = backend::vertexFieldDirections(g, vertexType);
             if (!directions) return py::none();
             py::dict result;
             for (const auto &kv : *directions) result[py::str(kv.first)] = kv.second;
             return result;
           },
           py::arg("vertexType"),
           "popdsl: {field: 'Input' | 'Output' | 'InOut'} for each edge field of the vertex type, as its "
           "codelet declares it; None where the backend cannot tell (the SDK's API does not say)")
      .def("addVertex",
           [](py::object self, ComputeSet cs, const std::string &type, py::object connections) {
             std::vector<Graph::ConnectionDesc> descs;
             if (!connections.is_none())
               for (auto kv : connections.cast<py::dict>())
                 descs.push_back(connectionDesc(kv.first.cast<std::string>(), kv.second));
             return owned(py::cast(self.cast<Graph &>().addVertex(cs, type, descs)), self);
           },
           py::arg("cs"), py::arg("vertexType"), py::arg("connections") = py::none(),
           "connections: {field: Tensor, list of Tensors, or a number (a plain field's initial value, "
           "an Input's constant edge)}")
      .def("connect", [](Graph &g, const FieldRef &field, py::handle value) { connectValue(g, field, value); },
           py::arg("field"), py::arg("value"))
      .def("setFieldSize", &Graph::setFieldSize, py::arg("field"), py::arg("size"))
      .def("getFieldSize", &Graph::getFieldSize, py::arg("field"))
      .def("setTileMapping", py::overload_cast<VertexRef, unsigned>(&Graph::setTileMapping), py::arg("v"),
           py::arg("tileNum"))
      .def("getTileMapping", py::overload_cast<VertexRef>(&Graph::getTileMapping, py::const_), py::arg("v"))
      .def("setPerfEstimate", py::overload_cast<const VertexRef &, const VertexPerfEstimate &>(&Graph::setPerfEstimate),
           py::arg("v"), py::arg("estimate"))
      .def("setPerfEstimate",
           py::overload_cast<const VertexRef &, std::uint64_t, std::uint64_t>(&Graph::setPerfEstimate), py::arg("v"),
           py::arg("cycles"), py::arg("flops") = 0)
      .def("getPerfEstimate", &Graph::getPerfEstimate, py::arg("v"))
      .def("registerPerfEstimator",
           [](Graph &g, const std::string &vertexType, py::function fn) {
             g.registerPerfEstimator(vertexType, pythonEstimator(std::move(fn)));
           },
           py::arg("vertexTypeName"), py::arg("f"),
           "f(vertex: VertexIntrospector, target: Target) returns cycles, a VertexPerfEstimate or (cycles, flops)")
      .def("getMaxFieldDim", &Graph::getMaxFieldDim, py::arg("vertexName"), py::arg("fieldName"), py::arg("dimIndex"))
      .def("getMaxVertexFieldValue", &Graph::getMaxVertexFieldValue, py::arg("vertexName"), py::arg("fieldName"))
      .def("getMaxVertexFieldValueAs", &maxVertexFieldValueAs, py::arg("vertexName"), py::arg("fieldName"),
           py::arg("dtype"), "getMaxVertexFieldValueAs<T>, with T given as a numpy dtype")
      .def("setInitialValueHalf",
           [](Graph &g, const FieldRef &field, py::handle bits) {
             py::array_t<std::uint16_t, py::array::c_style | py::array::forcecast> a(py::array::ensure(bits));
             if (!a || a.ndim() > 1) throw py::type_error("setInitialValueHalf: expected a uint16 or a 1-D sequence of them");
             if (a.ndim() == 0) g.setInitialValueHalf(field, *a.data());
             else g.setInitialValueHalf(field, ArrayRef<std::uint16_t>(a.data(), static_cast<std::size_t>(a.size())));
           },
           py::arg("field"), py::arg("values"))
      .def("setInitialValue", &setFieldInitialValue, py::arg("field"), py::arg("values"))
      .def("getNumVertices", &Graph::getNumVertices)
      .def("getComputeSets", &Graph::getComputeSets);
}

} // namespace popdsl_bindings
