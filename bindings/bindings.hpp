#pragma once
// One init function per binding file; module.cpp calls them in dependency order.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

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
void bindEngine(py::module_ &poplar);
void bindCycleCount(py::module_ &poplar);
void bindPoputil(py::module_ &poputil);
void bindPopopsExpr(py::module_ &popops);     // popops.expr and the map family
void bindPopops(py::module_ &popops);         // reductions, slicing, fill/cast/pad, scaledAdd
void bindPoplin(py::module_ &poplin);
void bindPopnn(py::module_ &popnn);

// The numpy dtype that holds elements of a Poplar type in host buffers.
py::dtype numpyDtype(const poplar::Type &type);

} // namespace popdsl_bindings
