"""Contained codelet faults: with the engine option emulator.checkVertexAccess every
field access through operator[] is bounds-checked and an out-of-bounds one raises an
error naming the vertex, field, index and tile (Python survives); without it, a fault in
compute() (a null write, abort(), a stack overflow, a division by zero) ends the process
with a line naming the vertex, its tile and compute set (run in subprocesses)."""
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from popdsl import poplar, program

pytestmark = pytest.mark.needs_emulator("codelets compiled for the host")

SOURCE = r"""
#include <poplar/Vertex.hpp>
#include <cstdlib>
using namespace poplar;

// Writes out[0..size] inclusive: one element past the end.
class Overrun : public Vertex {
public:
  Output<Vector<int>> out;
  void compute() {
    for (unsigned i = 0; i <= out.size(); ++i) out[i] = int(i);
  }
};

// Reads element `at` (a plain field) of its input, which may be out of bounds.
class ReadAt : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  int at;
  void compute() { *out = in[at]; }
};

// Reads lists[list][at] of a list field.
class ReadListAt : public Vertex {
public:
  Input<VectorList<float, VectorListLayout::DELTANELEMENTS>> lists;
  Output<float> out;
  unsigned list, at;
  void compute() { *out = lists[list][at]; }
};

// Indexes a one-element edge: only index 0 is in bounds.
class ScalarAt : public Vertex {
public:
  Input<float> in;
  Output<float> out;
  unsigned at;
  void compute() { *out = in[at]; }
};

// Sums its input (in bounds): checked and unchecked give the same result.
class Sum : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  void compute() {
    float s = 0;
    for (unsigned i = 0; i < in.size(); ++i) s += in[i];
    *out = s;
  }
};

__attribute__((noinline)) int deeper(volatile char *above) {
  volatile char frame[256];
  frame[0] = above ? char(above[0] + 1) : 0;
  return deeper(frame) + frame[1]; // the frame escapes: no tail call, the stack overflows
}

// Faults in compute(): 0 a null write, 1 abort(), 2 a stack overflow, 3 an integer division by zero.
class Fault : public Vertex {
public:
  Output<Vector<int>> out;
  int kind;
  void compute() {
    if (kind == 0) *static_cast<volatile int *>(nullptr) = 1;
    if (kind == 1) std::abort();
    if (kind == 2) out[0] = deeper(nullptr);
    volatile int zero = 0;
    if (kind == 3) out[0] = kind / zero; // (1 / x compiles to no division)
  }
};
"""

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # popdsl imports from here
CHECKED = {"emulator.checkVertexAccess": "true"}


@pytest.fixture(scope="module")
def codelets(codelet_cache, tmp_path_factory):
    """The codelet source in a file, compiled once into the module's cache."""
    path = tmp_path_factory.mktemp("faults") / "faults.cpp"
    path.write_text(SOURCE)
    return str(path)


def one_vertex(codelets, vertex, fields, values=None, tile=1):
    """A graph with one vertex of `vertex` on `tile`: fields maps a field to (type, data)."""
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    graph.addCodelets(codelets)
    cs = graph.addComputeSet("work")
    connections = {}
    for name, (dtype, data) in fields.items():
        if isinstance(data, list):  # a list field: one tensor per vector
            tensors = []
            for k, vector in enumerate(data):
                t = graph.addConstant(dtype, [len(vector)], vector, f"{name}{k}")
                graph.setTileMapping(t, tile)
                tensors.append(t)
            connections[name] = tensors
        else:
            t = graph.addVariable(dtype, [data], name)
            graph.setTileMapping(t, tile)
            graph.createHostRead(name, t)
            connections[name] = t
    v = graph.addVertex(cs, vertex, connections)
    graph.setTileMapping(v, tile)
    for field, value in (values or {}).items():
        graph.setInitialValue(v[field], value)
    return device, graph, program.Execute(cs)


def run(device, graph, prog, options):
    engine = poplar.Engine(graph, prog, options)
    engine.load(device)
    engine.run(0)
    return engine


def test_an_out_of_bounds_write_raises_naming_vertex_field_index_and_tile(codelets):
    device, graph, prog = one_vertex(codelets, "Overrun", {"out": (poplar.INT, 4)}, tile=2)
    with pytest.raises(poplar.application_runtime_error) as raised:
        run(device, graph, prog, CHECKED)
    message = str(raised.value)
    assert "Compute set 'work'" in message
    assert "vertex 'Overrun' (id 0) on tile 2" in message
    assert "element 4 of field 'out', which has 4 elements" in message
    assert "emulator.checkVertexAccess" in message
    # Python goes on, and the same graph runs in bounds afterwards.
    device, graph, prog = one_vertex(codelets, "Sum", {"in": (poplar.FLOAT, 3), "out": (poplar.FLOAT, 1)})
    run(device, graph, prog, CHECKED)


@pytest.mark.parametrize("at, shown", [(3, "element 3"), (-1, "element -1")])
def test_an_out_of_bounds_read_raises_with_its_index(codelets, at, shown):
    device, graph, prog = one_vertex(codelets, "ReadAt", {"in": (poplar.FLOAT, 3), "out": (poplar.FLOAT, 1)},
                                     {"at": at})
    with pytest.raises(poplar.application_runtime_error,
                       match=f"vertex 'ReadAt' \\(id 0\\) on tile 1 indexed {shown} of field 'in', which has 3 elements"):
        run(device, graph, prog, CHECKED)


@pytest.mark.parametrize("lst, at, shown", [
    (2, 0, "element 2 of field 'lists', which has 2 elements"),
    (1, 3, "element 3 of field 'lists'\\[1\\], which has 3 elements"),
])
def test_list_fields_are_checked_at_both_levels(codelets, lst, at, shown):
    fields = {"lists": (poplar.FLOAT, [[1.0], [2.0, 3.0, 4.0]]), "out": (poplar.FLOAT, 1)}
    device, graph, prog = one_vertex(codelets, "ReadListAt", fields, {"list": lst, "at": at})
    with pytest.raises(poplar.application_runtime_error, match=shown):
        run(device, graph, prog, CHECKED)


def test_a_one_element_edge_has_only_index_0(codelets):
    device, graph, prog = one_vertex(codelets, "ScalarAt", {"in": (poplar.FLOAT, 1), "out": (poplar.FLOAT, 1)},
                                     {"at": 1})
    with pytest.raises(poplar.application_runtime_error, match="element 1 of field 'in', which has 1 element "):
        run(device, graph, prog, CHECKED)


@pytest.mark.parametrize("options", [CHECKED, {"emulator.checkVertexAccess": "false"}])
def test_in_bounds_vertices_give_the_same_results_checked_or_not(codelets, options):
    values = np.array([0.5, 1.25, -3.0, 8.0], np.float32)
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    graph.addCodelets(codelets)
    x = graph.addConstant(poplar.FLOAT, [4], values.tolist(), "x")
    out = graph.addVariable(poplar.FLOAT, [2], "out")
    cs = graph.addComputeSet("sums")
    for tile in range(2):
        part = x.slice(2 * tile, 2 * tile + 2)
        graph.setTileMapping(part, tile)
        graph.setTileMapping(out[tile], tile)
        v = graph.addVertex(cs, "Sum", {"in": part, "out": out[tile]})
        graph.setTileMapping(v, tile)
    graph.createHostRead("out", out)
    engine = run(device, graph, program.Execute(cs), options)
    got = np.zeros(2, np.float32)
    engine.readTensor("out", got)
    expected = values.astype(np.float64).reshape(2, 2).sum(axis=1)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_the_environment_sets_the_default_and_is_validated(codelets, monkeypatch):
    device, graph, prog = one_vertex(codelets, "Overrun", {"out": (poplar.INT, 2)})
    monkeypatch.setenv("POPDSL_CHECK_VERTEX_ACCESS", "1")
    with pytest.raises(poplar.application_runtime_error, match="element 2 of field 'out'"):
        run(device, graph, prog, {})
    monkeypatch.setenv("POPDSL_CHECK_VERTEX_ACCESS", "maybe")
    with pytest.raises(poplar.invalid_option, match="POPDSL_CHECK_VERTEX_ACCESS: expected 1, 0, true or false"):
        poplar.Engine(graph, prog)
    with pytest.raises(poplar.invalid_option, match="option 'emulator.checkVertexAccess': expected true or false"):
        poplar.Engine(graph, prog, {"emulator.checkVertexAccess": "1"})


def test_the_pytest_plugin_checks_vertex_accesses_by_default(codelets):
    from popdsl.testing import plugin
    if os.environ.get("POPDSL_CHECK_VERTEX_ACCESS") != plugin.CHECK_VERTEX_ACCESS:
        pytest.skip("the environment chose POPDSL_CHECK_VERTEX_ACCESS before the plugin could")
    device, graph, prog = one_vertex(codelets, "Overrun", {"out": (poplar.INT, 3)})
    with pytest.raises(poplar.application_runtime_error, match="element 3 of field 'out'"):
        run(device, graph, prog, {})


CRASH = textwrap.dedent("""
    import sys
    from popdsl import poplar, program
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    graph.addCodelets(sys.argv[1])
    out = graph.addVariable(poplar.INT, [64, 4], "out")
    cs = graph.addComputeSet("faulty")
    for i in range(64):  # enough vertices for the tiles to run on the thread pool
        graph.setTileMapping(out[i], i % 4)
        v = graph.addVertex(cs, "Fault", {"out": out[i]})
        graph.setInitialValue(v["kind"], int(sys.argv[2]) if i == 63 else 4)  # 4: no fault
        graph.setTileMapping(v, i % 4)
    engine = poplar.Engine(graph, program.Execute(cs))
    engine.load(device)
    engine.run(0)
    print("survived")
""")


@pytest.mark.parametrize("kind, sig, what", [
    (0, signal.SIGSEGV, "made an invalid memory access or overflowed its stack (SIGSEGV) in compute()"),
    (1, signal.SIGABRT, "aborted: abort() or a failed assert (SIGABRT) in compute()"),
    (2, signal.SIGSEGV, "made an invalid memory access or overflowed its stack (SIGSEGV) in compute()"),
    pytest.param(3, signal.SIGFPE, "made an arithmetic fault such as an integer division by zero (SIGFPE) in compute()",
                 marks=pytest.mark.slow),
])
def test_a_fault_in_compute_names_the_vertex_before_the_process_ends(codelets, kind, sig, what):
    # The null write runs with Python's faulthandler on: it still gets the signal, after us.
    faulthandler = ["-X", "faulthandler"] if kind == 0 else []
    result = subprocess.run([sys.executable, *faulthandler, "-c", CRASH, codelets, str(kind)], capture_output=True,
                            text=True, timeout=120, env=dict(os.environ, POPDSL_CHECK_VERTEX_ACCESS="0"), cwd=ROOT)
    assert result.returncode == -sig, result.stderr
    assert "survived" not in result.stdout
    ours = result.stderr.find("popdsl: vertex 'Fault' (id 63) on tile 3 of compute set 'faulty' " + what)
    assert ours >= 0, result.stderr
    if faulthandler:
        assert result.stderr.index("Fatal Python error: Segmentation fault") > ours
        assert 'File "<string>", line 18' in result.stderr  # engine.run(0): Python's stack, from faulthandler
