// poplar::program: control programs as Python values.
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

#include <pybind11/operators.h>

#include "backend.hpp"
#include "bindings.hpp"

namespace popdsl_bindings {

void bindProgram(py::module_ &m) {
  using namespace poplar;
  using namespace poplar::program;
  const auto dc = py::arg("debugContext") = DebugContext();

  py::class_<PrintTensorFmt> fmt(m, "PrintTensorFmt");
  checkedEnum<PrintTensorFmt::FloatFormat>(fmt, "FloatFormat")
      .value("Auto", PrintTensorFmt::FloatFormat::Auto)
      .value("Fixed", PrintTensorFmt::FloatFormat::Fixed)
      .value("Scientific", PrintTensorFmt::FloatFormat::Scientific)
      .value("None_", PrintTensorFmt::FloatFormat::None);
  fmt.def(py::init<unsigned, unsigned, unsigned, unsigned, PrintTensorFmt::FloatFormat, char, char, char>(),
          py::arg("summariseThreshold") = 1000, py::arg("edgeItems") = 3, py::arg("maxLineWidth") = 75,
          py::arg("digits") = 8, py::arg_v("floatFormat", PrintTensorFmt::FloatFormat::Auto, "PrintTensorFmt.FloatFormat.Auto"),
          py::arg("separator") = ' ', py::arg("openBracket") = '[', py::arg("closeBracket") = ']')
      .def_static("disableFormatting", &PrintTensorFmt::disableFormatting);

  py::class_<Program>(m, "Program")
      .def(py::init<>())
      .def("isEmpty", &Program::isEmpty)
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def("__hash__", [](const Program &p) { return backend::programHash(p); });

  py::class_<Sequence, Program>(m, "Sequence")
      .def(py::init<const std::vector<Program> &, const DebugContext &>(),
           py::arg("programs") = std::vector<Program>(), dc)
      .def("add", &Sequence::add, py::arg("program"));
  py::class_<Execute, Program>(m, "Execute").def(py::init<ComputeSet, const DebugContext &>(), py::arg("cs"), dc);
  py::class_<Loop, Program>(m, "Loop").def(py::init<const Program &, const DebugContext &>(), py::arg("body"), dc);
  py::class_<Block, Program>(m, "Block")
      .def(py::init<const Program &, const DebugContext &>(), py::arg("program"), dc);
  py::class_<CrossReplicaCopy, Program>(m, "CrossReplicaCopy", "Replica k's src to dst of replica replicaMap[k]")
      .def(py::init<const Tensor &, const Tensor &, std::map<unsigned, unsigned>, const DebugContext &>(),
           py::arg("src"), py::arg("dst"), py::arg("replicaMap"), dc);
  py::class_<AssumeEqualAcrossReplicas, Program>(m, "AssumeEqualAcrossReplicas")
      .def(py::init<const Tensor &, const DebugContext &>(), py::arg("t"), dc);
  py::class_<ErrorProgram, Program>(m, "ErrorProgram")
      .def(py::init<StringRef, const Tensor &, const DebugContext &>(), py::arg("message"), py::arg("debugTensor"), dc);
  m.def(
      "dumpProgram",
      [](const Graph &graph, const Program &program) {
        std::ostringstream out;
        dumpProgram(graph, program, out);
        return out.str();
      },
      py::arg("graph"), py::arg("program"), "the dump as a string");
  py::class_<Repeat, Program>(m, "Repeat")
      .def(py::init<unsigned, const Program &, const DebugContext &>(), py::arg("count"), py::arg("body"), dc);
  py::class_<RepeatWhileTrue, Program>(m, "RepeatWhileTrue")
      .def(py::init<const Program &, const Tensor &, const Program &, const DebugContext &>(),
           py::arg("cond"), py::arg("predicate"), py::arg("body"), dc);
  py::class_<RepeatWhileFalse, Program>(m, "RepeatWhileFalse")
      .def(py::init<const Program &, const Tensor &, const Program &, const DebugContext &>(),
           py::arg("cond"), py::arg("predicate"), py::arg("body"), dc);
  py::class_<If, Program>(m, "If")
      .def(py::init<const Tensor &, const Program &, const Program &, const DebugContext &>(),
           py::arg("predicate"), py::arg("trueBody"), py::arg_v("falseBody", Sequence(), "Sequence()"), dc);
  py::class_<Switch, Program>(m, "Switch")
      .def(py::init<const Tensor &, const Switch::CaseList &, const Program &, const DebugContext &>(),
           py::arg("control"), py::arg("cases"), py::arg("defaultCase"), dc)
      .def(py::init<const Tensor &, const Switch::CaseList &, const DebugContext &>(), py::arg("control"),
           py::arg("cases"), dc)
      .def(py::init<const Tensor &, const Program &, const DebugContext &>(), py::arg("control"),
           py::arg("defaultCase"), dc)
      .def(py::init<const Tensor &, const DebugContext &>(), py::arg("control"), dc)
      .def("add", &Switch::add, py::arg("value"), py::arg("body"), py::return_value_policy::reference_internal)
      .def_static("switchWithBoundsChecking", &Switch::switchWithBoundsChecking, py::arg("control"),
                  py::arg("cases"), dc)
      .def_static("switchWithUnreachableDefault", &Switch::switchWithUnreachableDefault, py::arg("control"), dc);
  py::class_<Copy, Program>(m, "Copy")
      .def(py::init<const Tensor &, const Tensor &, bool, const DebugContext &>(), py::arg("src"),
           py::arg("dst"), py::arg("dontOutline") = false, dc)
      .def(py::init<const DataStream &, const Tensor &, bool, const DebugContext &>(), py::arg("stream"),
           py::arg("dst"), py::arg("optimiseMemory") = false, dc)
      .def(py::init<const Tensor &, const DataStream &, bool, const DebugContext &>(), py::arg("src"),
           py::arg("stream"), py::arg("optimiseMemory") = false, dc)
      .def(py::init<const poplar::RemoteBuffer &, const Tensor &, const DebugContext &>(), py::arg("buffer"),
           py::arg("dst"), dc)
      .def(py::init<const poplar::RemoteBuffer &, const Tensor &, const Tensor &, const DebugContext &>(),
           py::arg("buffer"), py::arg("dst"), py::arg("offset"), dc)
      .def(py::init<const Tensor &, const poplar::RemoteBuffer &, const DebugContext &>(), py::arg("src"),
           py::arg("buffer"), dc)
      .def(py::init<const Tensor &, const poplar::RemoteBuffer &, const Tensor &, const DebugContext &>(),
           py::arg("src"), py::arg("buffer"), py::arg("offset"), dc)
      .def(py::init<const poplar::FunctionBuffer &, const Function &, const DebugContext &>(),
           py::arg("buffer"), py::arg("function"), dc);
  py::class_<WriteUndef, Program>(m, "WriteUndef").def(py::init<const Tensor &, const DebugContext &>(), py::arg("t"), dc);
  py::class_<Call, Program>(m, "Call")
      .def(py::init<Function, const DebugContext &>(), py::arg("f"), dc)
      .def(py::init<poplar::HostFunction, poplar::ArrayRef<Tensor>, poplar::ArrayRef<Tensor>, const DebugContext &>(),
           py::arg("f"), py::arg("inputs"), py::arg("outputs"), dc);
  py::class_<PrintTensor, Program>(m, "PrintTensor")
      .def(py::init<const Tensor &, const DebugContext &>(), py::arg("t"), dc)
      .def(py::init<StringRef, const Tensor &, const DebugContext &>(), py::arg("title"), py::arg("t"), dc)
      .def(py::init<const Tensor &, const PrintTensorFmt &, const DebugContext &>(), py::arg("t"),
           py::arg("fmt"), dc)
      .def(py::init<StringRef, const Tensor &, const PrintTensorFmt &, const DebugContext &>(),
           py::arg("title"), py::arg("t"), py::arg("fmt"), dc);
  py::class_<Sync, Program>(m, "Sync").def(py::init<SyncType, const DebugContext &>(), py::arg("type"), dc);
  py::class_<Abort, Program>(m, "Abort")
      .def(py::init<const std::string &, const DebugContext &>(), py::arg("message") = "", dc);
  py::class_<AbortOnCondition, Program>(m, "AbortOnCondition")
      .def(py::init<const Tensor &, const std::string &, const DebugContext &>(), py::arg("predicate"),
           py::arg("message") = "", dc);

  // Bound here rather than with the rest of Graph so that its signature names the Python
  // class Program (bound above) instead of the C++ type.
  auto graph = py::reinterpret_borrow<py::class_<Graph>>(py::type::of<Graph>());
  graph.def("addFunction", &Graph::addFunction, py::arg("program"));
}

} // namespace popdsl_bindings
