"""The small poplar headers around a graph, through tests/cpp/graph_elements_api.cpp built
against the SDK-shaped prefix: GraphElements.hpp, HostFunctionCallback.hpp,
TensorCloneMethod.hpp, SyncType.hpp, VariableMappingMethod.hpp, PrintTensor.hpp,
PerfEstimateFunc.hpp, VertexIntrospector.hpp and Vertex.hpp's vertex kinds. The program
prints "label: value" lines; the values here are worked out by hand."""
import subprocess
from pathlib import Path

import pytest

from cpp_build import build_program, compiler

PROGRAM = Path(__file__).resolve().parent.parent / "cpp" / "graph_elements_api.cpp"


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    compiler()
    work = tmp_path_factory.mktemp("graph_elements")
    exe = build_program(work, PROGRAM.read_text(), std="c++14", strict=True)
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(line.split(": ", 1) for line in result.stdout.splitlines())


def test_graph_elements_name_vertices_fields_and_functions(ran):
    """graph_elements_api: VertexRef::getId and operator[], FieldRef's operator[] on a list
    field, ComputeSet and Function ids and ComputeSet's ==."""
    # isIndexed of rows and rows[1], rows[1]'s index, its vertex, two vertices' ids differ.
    assert ran["fields"] == "01 1 1 1"
    # A ComputeSet rebuilt from its getId() equals it, another does not; a bare id.
    assert ran["compute sets"] == "10 7"
    assert ran["functions"] == "1 3"
    assert "missing" in ran["unknown field"]


def test_host_callbacks_from_classes_lambdas_and_pointers(ran):
    """graph_elements_api: a HostCallback subclass through HostCallbackHandle's unique_ptr
    constructor, a lambda through its LambdaHostCallback, release() once; HostFunction ids."""
    assert ran["host functions"] == "0 1 4"
    assert ran["released"] == "11"
    # rows[0] doubled sums to 2 + 4 + 6; the lambda gives 10 * (8 + 10 + 12).
    assert ran["result"] == "12 300"
    assert ran["calls"] == "2"


def test_each_vertex_kind_runs_with_its_fields(ran):
    """graph_elements_api: a Vertex adding Input Vectors into an Output, a MultiVertex doubling
    an InOut Vector over numWorkers(), a SupervisorVertex summing a DELTAN VectorList's rows,
    and SupervisorVertexIf<true/false> negating InOut scalars."""
    assert ran["sum"] == "11 22 33 44"
    assert ran["rows"] == "2 4 6 8 10 12"
    assert ran["row sums"] == "12 30"
    assert ran["scalars"] == "-1.5 2.5"


def test_perf_estimates_and_what_an_estimator_sees(ran):
    """graph_elements_api: VertexPerfEstimate's constructors and fields, and a
    PerfEstimateFunc registered for RowSums reading FieldData through VertexIntrospector."""
    assert ran["estimates"] == "0 0 5 0"
    # rows: a list (rank 2) of 2 vectors, the second of 3; sums: a vector (rank 1) of 2.
    assert ran["introspected"] == "rows 2 2 3, sums 1 2"


def test_print_formats_and_sync_types(ran):
    """graph_elements_api: PrintTensorFmt's defaults and disableFormatting(), as PrintTensor
    uses them; program::Sync of each SyncType (INTERNAL, EXTERNAL, GLOBAL) runs and changes
    nothing."""
    # summariseThreshold, edgeItems, maxLineWidth, digits, FloatFormat::Auto, separator and
    # brackets; disableFormatting: no summarising and FloatFormat::None.
    assert ran["formats"] == "1000 3 75 8 1 [], plain 0 1"
    default, plain = ran["printed"].rstrip("|").split("|")
    # Auto: 8 significant digits with the point shown; None: the values as they are (the
    # brackets stay).
    assert default == f"default: [{12:#.8g} {30:#.8g}]"
    assert plain == "plain: [12 30]"


def test_mapping_methods_spread_or_leave_unmapped(ran):
    """graph_elements_api: VariableMappingMethod::LINEAR puts 8 floats on 4 tiles in whole
    vectors of 2; NONE leaves them unmapped."""
    assert ran["linear"] == "0[0,2) 1[2,4) 2[4,6) 3[6,8)"
    assert ran["unmapped"] == "none"


def test_clone_methods_keep_the_tiles_of_the_source(ran):
    """graph_elements_api: clone of concat(x, x) (x on tile 1) with each TensorCloneMethod:
    the two that preserve aliases give a clone whose halves are one tensor; the others give
    8 distinct elements. Every clone lives on x's tile and shares nothing with it. cloneN
    with either TensorCloneDuplicationMethod adds an outer dimension of copies."""
    methods = ["PRESERVE_ORDER_AND_ALIASES", "CREATE_NEW_ORDER", "PRESERVE_ORDER_UNLESS_ALIASES",
               "GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES"]
    for number, method in enumerate(methods):
        aliases = int("ALIASES" in method and "UNLESS" not in method)
        assert ran[f"clone {number}"] == f"[8] {aliases} 0 {aliases} 1[0,8)", method
    # DUPLICATE_BY_OUTER_DIMENSION, DUPLICATE_BY_TILE_CONTIGUOUS_REGION: copy 2 of the
    # source (row 0 on tile 1, row 1 on tile 3).
    for number in (0, 1):
        assert ran[f"cloneN {number}"] == "[3,2,4] 1[0,4) 3[4,8)"
    assert ran["aliased cloneN"] == "[2,8] 1 0 1[0,8)"
