"""Vertex connections from values, as the SDK's Graph::ConnectionDesc takes them: in C++
(tests/cpp/vertex_connections.cpp, built against the prefix), through the raw bindings'
addVertex and on the Pythonic layer's cs.vertex; wrong values name the vertex and field."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, program

from cpp_build import build_program, compiler

PROGRAM = Path(__file__).resolve().parent.parent / "cpp" / "vertex_connections.cpp"
pytestmark = pytest.mark.usefixtures("codelet_cache")

# The program's codelets (its raw string), so both sides run the same vertex.
CODELETS = PROGRAM.read_text().split('R"(', 1)[1].split(')";', 1)[0]

IN, A, B = np.array([1.0, 2, 3, 4]), np.array([10.0, 20, 30, 40]), np.array([100.0, 200, 300, 400])


def mix(scale, offset, n, flip):
    """float64 reference of Mix."""
    total = (IN + A + B) * (-1 if flip else 1)
    return np.concatenate([scale * total[:n] + offset, np.zeros(4 - n)])


def test_cpp_connection_descs_take_tensors_lists_and_values(tmp_path):
    compiler()
    exe = build_program(tmp_path, PROGRAM.read_text(), std="c++14", strict=True)
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines())
    np.testing.assert_allclose([float(x) for x in lines["out"].split()], mix(0.5, -3, 3, True))
    assert lines["negative count"] == ("type_error: Vertex 'Mix' (id 1), field 'n' has element type unsigned int, "
                                       "which cannot hold -1")
    assert lines["fractional int"].startswith("type_error: Vertex 'Mix' (id 2), field 'offset' has element type "
                                              "int, which cannot hold 0.5")
    assert lines["output value"].startswith("graph_connection_error: Vertex 'Mix' (id 3), field 'out' is an Output")
    assert "field 'n'" in lines["too big"] and "cannot hold 5e+09" in lines["too big"]


@pytest.fixture
def raw():
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    graph.addCodelets(CODELETS)
    tensors = []
    for name, values in (("in", IN), ("a", A), ("b", B), ("out", np.zeros(4))):
        t = graph.addVariable(poplar.FLOAT, [4], name)
        graph.setTileMapping(t, 0)
        graph.setInitialValue(t, values.astype(np.float32))
        tensors.append(t)
    return device, graph, tensors


def test_raw_add_vertex_takes_python_and_numpy_numbers(raw):
    device, graph, (x, a, b, out) = raw
    cs = graph.addComputeSet("mix")
    v = graph.addVertex(cs, "Mix", {"in": x, "rows": [a, b], "scale": np.float32(2.0), "offset": 7, "out": out,
                                    "n": np.uint32(4), "flip": False})
    graph.setTileMapping(v, 0)
    graph.createHostRead("out", out)
    engine = poplar.Engine(graph, program.Execute(cs))
    engine.load(device)
    engine.run(0)
    np.testing.assert_allclose(engine.readTensor("out", np.empty(4, np.float32)), mix(2.0, 7, 4, False))


@pytest.mark.parametrize("field, value, error, message", [
    ("n", -1, poplar.type_error, "field 'n' has element type unsigned int, which cannot hold -1"),
    ("offset", 1.5, poplar.type_error, "field 'offset' has element type int, which cannot hold 1.5"),
    ("flip", 2, poplar.type_error, "field 'flip' has element type bool, which cannot hold 2"),
    ("out", 1.0, poplar.graph_connection_error, "field 'out' is an Output and cannot be connected to a constant"),
    ("rows", 3, poplar.graph_connection_error, "field 'rows' is a vector"),
    ("nope", 1, poplar.unknown_field, "nope"),
])
def test_raw_add_vertex_names_the_vertex_and_field_of_a_wrong_value(raw, field, value, error, message):
    _, graph, _ = raw
    with pytest.raises(error, match=rf"Vertex 'Mix' \(id 0\)(.|\n)*{message}" if field != "nope" else message):
        graph.addVertex(graph.addComputeSet("mix"), "Mix", {field: value})


def test_raw_add_vertex_refuses_what_is_not_a_connection(raw):
    _, graph, (x, _, _, _) = raw
    cs = graph.addComputeSet("mix")
    with pytest.raises(TypeError, match="expected a Tensor, a list of Tensors or a number, not str"):
        graph.addVertex(cs, "Mix", {"n": "3"})
    with pytest.raises(TypeError, match="must hold only Tensors, not int"):
        graph.addVertex(cs, "Mix", {"rows": [x, 3]})
    with pytest.raises(ValueError, match="does not fit in 64 bits"):
        graph.addVertex(cs, "Mix", {"n": 2 ** 70})


def test_pythonic_vertex_takes_numbers_for_plain_fields_and_inputs():
    g = pd.Graph(pd.ipu_model(tiles=4))
    g.add_codelets(CODELETS)
    x, a, b = (g.constant(v.astype(np.float32), name=n) for v, n in ((IN, "in"), (A, "a"), (B, "b")))
    out = g.variable(pd.float32, (4,), name="out", mapping=0)
    with pd.Sequence("main") as main:
        pd.zero(out)
        with pd.compute_set("mix") as cs:
            cs.vertex("Mix", tile=0, in_=x, rows=[a, b], scale=0.25, offset=-1, out=out, n=2, flip=True)
    with pd.Session(g, main, device=pd.ipu_model(tiles=4)) as s:
        s.run()
        np.testing.assert_allclose(s.read(out), mix(0.25, -1, 2, True))
    with pytest.raises(pd.BuildError, match=r"cs.vertex\('Mix'\): type_error: .*field 'n' .*cannot hold -2"):
        with pd.Sequence("bad"), pd.compute_set("bad", graph=g) as cs:
            cs.vertex("Mix", tile=0, n=-2)
