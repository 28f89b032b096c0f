// poputil.graphfn: graph functions built from Python callables. The callable runs once,
// while the function is built; each call only adds copies and a Call.
#include <poputil/GraphFunction.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

using namespace poputil::graphfn;
using poplar::Tensor;
using poplar::program::Sequence;

py::list toList(const std::vector<Tensor> &ts) {
  py::list out;
  for (const Tensor &t : ts) {
    if (t.valid())
      out.append(t);
    else
      out.append(py::none());
  }
  return out;
}

// None stands for a created argument not set yet.
std::vector<Tensor> fromList(const py::list &ts) {
  std::vector<Tensor> out;
  for (py::handle h : ts) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  return out;
}

// The body sees a list it may assign created arguments into; they are read back after.
void runVoidBody(const py::function &f, std::vector<Tensor> &params, Sequence &body) {
  py::list args = toList(params);
  f(args, py::cast(&body, py::return_value_policy::reference));
  params = fromList(args);
}

} // namespace

void bindPoputilGraphFunction(py::module_ &poputil) {
  auto m = poputil.def_submodule("graphfn", "namespace poputil::graphfn");
  py::enum_<ArgType>(m, "ArgType")
      .value("InputArg", InputArg)
      .value("OutputArg", OutputArg)
      .value("InOutArg", InOutArg)
      .value("CreatedArg", CreatedArg)
      .export_values();
  py::class_<ArgSig>(m, "ArgSig")
      .def(py::init<ArgType, Tensor, std::string>(), py::arg("type"), py::arg("tensor"), py::arg("debugName"))
      .def_readwrite("type", &ArgSig::type)
      .def_readwrite("similarTensor", &ArgSig::similarTensor)
      .def_readwrite("debugName", &ArgSig::debugName);
  m.def("input", &input, py::arg("similar"), py::arg("debugName") = "");
  m.def("inout", &inout, py::arg("similar"), py::arg("debugName") = "");
  m.def("output", &output, py::arg("similar"), py::arg("debugName") = "");
  m.def("created", &created, py::arg("debugName") = "");

  const auto dc = py::arg("debugContext") = poplar::DebugContext();
  py::class_<VoidFunction>(m, "VoidFunction", "f(args, seq) builds the body once; calls copy in and out")
      .def(py::init([](poplar::Graph &g, Signature sig, py::function f, bool inlined, const poplar::DebugContext &d) {
             return VoidFunction(g, std::move(sig),
                                 [&f](std::vector<Tensor> &params, Sequence &body) { runVoidBody(f, params, body); },
                                 inlined, d);
           }),
           py::arg("graph"), py::arg("sig"), py::arg("f"), py::arg("inlined") = false, dc, py::keep_alive<1, 2>())
      .def("__call__", [](VoidFunction &fn, const py::list &args, Sequence &seq, const poplar::DebugContext &d) {
             std::vector<Tensor> ts = fromList(args);
             fn(ts, seq, d);
             return toList(ts);
           },
           py::arg("args"), py::arg("seq"), py::arg("dc") = poplar::DebugContext(),
           "Adds the call to seq; returns the arguments with the created ones set");
  py::class_<ProgramFunction>(m, "ProgramFunction", "f(args) -> Program builds the body once")
      .def(py::init([](poplar::Graph &g, Signature sig, py::function f, bool inlined, const poplar::DebugContext &d) {
             return ProgramFunction(g, std::move(sig),
                                    [&f](std::vector<Tensor> &params) {
                                      py::list args = toList(params);
                                      poplar::program::Program body = f(args).cast<poplar::program::Program>();
                                      params = fromList(args);
                                      return body;
                                    },
                                    inlined, d);
           }),
           py::arg("graph"), py::arg("sig"), py::arg("f"), py::arg("inlined") = false, dc, py::keep_alive<1, 2>())
      .def("__call__", [](ProgramFunction &fn, const py::list &args, const poplar::DebugContext &d) {
             std::vector<Tensor> ts = fromList(args);
             return fn(ts, d);
           },
           py::arg("args"), dc);
  py::class_<TensorFunction>(m, "TensorFunction", "f(args, seq) -> Tensor builds the body once")
      .def(py::init([](poplar::Graph &g, Signature sig, py::function f, bool inlined, const poplar::DebugContext &d) {
             return TensorFunction(g, std::move(sig),
                                   [&f](std::vector<Tensor> &params, Sequence &body) {
                                     py::list args = toList(params);
                                     Tensor result =
                                         f(args, py::cast(&body, py::return_value_policy::reference)).cast<Tensor>();
                                     params = fromList(args);
                                     return result;
                                   },
                                   inlined, d);
           }),
           py::arg("graph"), py::arg("sig"), py::arg("f"), py::arg("inlined") = false, dc, py::keep_alive<1, 2>())
      .def("__call__", [](TensorFunction &fn, const py::list &args, Sequence &prog, const poplar::DebugContext &d) {
             std::vector<Tensor> ts = fromList(args);
             return fn(ts, prog, d);
           },
           py::arg("args"), py::arg("prog"), dc);
}

} // namespace popdsl_bindings
