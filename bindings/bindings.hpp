#pragma once
// One init function per binding file; module.cpp calls them in dependency order.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <sstream>
#include <string>
#include <type_traits>

#include <poplar/Executable.hpp>
#include <poplar/Program.hpp>
#include <poplar/Type.hpp>
#include <poplin/Norms.hpp>

#include "casters.hpp"

namespace popdsl_bindings {
namespace py = pybind11;

void bindExceptions(py::module_ &poplar);
void bindTypes(py::module_ &poplar);
void bindTarget(py::module_ &poplar);
void bindTensor(py::module_ &poplar);
void bindGraph(py::module_ &poplar);
void bindVertices(py::module_ &poplar); // after bindGraph: adds to Graph
void bindProgram(py::module_ &program);
void bindExecutable(py::module_ &poplar); // compileGraph, Executable, RandomSeed.hpp
void bindEngine(py::module_ &poplar);
void bindInstances(py::module_ &poplar);
void bindCycleCount(py::module_ &poplar);
void bindCSRFunctions(py::module_ &poplar); // after bindProgram and bindGraph
void bindPoputil(py::module_ &poputil);
void bindPoputilGraphFunction(py::module_ &poputil); // poputil.graphfn
void bindPopopsExpr(py::module_ &popops);     // popops.expr and the map family
void bindPopops(py::module_ &popops);         // reductions, slicing, fill/cast/pad, scaledAdd
void bindPopopsGroupedSlice(py::module_ &popops);
void bindPopopsSmallHeaders(py::module_ &popops); // Encoding, Loop, Sort, TopK, Gather, GatherStatistics, ...
void bindPoplin(py::module_ &poplin);
void bindPoplinConv(py::module_ &poplin); // poplin/ConvParams.hpp, poplin/Convolution.hpp
void bindPoplinMultiConv(py::module_ &poplin); // poplin.multiconv
void bindPoplinNorms(py::module_ &poplin);     // poplin/Norms.hpp
void bindPopnn(py::module_ &popnn);
void bindPopnnLoss(py::module_ &popnn);       // popnn/Loss.hpp
void bindPopnnPooling(py::module_ &popnn);    // popnn/Pooling.hpp, popnn/PoolingDef.hpp
void bindPopnnNorms(py::module_ &popnn);      // popnn/Norms.hpp and popnn.bn, gn, ln, in_
void bindPoprand(py::module_ &poprand);
void bindGcl(py::module_ &gcl);

// A program or a list of programs (Engine, compileGraph); `what` names the caller in errors.
std::vector<poplar::program::Program> programList(py::handle progs, const char *what);
// A Python reduce(graph, inputs, prog, groupSize, debugContext, options) -> [Tensor]
// callable, or None (no callback); `what` names the caller in errors.
poplin::DistributedNormReduceCallback normReduceCallback(py::object reduce, const char *what);
// A Python progress(done, total) callable, or None.
poplar::ProgressFunc progressFunction(py::object progress);

// The bytes an object's serialize(std::ostream &) writes (Target, Executable).
template <class T> py::bytes serializedBytes(const T &object) {
  std::ostringstream out;
  object.serialize(out);
  return py::bytes(out.str());
}

// What `os << value` writes (a __repr__ from a C++ operator<<).
template <class T> std::string streamed(const T &value) {
  std::ostringstream s;
  s << value;
  return s.str();
}

// py::enum_ makes any integer an enum value (Operation(99)), and the emulator
// looks names up in tables by value. This makes the enum with a constructor,
// tried before pybind11's, that accepts only the members' values.
template <class E> py::enum_<E> checkedEnum(py::handle scope, const char *name) {
  py::enum_<E> e(scope, name);
  py::handle cls = e;
  e.def(py::init([cls](std::underlying_type_t<E> value) {
          std::string members;
          for (auto member : cls.attr("__members__").cast<py::dict>()) {
            if (member.second.cast<E>() == static_cast<E>(value)) return static_cast<E>(value);
            members += (members.empty() ? "" : ", ") + member.first.cast<std::string>();
          }
          throw py::value_error(std::to_string(value) + " is not a valid " +
                                cls.attr("__qualname__").cast<std::string>() + " (members: " + members + ")");
        }),
        py::arg("value"), py::prepend());
  return e;
}

// The numpy dtype that holds elements of a Poplar type in host buffers.
py::dtype numpyDtype(const poplar::Type &type);

} // namespace popdsl_bindings
