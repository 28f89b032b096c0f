#pragma once
// One init function per binding file; module.cpp calls them in dependency order.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <sstream>

#include <poplar/Executable.hpp>
#include <poplar/Program.hpp>
#include <poplar/Type.hpp>

#include "casters.hpp"

namespace popdsl_bindings {
namespace py = pybind11;

void bindExceptions(py::module_ &poplar);
void bindTypes(py::module_ &poplar);
void bindTarget(py::module_ &poplar);
void bindTensor(py::module_ &poplar);
void bindGraph(py::module_ &poplar);
void bindProgram(py::module_ &program);
void bindExecutable(py::module_ &poplar); // compileGraph, Executable, RandomSeed.hpp
void bindEngine(py::module_ &poplar);
void bindCycleCount(py::module_ &poplar);
void bindPoputil(py::module_ &poputil);
void bindPopopsExpr(py::module_ &popops);     // popops.expr and the map family
void bindPopops(py::module_ &popops);         // reductions, slicing, fill/cast/pad, scaledAdd
void bindPoplin(py::module_ &poplin);
void bindPopnn(py::module_ &popnn);

// A program or a list of programs (Engine, compileGraph); `what` names the caller in errors.
std::vector<poplar::program::Program> programList(py::handle progs, const char *what);
// A Python progress(done, total) callable, or None.
poplar::ProgressFunc progressFunction(py::object progress);

// The bytes an object's serialize(std::ostream &) writes (Target, Executable).
template <class T> py::bytes serializedBytes(const T &object) {
  std::ostringstream out;
  object.serialize(out);
  return py::bytes(out.str());
}

// The numpy dtype that holds elements of a Poplar type in host buffers.
py::dtype numpyDtype(const poplar::Type &type);

} // namespace popdsl_bindings
