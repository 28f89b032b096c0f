"""Custom vertices on the Pythonic layer: g.add_codelets and pd.compute_set blocks."""

import numpy as np
import pytest

import popdsl as pd

from debug_paths import shown_path
from vertex_codelets import SOURCE


# Each module compiles into a private codelet cache (conftest.py).
pytestmark = pytest.mark.usefixtures("codelet_cache")


@pytest.fixture
def graph():
    g = pd.Graph(pd.ipu_model(tiles=4))
    g.add_codelets(SOURCE)
    return g


@pytest.mark.needs_emulator("profile data (Session.profile)")
def test_compute_set_block_runs_in_order_with_keyword_fields(graph):
    x = graph.variable(pd.float32, (4, 3), name="x")
    sums = graph.variable(pd.float32, (4,), name="sums", mapping=0)
    with pd.Sequence("main") as main:
        x *= 2  # runs before the compute set
        with pd.compute_set("row sums") as cs:
            for row in range(4):
                cs.vertex("SumVertex", tile=0, in_=x[row], out=sums[row], perf_estimate=10)
        sums += 1  # and this after it
    values = np.arange(12, dtype=np.float32).reshape(4, 3)
    with pd.Session(graph, main, device=pd.ipu_model(tiles=4)) as s:
        s.write(x, values)
        s.run()
        np.testing.assert_array_equal(s.read(sums), (values * 2).sum(1) + 1)
        steps = [step for step in s.profile.steps if step.name.startswith("row sums @ ")]  # name, then line
        assert len(steps) == 1 and steps[0].compute_cycles == 4 * 10
        assert "row sums" in s.profile.summary()


@pytest.mark.needs_emulator("profile data (Session.profile)")
def test_debug_name_is_the_source_line_and_lists_and_plain_fields_work(graph):
    rows = [graph.variable(pd.float32, (3,), name=f"r{i}", mapping=1) for i in range(2)]
    out = graph.variable(pd.float32, (3,), name="out", mapping=1)
    with pd.Sequence("main") as main:
        with pd.compute_set() as cs:
            cs.vertex("Pick", tile=1, data=rows, pick=[1, 0, 1], n=3, out=out)
    with pd.Session(graph, main, device=pd.ipu_model(tiles=4)) as s:
        s.write(rows[0], [1, 2, 3])
        s.write(rows[1], [10, 20, 30])
        s.run()
        np.testing.assert_array_equal(s.read(out), [10, 2, 30])
        [line] = [l for l in s.profile.by_line() if "pd.compute_set()" in l.label]
        assert line.location.startswith(shown_path(__file__) + ":")


def test_vertex_errors_name_the_source_line(graph):
    x = graph.variable(pd.float32, (3,), name="x")
    with pd.Sequence("main"):
        with pd.compute_set("cs") as cs:
            with pytest.raises(pd.BuildError, match=r"test_vertices_pythonic.py:\d+: .*: cs.vertex\('SumVertex'\): "
                                                    r"tile 7 does not exist \(the target has 4 tiles\)"):
                cs.vertex("SumVertex", tile=7, in_=x, out=x[0])
            with pytest.raises(pd.BuildError, match=r"unknown_field: Vertex 'SumVertex' \(id \d+\) has no field 'inp'"):
                cs.vertex("SumVertex", tile=0, inp=x, out=x[0])
            with pytest.raises(pd.BuildError, match=r"unknown_vertex_type: Unknown vertex type 'Summ'"):
                cs.vertex("Summ", tile=0, in_=x)


def test_compute_set_needs_an_open_block(graph):
    with pytest.raises(pd.BuildError, match="no program is open"):
        with pd.compute_set("cs"):
            pass


def test_add_codelets_compile_errors_are_build_errors(graph, tmp_path):
    path = tmp_path / "broken.cpp"
    path.write_text("#include <poplar/Vertex.hpp>\nint f() { return missing; }\n")
    with pytest.raises(pd.BuildError, match=rf"Compiling codelets '{path}' failed:\n(.|\n)*{path}:2:\d+: error"):
        graph.add_codelets(path)
    with pytest.raises(pd.BuildError, match=r"source_or_path must be C\+\+ source text or a file path, got int 3"):
        graph.add_codelets(3)
    assert graph.add_codelets(SOURCE) is False  # already added


# --- What a vertex reads and writes: its fields' directions, from the codelet ---------------

@pytest.mark.needs_emulator("vertex field directions (the SDK's API does not give them)")
def test_field_directions_come_from_the_codelet(graph):
    assert graph.raw._vertexFieldDirections("Affine") == {"scale": "Input", "offset": "Input", "in": "Input",
                                                          "out": "Output", "count": "InOut"}
    assert graph.raw._vertexFieldDirections("Pick") == {"data": "Input", "out": "Output"}  # no plain fields
    with pytest.raises(pd.poplar.unknown_vertex_type, match="unknown vertex type 'Summ'"):
        graph.raw._vertexFieldDirections("Summ")


def affine(cs, x, y, count):
    cs.vertex("Affine", tile=0, in_=x, out=y, count=count, scale=1.0, offset=0)


@pytest.mark.needs_emulator("vertex field directions (the SDK's API does not give them)")
def test_a_vertex_records_its_inputs_as_read_and_its_outputs_as_written(graph):
    x, y = (graph.variable(pd.float32, (4,), name=n) for n in "xy")
    count = graph.variable(pd.float16, (), name="count")
    with pd.Sequence() as main:
        with pd.compute_set("affine") as cs:
            affine(cs, x, y, count)
    [op] = [r for r in main.tape.records if r.kind == "pd.compute_set vertex"]
    assert [t.name for t in op.inputs] == ["x", "count"]  # the Input is not written, the Output not read
    assert [t.name for t in op.written] == ["y", "count"] and op.outputs == op.written
    assert set(main.tape.reads) == {id(x), id(count)} and set(main.tape.changed) == {id(y), id(count)}


@pytest.mark.needs_emulator("vertex field directions (the SDK's API does not give them)")
def test_grad_flows_past_a_vertex_that_only_reads_a_tensor(graph):
    x0 = np.array([1, -2, 3, 0.5], np.float32)
    x = graph.variable(pd.float32, (4,), name="x", init=x0)
    y = graph.variable(pd.float32, (4,), name="y")
    count = graph.variable(pd.float16, (), name="count", init=0)
    with pd.Sequence() as main:
        h = x * 3
        with pd.compute_set("affine") as cs:
            affine(cs, h, y, count)  # reads h: h keeps its value, so the gradient goes through it
        loss = pd.reduce_sum(h * h)
        dx = pd.grad(loss, x)
    with pd.Session(graph, main, device=pd.ipu_model(tiles=4)) as s:
        s.run()
        np.testing.assert_allclose(s.read(dx), 18 * x0.astype(np.float64), rtol=1e-6)
        np.testing.assert_allclose(s.read(y), 3 * x0.astype(np.float64), rtol=1e-6)


@pytest.mark.needs_emulator("vertex field directions (the SDK's API does not give them)")
def test_grad_does_not_follow_a_vertex_output_back_to_its_old_value(graph):
    x0, z0 = np.array([1, -2, 3, 0.5], np.float32), np.array([4, 5, -6, 7], np.float32)
    x = graph.variable(pd.float32, (4,), name="x", init=x0)
    z = graph.variable(pd.float32, (4,), name="z", init=z0)
    count = graph.variable(pd.float16, (), name="count", init=0)
    with pd.Sequence() as main:
        y = x * 2
        with pd.compute_set("affine") as cs:
            affine(cs, z, y, count)  # overwrites y without reading it: y no longer depends on x
        loss = pd.reduce_sum(y * x)
        dx = pd.grad(loss, x)
    with pd.Session(graph, main, device=pd.ipu_model(tiles=4)) as s:
        s.run()
        np.testing.assert_allclose(s.read(dx), z0.astype(np.float64), rtol=1e-6)  # d(z.x)/dx
