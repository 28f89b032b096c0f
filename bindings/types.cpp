// poplar::Type and its constants, Interval, OptionFlags helpers.
#include <poplar/Interval.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Type.hpp>

#include <pybind11/operators.h>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {
const std::pair<const char *, const poplar::Type *> kTypeConstants[] = {
    {"BOOL", &poplar::BOOL}, {"CHAR", &poplar::CHAR}, {"UNSIGNED_CHAR", &poplar::UNSIGNED_CHAR},
    {"SIGNED_CHAR", &poplar::SIGNED_CHAR}, {"SHORT", &poplar::SHORT},
    {"SIGNED_SHORT", &poplar::SIGNED_SHORT}, {"UNSIGNED_SHORT", &poplar::UNSIGNED_SHORT},
    {"INT", &poplar::INT}, {"SIGNED_INT", &poplar::SIGNED_INT}, {"SIGNED", &poplar::SIGNED},
    {"UNSIGNED_INT", &poplar::UNSIGNED_INT}, {"UNSIGNED", &poplar::UNSIGNED},
    {"LONG", &poplar::LONG}, {"UNSIGNED_LONG", &poplar::UNSIGNED_LONG},
    {"LONGLONG", &poplar::LONGLONG}, {"UNSIGNED_LONGLONG", &poplar::UNSIGNED_LONGLONG},
    {"QUARTER", &poplar::QUARTER}, {"QUARTER_METADATA", &poplar::QUARTER_METADATA},
    {"HALF", &poplar::HALF}, {"FLOAT", &poplar::FLOAT}, {"DOUBLE", &poplar::DOUBLE},
};

poplar::Interval checkedInterval(std::size_t begin, std::size_t end) {
  if (begin > end)
    throw py::value_error("Interval(" + std::to_string(begin) + ", " + std::to_string(end) +
                          "): begin must not exceed end");
  return poplar::Interval(begin, end);
}

std::string constantName(const poplar::Type &t) {
  for (const auto &c : kTypeConstants)
    if (*c.second == t) return c.first;
  return "Type()";
}
} // namespace

py::dtype numpyDtype(const poplar::Type &t) {
  using namespace poplar;
  if (t == FLOAT) return py::dtype("float32");
  if (t == HALF) return py::dtype("float16");
  if (t == INT) return py::dtype("int32");
  if (t == UNSIGNED_INT) return py::dtype("uint32");
  if (t == SHORT) return py::dtype("int16");
  if (t == UNSIGNED_SHORT) return py::dtype("uint16");
  if (t == CHAR || t == SIGNED_CHAR) return py::dtype("int8");
  if (t == UNSIGNED_CHAR || t == QUARTER || t == QUARTER_METADATA) return py::dtype("uint8");
  if (t == BOOL) return py::dtype("bool");
  if (t == LONGLONG || t == LONG) return py::dtype("int64");
  if (t == UNSIGNED_LONGLONG || t == UNSIGNED_LONG) return py::dtype("uint64");
  if (t == DOUBLE) return py::dtype("float64");
  throw py::type_error("Type " + t.toString().str() + " has no numpy equivalent");
}

void bindTypes(py::module_ &m) {
  py::class_<poplar::Type>(m, "Type", "A device element type; compare with the constants FLOAT, HALF, ...")
      .def(py::init<>())
      .def("toString", [](const poplar::Type &t) { return t.toString().str(); })
      .def("isFloatingPoint", &poplar::Type::isFloatingPoint)
      .def("requiresMetadata", &poplar::Type::requiresMetadata)
      .def_property_readonly("numpy_dtype", &numpyDtype, "The numpy dtype of host buffers for this type")
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def("__hash__", &poplar::Type::hash)
      .def("__str__", [](const poplar::Type &t) { return t.toString().str(); })
      .def("__repr__", [](const poplar::Type &t) { return "poplar." + constantName(t); });
  for (const auto &c : kTypeConstants) m.attr(c.first) = *c.second;

  py::class_<poplar::Interval>(m, "Interval", "A half-open range [begin, end)")
      .def(py::init(&checkedInterval), py::arg("begin"), py::arg("end"))
      .def(py::init([](py::tuple t) {
        if (t.size() != 2) throw py::value_error("Interval needs a (begin, end) pair");
        return checkedInterval(t[0].cast<std::size_t>(), t[1].cast<std::size_t>());
      }))
      .def("begin", &poplar::Interval::begin)
      .def("end", &poplar::Interval::end)
      .def("size", &poplar::Interval::size)
      .def(py::self == py::self)
      .def(py::self < py::self)
      .def("__iter__", [](const poplar::Interval &i) {
        return py::iter(py::make_tuple(i.begin(), i.end()));
      })
      .def("__repr__", [](const poplar::Interval &i) {
        return "Interval(" + std::to_string(i.begin()) + ", " + std::to_string(i.end()) + ")";
      });
  py::implicitly_convertible<py::tuple, poplar::Interval>();

  m.def("readJSON", [](const std::string &json) {
    poplar::OptionFlags flags;
    poplar::readJSON(json, flags);
    return flags;
  }, py::arg("json"), "Parses a JSON object of options into a dict of strings");
}

} // namespace popdsl_bindings
