#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

#include <poplar/StringRef.hpp>

namespace poplar {

class DebugContext;

// What went wrong on a device, as Engine errors report it.
enum class ErrorCode {
  NONE,
  UNKNOWN,
  TRAP,
  FLOATING_POINT_INVALID_OPERATION,
  FLOATING_POINT_DIVIDE_BY_ZERO,
  FLOATING_POINT_OVERFLOW,
  TILE_MEMORY_BANK_CONFLICT,
  INVALID_EXCHANGE_CONFIGURATION,
  INVALID_ADDRESS,
  INVALID_OPERAND,
  INVALID_PROGRAM_COUNTER,
  INVALID_INSTRUCTION,
  EXCHANGE_ERROR,
  MEMORY_ERROR,
  IPUSOFTERR,
  LINK_DOWN,
  HOST_LINK_DOWN,
  HOST_SYNC_TIMEOUT,
  IPU_MEMORY_FAILURE,
};

// The enumerator's name ("FLOATING_POINT_OVERFLOW"); errorCodeFromString reads it
// back and throws poplar_error for any other string.
std::string errorCodeToString(ErrorCode code);
ErrorCode errorCodeFromString(StringRef name);

// Where on the device an error happened: its tile.
class ErrorLocation {
public:
  explicit ErrorLocation(unsigned tile);
  unsigned getTile() const;

private:
  unsigned tile_;
};

struct poplar_error : std::runtime_error {
  // The class's own name ("poplar_error", "index_error", ...).
  std::string type;
  explicit poplar_error(const std::string &s);
  explicit poplar_error(const char *s);
  // Appends the debug context's path to the message, so it names the call that failed.
  void attachSourceLocation(const DebugContext &debugContext);
  const char *what() const noexcept override;

protected:
  poplar_error(const std::string &s, const char *kind);

private:
  std::string message_;
};

// A subclass of BASE named NAME, constructed from a message like poplar_error.
#define POPLAR_DECLARE_ERROR(NAME, BASE)                                                 \
  struct NAME : BASE {                                                                   \
    explicit NAME(const std::string &s) : BASE(s, #NAME) {}                              \
    explicit NAME(const char *s) : NAME(std::string(s)) {}                               \
                                                                                         \
  protected:                                                                             \
    NAME(const std::string &s, const char *kind) : BASE(s, kind) {}                      \
  };

POPLAR_DECLARE_ERROR(graph_program_compilation_error, poplar_error)
POPLAR_DECLARE_ERROR(graph_object_creation_error, poplar_error)
POPLAR_DECLARE_ERROR(no_environment, poplar_error)
POPLAR_DECLARE_ERROR(unknown_vertex_type, poplar_error)
POPLAR_DECLARE_ERROR(control_program_error, poplar_error)
POPLAR_DECLARE_ERROR(type_error, poplar_error)
POPLAR_DECLARE_ERROR(graph_connection_error, poplar_error)
POPLAR_DECLARE_ERROR(graph_cycle_error, poplar_error)
POPLAR_DECLARE_ERROR(graph_recursion_error, poplar_error)
POPLAR_DECLARE_ERROR(graph_replication_error, poplar_error)
POPLAR_DECLARE_ERROR(profiling_disabled, poplar_error)
POPLAR_DECLARE_ERROR(missing_profile_data, poplar_error)
POPLAR_DECLARE_ERROR(missing_graph_profile, poplar_error)
POPLAR_DECLARE_ERROR(missing_perf_estimate, poplar_error)
POPLAR_DECLARE_ERROR(invalid_tile_mapping, poplar_error)
POPLAR_DECLARE_ERROR(tensor_creation_error, poplar_error)
POPLAR_DECLARE_ERROR(tensor_io_state_error, poplar_error)
POPLAR_DECLARE_ERROR(tensor_metadata_error, poplar_error)
POPLAR_DECLARE_ERROR(stream_connection_error, poplar_error)
POPLAR_DECLARE_ERROR(overflow_error, poplar_error)
POPLAR_DECLARE_ERROR(memory_elem_constraints_error, poplar_error)
POPLAR_DECLARE_ERROR(graph_memory_allocation_error, poplar_error)
POPLAR_DECLARE_ERROR(stream_memory_allocation_error, poplar_error)
POPLAR_DECLARE_ERROR(invalid_machine_model, poplar_error)
POPLAR_DECLARE_ERROR(invalid_option, poplar_error)
POPLAR_DECLARE_ERROR(file_load_error, poplar_error)
POPLAR_DECLARE_ERROR(parse_error, poplar_error)
POPLAR_DECLARE_ERROR(runtime_error, poplar_error)
POPLAR_DECLARE_ERROR(application_runtime_error, runtime_error)
POPLAR_DECLARE_ERROR(system_runtime_error, runtime_error)
POPLAR_DECLARE_ERROR(unrecoverable_runtime_error, system_runtime_error)
POPLAR_DECLARE_ERROR(unknown_runtime_error, system_runtime_error)

#undef POPLAR_DECLARE_ERROR

// A graph object file that could not be loaded: its path and why.
struct graph_object_load_error : poplar_error {
  graph_object_load_error(const std::string &path, const std::string &error);
  std::string path;
};

// A field a vertex type does not have; the two-string form names the field and the vertex type.
struct unknown_field : poplar_error {
  explicit unknown_field(const std::string &s);
  explicit unknown_field(const char *s);
  unknown_field(const std::string &fieldName, const std::string &vertexTypeName);
};

struct index_error : poplar_error {
  explicit index_error(const std::string &s);
  explicit index_error(const char *s);
  index_error(const std::string &s, std::size_t index);
};

// A vector-list field whose size was never given; the two-string form names the field and the vertex type.
struct no_size_specified : poplar_error {
  explicit no_size_specified(const std::string &s);
  explicit no_size_specified(const char *s);
  no_size_specified(const std::string &fieldName, const std::string &vertexName);
};

// A failed link; `output` holds the linker's messages.
struct link_error : poplar_error {
  explicit link_error(const std::string &s, const std::string &log = "");
  explicit link_error(const char *s, const char *log = "");
  std::string output;
};

// What the system must do to recover from a recoverable_runtime_error.
enum class RecoveryAction { IPU_RESET, LINK_RESET, PARTITION_RESET, FULL_RESET };

struct recoverable_runtime_error : system_runtime_error {
  recoverable_runtime_error(RecoveryAction action, const std::string &message);
  recoverable_runtime_error(RecoveryAction action, const char *message);
  RecoveryAction getRecoveryAction() const;

private:
  RecoveryAction action_;
};

// A symbol the linker could not place: the message and the tile.
struct symbol_error : poplar_error {
  symbol_error(const std::string &symbol, const unsigned tile);
  std::string symbol;
  unsigned tile;
};

} // namespace poplar
