#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

namespace poplar {

class DebugContext;

struct poplar_error : std::runtime_error {
  std::string type;
  explicit poplar_error(const std::string &s) : std::runtime_error(s), type("poplar_error") {}
  explicit poplar_error(const char *s) : poplar_error(std::string(s)) {}
  void attachSourceLocation(const DebugContext &) {}

protected:
  poplar_error(const std::string &s, const char *kind) : std::runtime_error(s), type(kind) {}
};

#define POPLAR_DEFINE_ERROR(NAME, BASE)                                                \
  struct NAME : BASE {                                                                 \
    explicit NAME(const std::string &s) : BASE(s, #NAME) {}                            \
    explicit NAME(const char *s) : NAME(std::string(s)) {}                             \
                                                                                       \
  protected:                                                                           \
    NAME(const std::string &s, const char *kind) : BASE(s, kind) {}                    \
  };

POPLAR_DEFINE_ERROR(graph_program_compilation_error, poplar_error)
POPLAR_DEFINE_ERROR(graph_object_creation_error, poplar_error)
POPLAR_DEFINE_ERROR(graph_object_load_error, poplar_error)
POPLAR_DEFINE_ERROR(graph_connection_error, poplar_error)
POPLAR_DEFINE_ERROR(graph_cycle_error, poplar_error)
POPLAR_DEFINE_ERROR(graph_memory_allocation_error, poplar_error)
POPLAR_DEFINE_ERROR(stream_memory_allocation_error, poplar_error)
POPLAR_DEFINE_ERROR(unknown_vertex_type, poplar_error)
POPLAR_DEFINE_ERROR(unknown_field, poplar_error)
POPLAR_DEFINE_ERROR(control_program_error, poplar_error)
POPLAR_DEFINE_ERROR(type_error, poplar_error)
POPLAR_DEFINE_ERROR(invalid_tile_mapping, poplar_error)
POPLAR_DEFINE_ERROR(tensor_creation_error, poplar_error)
POPLAR_DEFINE_ERROR(stream_connection_error, poplar_error)
POPLAR_DEFINE_ERROR(tensor_io_state_error, poplar_error)
POPLAR_DEFINE_ERROR(overflow_error, poplar_error)
POPLAR_DEFINE_ERROR(missing_perf_estimate, poplar_error)
POPLAR_DEFINE_ERROR(profiling_disabled, poplar_error)
POPLAR_DEFINE_ERROR(invalid_option, poplar_error)
POPLAR_DEFINE_ERROR(invalid_machine_model, poplar_error)
POPLAR_DEFINE_ERROR(parse_error, poplar_error)
POPLAR_DEFINE_ERROR(no_size_specified, poplar_error)
POPLAR_DEFINE_ERROR(runtime_error, poplar_error)
POPLAR_DEFINE_ERROR(application_runtime_error, runtime_error)
POPLAR_DEFINE_ERROR(system_runtime_error, runtime_error)

struct index_error : poplar_error {
  explicit index_error(const std::string &s) : poplar_error(s, "index_error") {}
  explicit index_error(const char *s) : index_error(std::string(s)) {}
  index_error(const std::string &s, std::size_t index)
      : poplar_error(s + " (index " + std::to_string(index) + ")", "index_error") {}
};

struct link_error : poplar_error {
  std::string output;
  explicit link_error(const std::string &s, const std::string &log = "")
      : poplar_error(s, "link_error"), output(log) {}
};

#undef POPLAR_DEFINE_ERROR

} // namespace poplar
