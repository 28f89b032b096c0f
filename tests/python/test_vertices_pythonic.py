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
