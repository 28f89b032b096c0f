// poplar::Tensor views and the free functions concat/append.
#include <poplar/Tensor.hpp>

#include <pybind11/operators.h>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindTensor(py::module_ &m) {
  using namespace poplar;
  checkedEnum<UpsampleMethod>(m, "UpsampleMethod").value("REPEAT", UpsampleMethod::REPEAT);

  py::class_<VariableRef>(m, "VariableRef")
      .def_readonly("id", &VariableRef::id)
      .def(py::self == py::self)
      .def("hash", &VariableRef::hash)
      .def("__hash__", &VariableRef::hash);
  py::class_<VariableInterval>(m, "VariableInterval")
      .def_readonly("var", &VariableInterval::var)
      .def_readonly("interval", &VariableInterval::interval)
      .def("__repr__", [](const VariableInterval &v) {
        return "VariableInterval(var=" + std::to_string(v.var.id) + ", [" +
               std::to_string(v.interval.begin()) + ", " + std::to_string(v.interval.end()) + "))";
      });

  using Slices1 = std::vector<Tensor> (Tensor::*)(ArrayRef<Interval>, unsigned) const;
  using Slices2 = std::vector<Tensor> (Tensor::*)(const std::vector<std::vector<Interval>> &, unsigned) const;
  using Slices3 = std::vector<Tensor> (Tensor::*)(const ArrayRef<unsigned> &, unsigned) const;
  py::class_<Tensor>(m, "Tensor", "A view of graph variables; view methods return aliasing tensors")
      .def(py::init<>())
      .def("valid", &Tensor::valid)
      .def("elementType", &Tensor::elementType)
      .def("dim", &Tensor::dim, py::arg("i"))
      .def("rank", &Tensor::rank)
      .def("shape", &Tensor::shape)
      .def("numElements", &Tensor::numElements)
      .def("shapeToString", &Tensor::shapeToString)
      .def("__getitem__", &Tensor::operator[])
      .def("index", &Tensor::index, py::arg("indices"))
      .def("slice", py::overload_cast<std::size_t, std::size_t, unsigned>(&Tensor::slice, py::const_),
           py::arg("begin"), py::arg("end"), py::arg("dimension") = 0)
      .def("slice", py::overload_cast<const Interval &, unsigned>(&Tensor::slice, py::const_),
           py::arg("region"), py::arg("dimension") = 0)
      .def("slice", py::overload_cast<ArrayRef<std::size_t>, ArrayRef<std::size_t>>(&Tensor::slice, py::const_),
           py::arg("begin"), py::arg("end"))
      .def("slices", static_cast<Slices1>(&Tensor::slices), py::arg("intervals"), py::arg("dimension") = 0)
      .def("slices", static_cast<Slices2>(&Tensor::slices), py::arg("intervals"), py::arg("dimension") = 0)
      .def("slices", static_cast<Slices3>(&Tensor::slices), py::arg("indices"), py::arg("dimension") = 0)
      .def("flatten", py::overload_cast<>(&Tensor::flatten, py::const_))
      .def("flatten", py::overload_cast<unsigned, unsigned>(&Tensor::flatten, py::const_),
           py::arg("dimBegin"), py::arg("dimEnd"))
      .def("reshape", &Tensor::reshape, py::arg("shape"))
      .def("reshapePartial", &Tensor::reshapePartial, py::arg("beginIndex"), py::arg("endIndex"), py::arg("newDims"))
      .def("dimShuffle", &Tensor::dimShuffle, py::arg("permutation"))
      .def("dimShufflePartial", &Tensor::dimShufflePartial, py::arg("source"), py::arg("destination"))
      .def("dimRoll", &Tensor::dimRoll, py::arg("dimIdx"), py::arg("newIdx") = 0)
      .def("transpose", &Tensor::transpose)
      .def("expand", &Tensor::expand, py::arg("indices"))
      .def("squeeze", &Tensor::squeeze, py::arg("indices"))
      .def("broadcast", &Tensor::broadcast, py::arg("N"), py::arg("dimension"))
      .def("upsample", &Tensor::upsample, py::arg("scale"), py::arg("dimension"),
           py::arg_v("method", UpsampleMethod::REPEAT, "UpsampleMethod.REPEAT"))
      .def("subSample", &Tensor::subSample, py::arg("stride"), py::arg("dimension"))
      .def("reverse", &Tensor::reverse, py::arg("dimension"))
      .def("reinterpret", &Tensor::reinterpret, py::arg("type"))
      .def("isContiguous", &Tensor::isContiguous)
      .def("containsAliases", &Tensor::containsAliases)
      .def("containsConstant", &Tensor::containsConstant)
      .def("isParallelWriteable", &Tensor::isParallelWriteable)
      .def("intersectsWith", &Tensor::intersectsWith, py::arg("other"))
      .def("getContiguousRegions", &Tensor::getContiguousRegions)
      .def("getVarRegions", &Tensor::getVarRegions)
      .def("getVarStr", &Tensor::getVarStr)
      .def("getDebugStr", &Tensor::getDebugStr)
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def("__hash__", [](const Tensor &) -> std::size_t {
        throw py::type_error("poplar.Tensor is not hashable: == compares the elements it views");
      })
      .def("__iter__", [](const Tensor &t) {
        if (t.rank() == 0) throw py::type_error("iteration over a scalar tensor");
        py::list rows;
        for (std::size_t i = 0; i < t.dim(0); ++i) rows.append(t[i]);
        return py::iter(rows);
      })
      .def("__len__", [](const Tensor &t) {
        if (t.rank() == 0) throw py::type_error("len() of a scalar tensor");
        return t.dim(0);
      })
      .def("__repr__", [](const Tensor &t) {
        return t.valid() ? "<poplar.Tensor " + t.getVarStr() + ">" : std::string("<poplar.Tensor (invalid)>");
      });

  // The two-tensor form first: a Tensor must not be tried as a list of tensors.
  m.def("concat", py::overload_cast<const Tensor &, const Tensor &, unsigned>(&concat),
        py::arg("first"), py::arg("second"), py::arg("dimension") = 0);
  m.def("concat", py::overload_cast<ArrayRef<Tensor>, unsigned>(&concat), py::arg("ts"), py::arg("dimension") = 0);
  m.def("append", py::overload_cast<const Tensor &, const Tensor &, unsigned>(&append),
        py::arg("first"), py::arg("second"), py::arg("dimension") = 0);
}

} // namespace popdsl_bindings
