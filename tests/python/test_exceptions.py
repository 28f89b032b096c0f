"""poplar/exceptions.hpp: every exception class of SDK 3.3 with its constructors and
bases, in C++ and as the Python classes of the same names, and the error codes."""
import subprocess

import pytest

from cpp_build import build_program
from popdsl import poplar

# (class, its base) for every exception class; poplar_error derives from std::runtime_error.
HIERARCHY = [
    ("graph_program_compilation_error", "poplar_error"), ("graph_object_creation_error", "poplar_error"),
    ("graph_object_load_error", "poplar_error"), ("no_environment", "poplar_error"),
    ("unknown_vertex_type", "poplar_error"), ("unknown_field", "poplar_error"),
    ("control_program_error", "poplar_error"), ("type_error", "poplar_error"), ("index_error", "poplar_error"),
    ("no_size_specified", "poplar_error"), ("graph_connection_error", "poplar_error"),
    ("graph_cycle_error", "poplar_error"), ("graph_recursion_error", "poplar_error"),
    ("graph_replication_error", "poplar_error"), ("profiling_disabled", "poplar_error"),
    ("missing_profile_data", "poplar_error"), ("missing_graph_profile", "poplar_error"),
    ("missing_perf_estimate", "poplar_error"), ("invalid_tile_mapping", "poplar_error"),
    ("tensor_creation_error", "poplar_error"), ("tensor_io_state_error", "poplar_error"),
    ("tensor_metadata_error", "poplar_error"), ("stream_connection_error", "poplar_error"),
    ("overflow_error", "poplar_error"), ("memory_elem_constraints_error", "poplar_error"),
    ("graph_memory_allocation_error", "poplar_error"), ("stream_memory_allocation_error", "poplar_error"),
    ("invalid_machine_model", "poplar_error"), ("invalid_option", "poplar_error"), ("link_error", "poplar_error"),
    ("runtime_error", "poplar_error"), ("application_runtime_error", "runtime_error"),
    ("system_runtime_error", "runtime_error"), ("recoverable_runtime_error", "system_runtime_error"),
    ("unrecoverable_runtime_error", "system_runtime_error"), ("unknown_runtime_error", "system_runtime_error"),
    ("symbol_error", "poplar_error"), ("file_load_error", "poplar_error"), ("parse_error", "poplar_error"),
]


@pytest.mark.parametrize("name, base", HIERARCHY)
def test_every_exception_class_is_a_python_class_with_its_sdk_base(name, base):
    cls = getattr(poplar, name)
    assert issubclass(cls, getattr(poplar, base)) and issubclass(cls, poplar.poplar_error)
    assert issubclass(poplar.poplar_error, RuntimeError)
    assert str(cls("why")) == "why"


# Each class thrown and caught as its SDK base, printing the type, the message and any extra data.
CONSTRUCTORS = r"""
#include <poplar/DebugContext.hpp>
#include <poplar/exceptions.hpp>
#include <iostream>
using namespace poplar;

template <class Base, class E> void report(const E &e) {
  try {
    throw e;
  } catch (const Base &caught) {
    std::cout << e.type << ": " << caught.what() << "\n";
  }
}

int main() {
  report<std::runtime_error>(poplar_error(std::string("plain")));
  report<poplar_error>(graph_program_compilation_error("compile"));
  report<poplar_error>(graph_object_creation_error(std::string("create")));
  report<poplar_error>(graph_object_load_error("a.gp", "truncated"));
  report<poplar_error>(no_environment("env"));
  report<poplar_error>(unknown_vertex_type(std::string("V")));
  report<poplar_error>(unknown_field("f", "V"));
  report<poplar_error>(unknown_field("field message"));
  report<poplar_error>(control_program_error(std::string("control")));
  report<poplar_error>(type_error("type"));
  report<poplar_error>(index_error("out of range", 7));
  report<poplar_error>(index_error("index"));
  report<poplar_error>(no_size_specified("in", "V"));
  report<poplar_error>(no_size_specified("size"));
  report<poplar_error>(graph_connection_error("connection"));
  report<poplar_error>(graph_cycle_error("cycle"));
  report<poplar_error>(graph_recursion_error("recursion"));
  report<poplar_error>(graph_replication_error("replication"));
  report<poplar_error>(profiling_disabled("profiling"));
  report<poplar_error>(missing_profile_data("profile data"));
  report<poplar_error>(missing_graph_profile("graph profile"));
  report<poplar_error>(missing_perf_estimate(std::string("estimate")));
  report<poplar_error>(invalid_tile_mapping("mapping"));
  report<poplar_error>(tensor_creation_error("creation"));
  report<poplar_error>(tensor_io_state_error("io state"));
  report<poplar_error>(tensor_metadata_error("metadata"));
  report<poplar_error>(stream_connection_error("stream"));
  report<poplar_error>(overflow_error("overflow"));
  report<poplar_error>(memory_elem_constraints_error("elements"));
  report<poplar_error>(graph_memory_allocation_error("graph memory"));
  report<poplar_error>(stream_memory_allocation_error("stream memory"));
  report<poplar_error>(invalid_machine_model("model"));
  report<poplar_error>(invalid_option("option"));
  report<poplar_error>(file_load_error(std::string("file")));
  report<poplar_error>(parse_error("parse"));
  report<poplar_error>(runtime_error("runtime"));
  report<runtime_error>(application_runtime_error("application"));
  report<runtime_error>(system_runtime_error("system"));
  report<system_runtime_error>(unrecoverable_runtime_error("unrecoverable"));
  report<system_runtime_error>(unknown_runtime_error("unknown"));
  report<poplar_error>(symbol_error("vertexState", 3));

  const link_error link("link failed", "undefined symbol x");
  std::cout << link.what() << " / " << link.output << " / " << link_error("bare").output.size() << "\n";
  const link_error linkChars("chars", "log");
  std::cout << linkChars.output << "\n";

  try {
    throw recoverable_runtime_error(RecoveryAction::LINK_RESET, "link down");
  } catch (const system_runtime_error &e) {
    const auto &r = dynamic_cast<const recoverable_runtime_error &>(e);
    std::cout << e.type << ": " << e.what() << " action "
              << (r.getRecoveryAction() == RecoveryAction::LINK_RESET ? "LINK_RESET" : "other") << "\n";
  }
  std::cout << (recoverable_runtime_error(RecoveryAction::FULL_RESET, std::string("x")).getRecoveryAction() ==
                RecoveryAction::FULL_RESET) << "\n";

  poplar_error located("bad shape");
  located.attachSourceLocation(DebugContext("layer1"));
  std::cout << located.what() << "\n";

  std::cout << errorCodeToString(ErrorCode::FLOATING_POINT_OVERFLOW) << " "
            << (errorCodeFromString("IPU_MEMORY_FAILURE") == ErrorCode::IPU_MEMORY_FAILURE) << " "
            << ErrorLocation(12).getTile() << "\n";
  try {
    errorCodeFromString("NOT_A_CODE");
  } catch (const poplar_error &e) {
    std::cout << e.what() << "\n";
  }
}
"""


def test_each_exception_constructor_sets_its_type_and_message_and_is_caught_as_its_base(tmp_path):
    out = subprocess.run([build_program(tmp_path, CONSTRUCTORS, std="c++11")], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[:5] == ["poplar_error: plain", "graph_program_compilation_error: compile",
                       "graph_object_creation_error: create",
                       "graph_object_load_error: Cannot load graph object 'a.gp': truncated",
                       "no_environment: env"]
    assert out[6] == "unknown_field: Vertex type 'V' has no field 'f'"
    assert out[10] == "index_error: out of range (index 7)"
    assert out[12] == "no_size_specified: Field 'in' of vertex 'V' has no size specified"
    assert out[35:41] == ["runtime_error: runtime", "application_runtime_error: application",
                          "system_runtime_error: system", "unrecoverable_runtime_error: unrecoverable",
                          "unknown_runtime_error: unknown",
                          "symbol_error: Symbol 'vertexState' cannot be placed on tile 3"]
    # Every other line is "<class>: <the message given>".
    names = [line.split(":")[0] for line in out[:41]]
    assert set(names) == {name for name, _ in HIERARCHY if name not in ("link_error", "recoverable_runtime_error")} \
        | {"poplar_error"}
    assert out[41:] == [
        "link failed / undefined symbol x / 0",
        "log",
        "recoverable_runtime_error: link down action LINK_RESET",
        "1",
        "bad shape (at 'layer1')",
        "FLOATING_POINT_OVERFLOW 1 12",
        "errorCodeFromString: 'NOT_A_CODE' names no error code",
    ]


def test_error_codes_and_recovery_actions_in_python():
    for code in poplar.ErrorCode.__members__.values():
        assert poplar.errorCodeFromString(poplar.errorCodeToString(code)) == code
    assert poplar.errorCodeToString(poplar.ErrorCode.TILE_MEMORY_BANK_CONFLICT) == "TILE_MEMORY_BANK_CONFLICT"
    assert list(poplar.ErrorCode.__members__) == [
        "NONE", "UNKNOWN", "TRAP", "FLOATING_POINT_INVALID_OPERATION", "FLOATING_POINT_DIVIDE_BY_ZERO",
        "FLOATING_POINT_OVERFLOW", "TILE_MEMORY_BANK_CONFLICT", "INVALID_EXCHANGE_CONFIGURATION", "INVALID_ADDRESS",
        "INVALID_OPERAND", "INVALID_PROGRAM_COUNTER", "INVALID_INSTRUCTION", "EXCHANGE_ERROR", "MEMORY_ERROR",
        "IPUSOFTERR", "LINK_DOWN", "HOST_LINK_DOWN", "HOST_SYNC_TIMEOUT", "IPU_MEMORY_FAILURE"]
    with pytest.raises(poplar.poplar_error, match="'TRAPPED' names no error code"):
        poplar.errorCodeFromString("TRAPPED")
    assert [a.name for a in poplar.RecoveryAction.__members__.values()] == [
        "IPU_RESET", "LINK_RESET", "PARTITION_RESET", "FULL_RESET"]
