// compileGraph and Executable (serialized to and from Python bytes), and the
// hardware-seed functions of RandomSeed.hpp.
#include <poplar/Executable.hpp>
#include <poplar/RandomSeed.hpp>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <sstream>

#include "backend.hpp"
#include "bindings.hpp"

namespace popdsl_bindings {

std::vector<poplar::program::Program> programList(py::handle progs, const char *what) {
  if (py::isinstance<poplar::program::Program>(progs)) return {progs.cast<poplar::program::Program>()};
  try {
    return progs.cast<std::vector<poplar::program::Program>>();
  } catch (const py::cast_error &) {
    throw py::type_error(std::string(what) + ": programs must be a program::Program or a list of them, got " +
                         std::string(py::repr(progs)));
  }
}

namespace {

// A name read from an executable as a str, its bytes that are not UTF-8 escaped (\xff):
// a damaged file must not make py::str raise UnicodeDecodeError.
py::str escapedName(const std::string &name) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(name.data(), static_cast<Py_ssize_t>(name.size()), "backslashreplace"));
}

} // namespace

poplar::ProgressFunc progressFunction(py::object progress) {
  if (progress.is_none()) return {};
  return progress.cast<std::function<void(int, int)>>();
}

void bindExecutable(py::module_ &m) {
  using poplar::Executable;
  py::class_<Executable>(m, "Executable")
      .def("serialize", &serializedBytes<Executable>,
           "The executable as bytes (Executable::serialize)")
      .def_static("deserialize",
                  [](py::bytes data, bool checkPackageHash) {
                    std::istringstream in{std::string(data)};
                    return Executable::deserialize(in, checkPackageHash);
                  },
                  py::arg("data"), py::arg("checkPackageHash") = true);
  m.def("compileGraph",
        [](const poplar::Graph &graph, py::object progs, const poplar::OptionFlags &options, py::object progress) {
          return poplar::compileGraph(graph, programList(progs, "compileGraph"), options, progressFunction(progress));
        },
        py::arg("graph"), py::arg("programs"), py::arg("options") = poplar::OptionFlags(),
        py::arg("progress") = py::none());
  m.def("_executableSections",
        [](const Executable &exe) {
          py::dict sections;
          for (const auto &s : backend::executableSections(exe)) sections[py::str(s.first)] = py::bytes(s.second);
          return sections;
        },
        "Emulator: the canonical serialized sections (target, graph, programs, options), for cache keys");
  m.def("_serializedSections",
        [](py::bytes data) {
          py::dict sections;
          for (const auto &s : backend::serializedExecutableSections(std::string(data)))
            sections[py::str(s.first)] = py::bytes(s.second);
          return sections;
        },
        py::arg("data"),
        "Emulator: the canonical sections of a serialized executable, read without building it (nothing in it "
        "is compiled)");
  m.def("_serializedCodelets",
        [](py::bytes data) -> py::object {
          const auto names = backend::serializedExecutableCodelets(std::string(data));
          if (!names) return py::none();
          py::list out;
          for (const std::string &name : *names) out.append(escapedName(name));
          return out;
        },
        py::arg("data"),
        "The names of the codelets Executable.deserialize(data) would compile and load into this process, read "
        "without compiling any (names not UTF-8 are escaped); None on the sdk backend, whose executables hold "
        "IPU code");
  m.def("_executableInterface",
        [](const Executable &exe) -> py::object {
          const backend::ExecutableInterface interface = backend::executableInterface(exe);
          if (!interface.available) return py::none();
          py::dict streams, hostFunctions;
          for (const auto &s : interface.streams)
            streams[escapedName(s.handle())] = py::make_tuple(s.elementType(), s.numElements(),
                                                          s.type() == poplar::DataStreamType::HostToDeviceFIFO);
          for (const auto &f : interface.hostFunctions)
            hostFunctions[escapedName(f.handle)] = py::make_tuple(f.ins, f.outs);
          return py::make_tuple(streams, hostFunctions);
        },
        "Emulator: the executable's data streams (handle -> (element type, number of elements, to device)) and "
        "host functions (handle -> (inputs, outputs), lists of (element type, number of elements)); None on the "
        "sdk backend, which cannot look inside an executable");
  m.def("getHwSeeds", &poplar::getHwSeeds, py::arg("graph"), py::arg("prog"),
        py::arg("debugContext") = poplar::DebugContext());
  m.def("setHwSeeds", &poplar::setHwSeeds, py::arg("graph"), py::arg("hwSeeds"), py::arg("prog"),
        py::arg("debugContext") = poplar::DebugContext());
}

} // namespace popdsl_bindings
