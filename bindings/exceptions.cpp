// Poplar's exception classes as Python exceptions with the same names and bases.
#include <poplar/exceptions.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindExceptions(py::module_ &m) {
  using namespace poplar;
  // Bases are registered before their subclasses: pybind11 tries the newest first.
  auto base = py::register_exception<poplar_error>(m, "poplar_error", PyExc_RuntimeError);
  auto runtime = py::register_exception<runtime_error>(m, "runtime_error", base);
  py::register_exception<application_runtime_error>(m, "application_runtime_error", runtime);
  py::register_exception<system_runtime_error>(m, "system_runtime_error", runtime);
  py::register_exception<index_error>(m, "index_error", base);
  py::register_exception<link_error>(m, "link_error", base);
#define POPDSL_ERROR(NAME) py::register_exception<NAME>(m, #NAME, base);
  POPDSL_ERROR(graph_program_compilation_error)
  POPDSL_ERROR(graph_object_creation_error)
  POPDSL_ERROR(graph_object_load_error)
  POPDSL_ERROR(graph_connection_error)
  POPDSL_ERROR(graph_cycle_error)
  POPDSL_ERROR(graph_memory_allocation_error)
  POPDSL_ERROR(stream_memory_allocation_error)
  POPDSL_ERROR(unknown_vertex_type)
  POPDSL_ERROR(unknown_field)
  POPDSL_ERROR(control_program_error)
  POPDSL_ERROR(type_error)
  POPDSL_ERROR(invalid_tile_mapping)
  POPDSL_ERROR(tensor_creation_error)
  POPDSL_ERROR(stream_connection_error)
  POPDSL_ERROR(tensor_io_state_error)
  POPDSL_ERROR(overflow_error)
  POPDSL_ERROR(missing_perf_estimate)
  POPDSL_ERROR(profiling_disabled)
  POPDSL_ERROR(invalid_option)
  POPDSL_ERROR(invalid_machine_model)
  POPDSL_ERROR(parse_error)
  POPDSL_ERROR(no_size_specified)
#undef POPDSL_ERROR
}

} // namespace popdsl_bindings
