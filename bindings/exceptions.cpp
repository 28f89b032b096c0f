// Poplar's exception classes as Python exceptions with the same names and bases, and
// the error codes and recovery actions that device errors carry.
#include <poplar/exceptions.hpp>

#include <cstring>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

// Raises `type` with `message`, whose bytes that are not UTF-8 are escaped (\xff): Poplar's
// messages quote names read from files (a damaged executable's kernel kind), which must
// not turn the error into a UnicodeDecodeError (pybind11's register_exception decodes
// strictly).
void raiseEscaped(py::handle type, const char *message) {
  PyObject *text = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)), "backslashreplace");
  PyErr_SetObject(type.ptr(), text);
  Py_XDECREF(text);
}

// py::register_exception, raising through raiseEscaped.
template <typename CppException>
py::exception<CppException> &registerError(py::module_ &m, const char *name, py::handle base) {
  PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<py::exception<CppException>> storage;
  storage.call_once_and_store_result([&]() { return py::exception<CppException>(m, name, base); });
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const CppException &e) {
      raiseEscaped(storage.get_stored(), e.what());
    }
  });
  return storage.get_stored();
}

} // namespace

void bindExceptions(py::module_ &m) {
  using namespace poplar;
  // Bases are registered before their subclasses: pybind11 tries the newest first.
  auto &base = registerError<poplar_error>(m, "poplar_error", PyExc_RuntimeError);
  auto &runtime = registerError<runtime_error>(m, "runtime_error", base);
  registerError<application_runtime_error>(m, "application_runtime_error", runtime);
  auto &system = registerError<system_runtime_error>(m, "system_runtime_error", runtime);
  registerError<recoverable_runtime_error>(m, "recoverable_runtime_error", system);
  registerError<unrecoverable_runtime_error>(m, "unrecoverable_runtime_error", system);
  registerError<unknown_runtime_error>(m, "unknown_runtime_error", system);
#define POPDSL_ERROR(NAME) registerError<NAME>(m, #NAME, base);
  POPDSL_ERROR(graph_program_compilation_error)
  POPDSL_ERROR(graph_object_creation_error)
  POPDSL_ERROR(graph_object_load_error)
  POPDSL_ERROR(no_environment)
  POPDSL_ERROR(unknown_vertex_type)
  POPDSL_ERROR(unknown_field)
  POPDSL_ERROR(control_program_error)
  POPDSL_ERROR(type_error)
  POPDSL_ERROR(index_error)
  POPDSL_ERROR(no_size_specified)
  POPDSL_ERROR(graph_connection_error)
  POPDSL_ERROR(graph_cycle_error)
  POPDSL_ERROR(graph_recursion_error)
  POPDSL_ERROR(graph_replication_error)
  POPDSL_ERROR(profiling_disabled)
  POPDSL_ERROR(missing_profile_data)
  POPDSL_ERROR(missing_graph_profile)
  POPDSL_ERROR(missing_perf_estimate)
  POPDSL_ERROR(invalid_tile_mapping)
  POPDSL_ERROR(tensor_creation_error)
  POPDSL_ERROR(tensor_io_state_error)
  POPDSL_ERROR(tensor_metadata_error)
  POPDSL_ERROR(stream_connection_error)
  POPDSL_ERROR(overflow_error)
  POPDSL_ERROR(memory_elem_constraints_error)
  POPDSL_ERROR(graph_memory_allocation_error)
  POPDSL_ERROR(stream_memory_allocation_error)
  POPDSL_ERROR(invalid_machine_model)
  POPDSL_ERROR(invalid_option)
  POPDSL_ERROR(link_error)
  POPDSL_ERROR(symbol_error)
  POPDSL_ERROR(file_load_error)
  POPDSL_ERROR(parse_error)
#undef POPDSL_ERROR

  checkedEnum<ErrorCode>(m, "ErrorCode")
      .value("NONE", ErrorCode::NONE)
      .value("UNKNOWN", ErrorCode::UNKNOWN)
      .value("TRAP", ErrorCode::TRAP)
      .value("FLOATING_POINT_INVALID_OPERATION", ErrorCode::FLOATING_POINT_INVALID_OPERATION)
      .value("FLOATING_POINT_DIVIDE_BY_ZERO", ErrorCode::FLOATING_POINT_DIVIDE_BY_ZERO)
      .value("FLOATING_POINT_OVERFLOW", ErrorCode::FLOATING_POINT_OVERFLOW)
      .value("TILE_MEMORY_BANK_CONFLICT", ErrorCode::TILE_MEMORY_BANK_CONFLICT)
      .value("INVALID_EXCHANGE_CONFIGURATION", ErrorCode::INVALID_EXCHANGE_CONFIGURATION)
      .value("INVALID_ADDRESS", ErrorCode::INVALID_ADDRESS)
      .value("INVALID_OPERAND", ErrorCode::INVALID_OPERAND)
      .value("INVALID_PROGRAM_COUNTER", ErrorCode::INVALID_PROGRAM_COUNTER)
      .value("INVALID_INSTRUCTION", ErrorCode::INVALID_INSTRUCTION)
      .value("EXCHANGE_ERROR", ErrorCode::EXCHANGE_ERROR)
      .value("MEMORY_ERROR", ErrorCode::MEMORY_ERROR)
      .value("IPUSOFTERR", ErrorCode::IPUSOFTERR)
      .value("LINK_DOWN", ErrorCode::LINK_DOWN)
      .value("HOST_LINK_DOWN", ErrorCode::HOST_LINK_DOWN)
      .value("HOST_SYNC_TIMEOUT", ErrorCode::HOST_SYNC_TIMEOUT)
      .value("IPU_MEMORY_FAILURE", ErrorCode::IPU_MEMORY_FAILURE);
  m.def("errorCodeToString", &errorCodeToString, py::arg("code"));
  m.def("errorCodeFromString", [](const std::string &name) { return errorCodeFromString(name); },
        py::arg("name"));
  checkedEnum<RecoveryAction>(m, "RecoveryAction")
      .value("IPU_RESET", RecoveryAction::IPU_RESET)
      .value("LINK_RESET", RecoveryAction::LINK_RESET)
      .value("PARTITION_RESET", RecoveryAction::PARTITION_RESET)
      .value("FULL_RESET", RecoveryAction::FULL_RESET);
}

} // namespace popdsl_bindings
