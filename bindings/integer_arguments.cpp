// The note an integer caster leaves when it refuses a Python int for its range, and the
// dispatcher that turns pybind11's "incompatible function arguments" into a message
// naming that argument (integer_arguments.hpp says why).
#include "integer_arguments.hpp"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace popdsl_bindings {

namespace {

namespace py = pybind11;

struct RefusedInteger {
  PyObject *value = nullptr; // a strong reference while noted
  const char *cType = "";
  long long minimum = 0;
  unsigned long long maximum = 0;
};

// Per thread: each thread's calls resolve their overloads on their own.
thread_local RefusedInteger refused;

void forgetRefusedInteger() {
  Py_CLEAR(refused.value);
}

using FastCall = PyObject *(*)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);
FastCall pybind11Dispatcher = nullptr;

bool isOverloadFailure() {
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return false;
  PyObject *type, *error, *traceback;
  PyErr_Fetch(&type, &error, &traceback);
  PyErr_NormalizeException(&type, &error, &traceback);
  bool failure = false;
  if (PyObject *text = error ? PyObject_Str(error) : nullptr) {
    const char *utf8 = PyUnicode_AsUTF8(text);
    failure = utf8 && (std::string(utf8).find("(): incompatible function arguments") != std::string::npos ||
                       std::string(utf8).find("(): incompatible constructor arguments") != std::string::npos);
    Py_DECREF(text);
  }
  PyErr_Clear();
  PyErr_Restore(type, error, traceback);
  return failure;
}

std::string shortModuleName(const std::string &name) {
  for (const char *prefix : {"popdsl._core.", "popdsl."})
    if (name.rfind(prefix, 0) == 0) return name.substr(std::string(prefix).size());
  return name;
}

// "program.Repeat()", "Tensor.broadcast()", "popops.iota()": as the user wrote the call.
std::string functionName(const py::detail::function_record &f) {
  if (PyType_Check(f.scope.ptr())) {
    const std::string owner = py::str(f.scope.attr("__qualname__"));
    if (f.is_constructor) return shortModuleName(py::str(f.scope.attr("__module__"))) + "." + owner + "()";
    return owner + "." + f.name + "()";
  }
  return shortModuleName(py::str(f.scope.attr("__name__"))) + "." + f.name + "()";
}

// "[k]" or "[k][j]"...: where `value` sits inside nested lists and tuples (shapes, a
// Switch's cases), searched `levels` deep; empty when it is not there.
std::string pathInside(PyObject *container, PyObject *value, int levels) {
  if (levels == 0 || !(PyList_Check(container) || PyTuple_Check(container))) return "";
  py::sequence items = py::reinterpret_borrow<py::sequence>(container);
  for (std::size_t k = 0; k < items.size(); ++k) {
    PyObject *item = items[k].ptr();
    if (item == value) return "[" + std::to_string(k) + "]";
    const std::string deeper = pathInside(item, value, levels - 1);
    if (!deeper.empty()) return "[" + std::to_string(k) + "]" + deeper;
  }
  return "";
}

// Where `value` sits in the call: "count", "shape[1]" or "argument 2"; empty when not found.
std::string argumentName(const py::detail::function_record &overloads, PyObject *const *args, Py_ssize_t positional,
                         PyObject *kwnames, PyObject *value) {
  const auto nameAt = [&](Py_ssize_t i) -> std::string {
    for (const py::detail::function_record *f = &overloads; f; f = f->next)
      if (static_cast<std::size_t>(i) < f->args.size() && f->args[i].name) return f->args[i].name;
    return "argument " + std::to_string(i + (overloads.is_method ? 0 : 1));
  };
  const Py_ssize_t keywords = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  const auto nameOf = [&](Py_ssize_t i) -> std::string {
    return i < positional ? nameAt(i) : std::string(py::str(PyTuple_GET_ITEM(kwnames, i - positional)));
  };
  for (Py_ssize_t i = 0; i < positional + keywords; ++i)
    if (args[i] == value) return nameOf(i);
  for (Py_ssize_t i = 0; i < positional + keywords; ++i) {
    const std::string path = pathInside(args[i], value, 3);
    if (!path.empty()) return nameOf(i) + path;
  }
  return "";
}

// Property setters have no name of their own: "IPUModel.tilesPerIPU", recorded when rerouted.
std::unordered_map<const py::detail::function_record *, std::string> setterNames;

std::string rangeErrorMessage(PyObject *self, PyObject *const *args, Py_ssize_t positional, PyObject *kwnames) {
  const py::detail::function_record &overloads = *py::detail::function_record_ptr_from_PyObject(self);
  const auto setter = setterNames.find(&overloads);
  if (setter != setterNames.end())
    return setter->second + ": the value must be an integer in [" + std::to_string(refused.minimum) + ", " +
           std::to_string(refused.maximum) + "] (C++ " + refused.cType + "), got " +
           std::string(py::repr(refused.value));
  const std::string argument = argumentName(overloads, args, positional, kwnames, refused.value);
  const std::string range = "[" + std::to_string(refused.minimum) + ", " + std::to_string(refused.maximum) + "]";
  std::string shown = py::repr(refused.value);
  if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
  return functionName(overloads) + ": " + (argument.empty() ? "an integer argument" : "argument '" + argument + "'") +
         " must be an integer in " + range + " (C++ " + refused.cType + "), got " + shown;
}

// CPython passes METH_FASTCALL functions the count of positional arguments, flags removed.
PyObject *dispatchNamingIntegers(PyObject *self, PyObject *const *args, Py_ssize_t positional, PyObject *kwnames) {
  // Calls nest (pybind11's error message calls the arguments' __repr__, which may be bound
  // too): the enclosing call's note is set aside meanwhile.
  const RefusedInteger enclosing = std::exchange(refused, RefusedInteger{});
  PyObject *result = pybind11Dispatcher(self, args, positional, kwnames);
  if (!result && refused.value && isOverloadFailure()) {
    PyObject *type, *error, *traceback;
    PyErr_Fetch(&type, &error, &traceback);
    try {
      const std::string message = rangeErrorMessage(self, args, positional, kwnames);
      Py_XDECREF(type);
      Py_XDECREF(error);
      Py_XDECREF(traceback);
      PyErr_SetString(PyExc_ValueError, message.c_str());
    } catch (...) { // naming failed (a repr raised): pybind11's own error stands
      PyErr_Clear();
      PyErr_Restore(type, error, traceback);
    }
  }
  forgetRefusedInteger();
  refused = enclosing;
  return result;
}

FastCall dispatcherOf(PyObject *function) {
  return reinterpret_cast<FastCall>(reinterpret_cast<void (*)()>(PyCFunction_GET_FUNCTION(function)));
}

// A pybind11 function of this module (dispatched by this module's pybind11) is rerouted;
// anything else, or one rerouted already, is left alone.
void reroute(PyObject *function) {
  if (!function || !PyCFunction_Check(function) || dispatcherOf(function) != pybind11Dispatcher) return;
  PyObject *self = PyCFunction_GET_SELF(function);
  if (!self || !py::detail::function_record_ptr_from_PyObject(self)) return;
  reinterpret_cast<PyCFunctionObject *>(function)->m_ml->ml_meth =
      reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(dispatchNamingIntegers));
}

// The function a class attribute `name` of `owner` holds: a method, a static method, or a
// property's accessors.
void rerouteAttribute(py::handle value, py::handle owner, const std::string &name) {
  PyObject *v = value.ptr();
  if (PyInstanceMethod_Check(v)) return reroute(PyInstanceMethod_GET_FUNCTION(v));
  if (py::isinstance<py::staticmethod>(value)) return reroute(value.attr("__func__").ptr());
  if (PyObject_TypeCheck(v, &PyProperty_Type)) {
    for (const char *accessor : {"fget", "fset", "fdel"}) rerouteAttribute(value.attr(accessor), owner, name);
    py::handle setter = value.attr("fset");
    if (PyInstanceMethod_Check(setter.ptr())) setter = PyInstanceMethod_GET_FUNCTION(setter.ptr());
    if (PyCFunction_Check(setter.ptr()))
      if (const auto *record = py::detail::function_record_ptr_from_PyObject(PyCFunction_GET_SELF(setter.ptr())))
        setterNames[record] = std::string(py::str(owner.attr("__qualname__"))) + "." + name;
    return;
  }
  reroute(v);
}

void rerouteScope(py::handle scope, const std::string &root, std::unordered_set<PyObject *> &seen) {
  if (!seen.insert(scope.ptr()).second) return;
  // A class's __dict__ is a mappingproxy: its items() copied, not walked as a dict.
  for (py::handle item : py::list(scope.attr("__dict__").attr("items")())) {
    py::handle key = py::reinterpret_borrow<py::tuple>(item)[0];
    py::handle value = py::reinterpret_borrow<py::tuple>(item)[1];
    if (PyModule_Check(value.ptr()) || PyType_Check(value.ptr())) {
      const std::string module = py::str(py::getattr(value, PyModule_Check(value.ptr()) ? "__name__" : "__module__",
                                                      py::str("")));
      if (module.rfind(root, 0) == 0) rerouteScope(value, root, seen);
    } else {
      rerouteAttribute(value, scope, py::str(key));
    }
  }
}

} // namespace

void noteRefusedInteger(py::handle value, const char *cType, long long minimum, unsigned long long maximum) {
  forgetRefusedInteger();
  refused = {value.inc_ref().ptr(), cType, minimum, maximum};
}

void nameRefusedIntegers(py::module_ &module) {
  pybind11Dispatcher = dispatcherOf(py::cpp_function([] {}).ptr()); // every function of this module shares it
  std::unordered_set<PyObject *> seen;
  rerouteScope(module, py::str(module.attr("__name__")), seen);
}

} // namespace popdsl_bindings
