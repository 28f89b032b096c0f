"""Custom vertices through the raw API: codelets compiled by addCodelets, vertices
added, connected, mapped and run, every misuse check, and executables that carry
their codelets into another process."""
import gc
import os
import pathlib
import signal
import subprocess
import sys

import numpy as np
import pytest

import popdsl
from popdsl import poplar, program

from vertex_codelets import SOURCE

# Subprocesses import the popdsl under test (a build tree's or the installed one).
POPDSL_PARENT = pathlib.Path(popdsl.__file__).resolve().parents[1]


# Each module compiles into a private codelet cache (conftest.py).
pytestmark = pytest.mark.usefixtures("codelet_cache")


class Vertices:
    """A graph with the shared codelets and one compute set, run once with Execute."""

    def __init__(self, tiles=4):
        model = poplar.IPUModel("ipu2")
        model.tilesPerIPU = tiles
        self.device = model.createDevice()
        self.graph = poplar.Graph(self.device.getTarget())
        self.graph.addCodelets(SOURCE)
        self.cs = self.graph.addComputeSet("vertices")

    def variable(self, values, ptype=poplar.FLOAT, name="x", tile=0):
        values = np.asarray(values)
        t = self.graph.addVariable(ptype, list(values.shape), name)
        self.graph.setTileMapping(t, tile)
        self.graph.setInitialValue(t, values)
        return t

    def vertex(self, vertex_type, tile=0, **connections):
        v = self.graph.addVertex(self.cs, vertex_type, connections)
        self.graph.setTileMapping(v, tile)
        return v

    def engine(self):
        return poplar.Engine(self.graph, program.Execute(self.cs))

    def run(self, *tensors):
        for i, t in enumerate(tensors):
            self.graph.createHostRead(f"out{i}", t)
        engine = self.engine()
        engine.load(self.device)
        engine.run(0)
        return [engine.readTensor(f"out{i}", np.empty(t.shape(), t.elementType().numpy_dtype))
                for i, t in enumerate(tensors)]


def tutorial3(vs):
    """Poplar tutorial 3: vertex i sums v1[i:] into v2[i], on tile i."""
    v1 = vs.variable(np.array([1, 1.5, 2, 2.5], np.float32), name="v1")
    v2 = vs.graph.addVariable(poplar.FLOAT, [4], "v2")
    for i in range(4):
        vs.graph.setTileMapping(v1[i], i)
        vs.graph.setTileMapping(v2[i], i)
        v = vs.vertex("SumVertex", tile=i, **{"in": v1.slice(i, 4), "out": v2[i]})
        vs.graph.setPerfEstimate(v, 20)
    return v1, v2


# ------------------------------------------------------------------ running vertices

def test_tutorial3_sums_suffixes():
    vs = Vertices()
    _, v2 = tutorial3(vs)
    (out,) = vs.run(v2)
    np.testing.assert_array_equal(out, [7, 6, 4.5, 2.5])
    assert vs.graph.getNumVertices() == 4
    assert vs.graph.hasCodelet("SumVertex") and not vs.graph.hasCodelet("NoSuchVertex")


def test_vertex_state_persists_between_runs_until_the_engine_loads():
    vs = Vertices()
    out = vs.variable(np.zeros(1, np.uint32), poplar.UNSIGNED_INT, name="out")
    v = vs.vertex("Counter", out=out[0])
    vs.graph.setInitialValue(v["count"], 10)
    vs.graph.createHostRead("out", out)
    engine = vs.engine()
    counts = []
    for runs in (2, 1):
        engine.load(vs.device)
        for _ in range(runs):
            engine.run(0)
            counts.append(int(engine.readTensor("out", np.empty(1, np.uint32))[0]))
    assert counts == [11, 12, 11]


def test_multivertex_runs_every_worker():
    vs = Vertices()
    out = vs.graph.addVariable(poplar.UNSIGNED_INT, [20], "out")
    vs.graph.setTileMapping(out, 0)
    vs.vertex("WorkerIds", out=out)
    (result,) = vs.run(out)
    i = np.arange(20)
    np.testing.assert_array_equal(result, (i % 6) * 1000 + i)


def test_vector_list_field_sums_each_row():
    vs = Vertices()
    a = vs.variable(np.arange(3, dtype=np.float32), name="a")
    b = vs.variable(np.arange(10, 15, dtype=np.float32), name="b")
    sums = vs.variable(np.zeros(3, np.float32), name="sums")
    vs.vertex("RowSums", rows=[a, b, a.slice(1, 3)], sums=sums)
    (result,) = vs.run(sums)
    np.testing.assert_array_equal(result, [3, 60, 3])


def test_a_2d_tensor_connects_to_a_list_field_row_by_row():
    vs = Vertices()
    m = vs.variable(np.arange(12, dtype=np.float32).reshape(4, 3), name="m")
    sums = vs.variable(np.zeros(4, np.float32), name="sums")
    v = vs.vertex("RowSums", sums=sums)
    vs.graph.connect(v["rows"], m)
    assert vs.graph.getFieldSize(v["rows"]) == 4
    (result,) = vs.run(sums)
    np.testing.assert_array_equal(result, np.arange(12).reshape(4, 3).sum(1))


def test_list_of_edges_and_plain_fields():
    vs = Vertices()
    rows = [vs.variable(np.full(4, 10.0 * r + np.arange(4), np.float32), name=f"r{r}") for r in range(3)]
    out = vs.variable(np.zeros(4, np.float32), name="out")
    v = vs.vertex("Pick", out=out)
    vs.graph.setFieldSize(v["data"], 3)
    for r, t in enumerate(rows):
        vs.graph.connect(v["data"][r], t)
    vs.graph.setInitialValue(v["pick"], [2, 0, 1, 2])
    vs.graph.setInitialValue(v["n"], 4)
    assert vs.graph.getFieldSize(v["data"]) == 3 and vs.graph.getFieldSize(v["pick"]) == 4
    assert vs.graph.getFieldSize(v["data"][1]) == 4
    (result,) = vs.run(out)
    np.testing.assert_array_equal(result, [20, 1, 12, 23])


def test_state_and_inout_fields_scale_in_place():
    vs = Vertices()
    data = vs.variable(np.arange(6, dtype=np.float32), name="data")
    v = vs.vertex("ScaleInPlace", data=data)
    vs.graph.setInitialValue(v["factor"], 2.5)
    (result,) = vs.run(data)
    np.testing.assert_array_equal(result, np.arange(6) * 2.5)


def test_constant_integer_and_half_edges():
    vs = Vertices()
    x = vs.variable(np.array([1, 2, 3], np.float32), name="x")
    y = vs.variable(np.zeros(3, np.float32), name="y")
    count = vs.variable(np.array([1.5], np.float16), poplar.HALF, name="count")
    offset = vs.graph.addConstant(poplar.INT, [], -4, "offset")
    vs.graph.setTileMapping(offset, 0)
    v = vs.vertex("Affine", **{"in": x, "out": y, "offset": offset, "count": count.reshape([])})
    vs.graph.connect(v["scale"], 0.5)  # a constant edge
    out, c = vs.run(y, count)
    np.testing.assert_array_equal(out, np.array([1, 2, 3]) * 0.5 - 4)
    assert c[0] == 2.5


def test_templated_vertices_in_a_namespace():
    vs = Vertices()
    for name in ("custom::AddConst<float>", "custom::AddConst<half>", "custom::AddConst<unsigned int>"):
        assert vs.graph.hasCodelet(name), name
    xf = vs.variable(np.array([1.25, 2], np.float32), name="xf")
    yf = vs.variable(np.zeros(2, np.float32), name="yf")
    xh = vs.variable(np.array([1, 1000], np.float16), poplar.HALF, name="xh")
    yh = vs.variable(np.zeros(2, np.float16), poplar.HALF, name="yh")
    xu = vs.variable(np.array([1, 7], np.uint32), poplar.UNSIGNED_INT, name="xu")
    yu = vs.variable(np.zeros(2, np.uint32), poplar.UNSIGNED_INT, name="yu")
    for t, x, y, c in (("float", xf, yf, 0.5), ("half", xh, yh, 0.3), ("unsigned int", xu, yu, 5)):
        v = vs.vertex(f"custom::AddConst<{t}>", **{"in": x, "out": y})
        vs.graph.setInitialValue(v["c"], c)
    widths = vs.variable(np.zeros(2, np.uint32), poplar.UNSIGNED_INT, name="widths")
    vs.vertex("custom::Width<half>", out=widths[0])
    vs.vertex("custom::Width<float>", out=widths[1])
    rf, rh, ru, rw = vs.run(yf, yh, yu, widths)
    np.testing.assert_array_equal(rw, [2, 40])
    np.testing.assert_array_equal(rf, [1.75, 2.5])
    # half: the constant and each sum are rounded to half
    np.testing.assert_array_equal(rh, (np.array([1, 1000], np.float16) + np.float16(0.3)).astype(np.float16))
    np.testing.assert_array_equal(ru, [6, 12])


def test_vertex_classes_are_found_after_preprocessing():
    vs = Vertices()
    assert vs.graph.hasCodelet("Times3")
    assert not vs.graph.hasCodelet("IpuOnly") and not vs.graph.hasCodelet("Disabled")
    x = vs.variable(np.array([2.5], np.float32))
    vs.vertex("Times3", x=x[0])
    (result,) = vs.run(x)
    assert result[0] == 7.5


def test_intrinsics_with_host_equivalents():
    vs = Vertices()
    values = np.array([0.5, -1, np.nan, 2, -0.25, 1, 3, -2], np.float32)
    x = vs.variable(values, name="x")
    y = vs.variable(np.zeros(8, np.float32), name="y")
    total = vs.variable(np.zeros(1, np.float16), poplar.HALF, name="total")
    vs.vertex("Intrinsics", **{"in": x, "out": y, "sum": total[0]})
    ry, rtotal = vs.run(y, total)
    np.testing.assert_allclose(ry, np.where(np.isnan(values), 0, np.exp(values.astype(np.float64))), rtol=1e-6)
    assert rtotal[0] == np.abs(values[4:]).sum()


def test_non_contiguous_views_are_gathered_and_scattered():
    vs = Vertices()
    x = vs.variable(np.arange(12, dtype=np.float32).reshape(3, 4), name="x")
    y = vs.variable(np.zeros((4, 3), np.float32), name="y")
    data = vs.variable(np.arange(8, dtype=np.float32), name="data")
    # in: a column (stride 4); out: part of a column, reversed (stride -3)
    v = vs.vertex("custom::AddConst<float>",
                  **{"in": x.slice(1, 2, 1).flatten(), "out": y.transpose()[2].slice(0, 3).reverse(0)})
    vs.graph.setInitialValue(v["c"], 100)
    s = vs.vertex("ScaleInPlace", data=data.subSample(3, 0))
    vs.graph.setInitialValue(s["factor"], -1)
    ry, rdata = vs.run(y, data)
    expected_y = np.zeros((4, 3))
    expected_y[0:3, 2][::-1] = np.arange(12).reshape(3, 4)[:, 1] + 100
    np.testing.assert_array_equal(ry, expected_y)
    expected_data = np.arange(8.0)
    expected_data[::3] *= -1
    np.testing.assert_array_equal(rdata, expected_data)


def test_misaligned_views_are_copied_to_aligned_scratch():
    vs = Vertices()
    x = vs.variable(np.arange(9, dtype=np.float32), name="x")
    total = vs.variable(np.zeros(1, np.float32), name="total")
    vs.vertex("Aligned16", **{"in": x.slice(1, 9), "total": total[0]})  # x[1] is 4 bytes past an aligned start
    (result,) = vs.run(total)
    assert result[0] == sum(range(1, 9))


def test_many_tiles_run_in_parallel_with_exact_results():
    vs = Vertices(tiles=16)
    x = vs.graph.addVariable(poplar.FLOAT, [64, 100], "x")
    y = vs.graph.addVariable(poplar.FLOAT, [64, 100], "y")
    values = np.random.default_rng(0).standard_normal((64, 100)).astype(np.float32)
    vs.graph.setInitialValue(x, values)
    for r in range(64):
        vs.graph.setTileMapping(x[r], r % 16)
        vs.graph.setTileMapping(y[r], r % 16)
        v = vs.vertex("custom::AddConst<float>", tile=r % 16, **{"in": x[r], "out": y[r]})
        vs.graph.setInitialValue(v["c"], r)
    (result,) = vs.run(y)
    np.testing.assert_array_equal(result, values + np.arange(64, dtype=np.float32)[:, None])


def test_vertices_read_the_values_from_before_the_compute_set():
    # Vertex i reads x[i] and writes x[i + 1]: every read sees the value before any
    # vertex ran (exchange, then compute), in whatever order the tiles run.
    vs = Vertices(tiles=16)
    x = vs.graph.addVariable(poplar.FLOAT, [65], "x")
    vs.graph.setInitialValue(x, np.arange(65, dtype=np.float32) * 10)
    for i in range(65):
        vs.graph.setTileMapping(x[i], i % 16)
    for i in range(64):
        v = vs.vertex("custom::AddConst<float>", tile=i % 16, **{"in": x.slice(i, i + 1), "out": x.slice(i + 1, i + 2)})
        vs.graph.setInitialValue(v["c"], 1)
    (result,) = vs.run(x)
    np.testing.assert_array_equal(result, np.concatenate([[0], np.arange(64) * 10 + 1]))


def test_a_forked_child_runs_parallel_compute_sets():
    vs = Vertices(tiles=16)
    x = vs.graph.addVariable(poplar.FLOAT, [64, 8], "x")
    for r in range(64):
        vs.graph.setTileMapping(x[r], r % 16)
        v = vs.vertex("ScaleInPlace", tile=r % 16, data=x[r])
        vs.graph.setInitialValue(v["factor"], 2)
    vs.graph.setInitialValue(x, np.ones((64, 8), np.float32))
    vs.graph.createHostRead("x", x)
    engine = vs.engine()
    engine.load(vs.device)
    engine.run(0)  # the parent's thread pool is running now
    pid = os.fork()
    if pid == 0:  # the child has none of the pool's threads
        signal.alarm(30)
        engine.run(0)
        ok = (engine.readTensor("x", np.empty((64, 8), np.float32)) == 4).all()
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


@pytest.mark.needs_emulator("profile data (Engine.getProfileData)")
def test_profile_shows_the_compute_set_with_estimates_and_exchange():
    vs = Vertices()
    x = vs.variable(np.ones(4, np.float32), name="x", tile=0)
    out = vs.graph.addVariable(poplar.FLOAT, [3], "out")
    vs.graph.setTileMapping(out, 1)
    for i, cycles in enumerate((20, 30)):
        v = vs.vertex("SumVertex", tile=1, **{"in": x, "out": out[i]})  # x lives on tile 0
        vs.graph.setPerfEstimate(v, cycles)
    vs.vertex("SumVertex", tile=1, **{"in": out.slice(0, 2), "out": out[2]})  # no estimate: the default
    engine = vs.engine()
    engine.load(vs.device)
    engine.run(0)
    steps = [s for s in engine.getProfileData()["steps"] if s["name"] == "vertices"]
    assert len(steps) == 1 and steps[0]["kind"] == "Execute" and steps[0]["executions"] == 1
    assert steps[0]["compute_cycles"] == 20 + 30 + (50 + 3)  # default: 50 + one per edge element
    assert steps[0]["exchange_bytes"] == 2 * 4 * 4  # x to tile 1, twice
    assert steps[0]["exchange_cycles"] == 2 * 4 * 4 // 4  # ipu2 exchanges 4 bytes per cycle


@pytest.mark.needs_emulator("profile data (Engine.getProfileData)")
def test_outputs_on_other_tiles_count_as_exchange():
    vs = Vertices()
    x = vs.variable(np.ones(6, np.float32), name="x", tile=0)
    y = vs.variable(np.zeros(6, np.float32), name="y", tile=3)
    vs.vertex("custom::AddConst<float>", tile=0, **{"in": x, "out": y})
    engine = vs.engine()
    engine.load(vs.device)
    [step] = [s for s in engine.getProfileData()["steps"] if s["name"] == "vertices"]
    assert step["exchange_bytes"] == 6 * 4 and step["exchange_cycles"] == 6
    assert step["compute_cycles"] == 50 + 12


# ------------------------------------------------------------------ misuse

def test_unknown_vertex_type_names_it():
    vs = Vertices()
    with pytest.raises(poplar.unknown_vertex_type, match=r"Unknown vertex type 'Nope<float>'.*known: .*SumVertex"):
        vs.graph.addVertex(vs.cs, "Nope<float>")


def test_unknown_field_lists_the_fields():
    vs = Vertices()
    v = vs.graph.addVertex(vs.cs, "SumVertex")
    with pytest.raises(poplar.unknown_field, match=r"Vertex 'SumVertex' \(id 0\) has no field 'inn' \(its fields: in, out\)"):
        v["inn"]
    with pytest.raises(poplar.unknown_field, match="no field 'bad'"):
        vs.graph.addVertex(vs.cs, "SumVertex", {"bad": vs.variable([1.0])})


def test_unconnected_field_fails_when_the_engine_is_made():
    vs = Vertices()
    vs.vertex("SumVertex", **{"in": vs.variable(np.ones(2, np.float32))})
    with pytest.raises(poplar.graph_connection_error,
                       match=r"Compute set 'vertices': vertex 'SumVertex' \(id 0\): field 'out' is not connected"):
        vs.engine()


def test_unconnected_list_elements_fail():
    vs = Vertices()
    sums = vs.variable(np.zeros(2, np.float32), name="sums")
    v = vs.vertex("RowSums", sums=sums)
    with pytest.raises(poplar.graph_connection_error, match=r"field 'rows' is not connected \(its length was never set\)"):
        vs.engine()
    vs.graph.setFieldSize(v["rows"], 2)
    vs.graph.connect(v["rows"][0], sums)
    with pytest.raises(poplar.graph_connection_error, match="element 1 of field 'rows' is not connected"):
        vs.engine()


def test_wrong_element_type_is_a_type_error():
    vs = Vertices()
    v = vs.graph.addVertex(vs.cs, "SumVertex")
    ints = vs.variable(np.arange(3, dtype=np.int32), poplar.INT, name="ints")
    with pytest.raises(poplar.type_error, match=r"field 'in' has element type float but tensor 'ints' \[3\] int was connected"):
        vs.graph.connect(v["in"], ints)


def test_scalar_field_needs_one_element():
    vs = Vertices()
    v = vs.graph.addVertex(vs.cs, "SumVertex")
    with pytest.raises(poplar.graph_connection_error, match=r"field 'out' holds one element but tensor .* has 3"):
        vs.graph.connect(v["out"], vs.variable(np.zeros(3, np.float32)))


def test_vertex_without_a_tile():
    vs = Vertices()
    x, y = vs.variable(np.ones(2, np.float32), name="x"), vs.variable(np.ones(1, np.float32), name="y")
    vs.graph.addVertex(vs.cs, "SumVertex", {"in": x, "out": y[0]})
    with pytest.raises(poplar.invalid_tile_mapping, match=r"vertex 'SumVertex' \(id 0\) has no tile"):
        vs.engine()
    with pytest.raises(poplar.invalid_tile_mapping, match="tile 9 does not exist"):
        vs.graph.setTileMapping(vs.graph.addVertex(vs.cs, "SumVertex"), 9)


def test_outputs_cannot_be_constants():
    vs = Vertices()
    v = vs.graph.addVertex(vs.cs, "SumVertex")
    c = vs.graph.addConstant(poplar.FLOAT, [], 1.0, "c")
    with pytest.raises(poplar.graph_connection_error, match="field 'out' is an Output and cannot be connected to constant 'c' \\[\\] float"):
        vs.graph.connect(v["out"], c)
    with pytest.raises(poplar.graph_connection_error, match="field 'out' is an Output and cannot be connected to a constant"):
        vs.graph.connect(v["out"], 2.0)


def test_two_vertices_writing_one_element():
    vs = Vertices()
    x = vs.variable(np.ones(4, np.float32), name="x")
    y = vs.variable(np.zeros(4, np.float32), name="y")
    vs.vertex("custom::AddConst<float>", **{"in": x.slice(0, 3), "out": y.slice(0, 3)})
    vs.vertex("custom::AddConst<float>", **{"in": x.slice(2, 4), "out": y.slice(2, 4)})
    with pytest.raises(poplar.graph_connection_error,
                       match=r"vertex 'custom::AddConst<float>' \(id 0\) and vertex 'custom::AddConst<float>' \(id 1\) "
                             r"both write element 2 of variable 'y'"):
        vs.engine()


def test_plain_fields_and_edges_are_set_their_own_way():
    vs = Vertices()
    v = vs.graph.addVertex(vs.cs, "Pick")
    with pytest.raises(poplar.graph_connection_error, match="field 'n' is a plain field, not an edge"):
        vs.graph.connect(v["n"], vs.variable(np.ones(1, np.uint32), poplar.UNSIGNED_INT))
    with pytest.raises(poplar.graph_connection_error, match="field 'out' is an Output: connect it to a tensor"):
        vs.graph.setInitialValue(v["out"], 1.0)
    with pytest.raises(poplar.graph_connection_error, match="field 'n' holds one value but 2 were given"):
        vs.graph.setInitialValue(v["n"], [1, 2])
    with pytest.raises(poplar.no_size_specified, match=r"field 'data'\[0\]: set the list's length"):
        vs.graph.connect(v["data"][0], vs.variable(np.ones(2, np.float32)))
    with pytest.raises(poplar.graph_connection_error, match=r"field 'data': a list of 1000000000000 elements cannot fit"):
        vs.graph.setFieldSize(v["data"], 10**12)
    vs.graph.setFieldSize(v["data"], 1)
    with pytest.raises(poplar.index_error, match=r"field 'data'\[3\]: the list has 1 elements \(index 3\)"):
        vs.graph.connect(v["data"][3], vs.variable(np.ones(2, np.float32)))


def test_python_misuse_raises_and_refs_keep_their_graph_alive():
    vs = Vertices()
    v = vs.graph.addVertex(vs.cs, "Pick")
    for call in (lambda: vs.graph.addVertex(1, 2), lambda: v[3], lambda: v["data"]["x"],
                 lambda: vs.graph.connect(v["out"], "x"), lambda: vs.graph.setInitialValue(v["pick"], ["a"])):
        with pytest.raises(TypeError):
            call()
    field = poplar.Graph(vs.device.getTarget())
    field.addCodelets(SOURCE)
    field = field.addVertex(field.addComputeSet("cs"), "Pick")["data"][2]  # the graph is only referenced here
    gc.collect()
    assert (field.vertex.getId(), field.isIndexed(), field.getIndex()) == (0, True, 2)
    assert field.vertex["n"].fieldId == 2  # looks the field up in the graph


def test_compute_returning_false_fails_the_run():
    vs = Vertices()
    x = vs.variable(np.array([-1.0], np.float32), name="x", tile=2)
    vs.vertex("CheckPositive", tile=2, x=x[0])
    vs.graph.createHostWrite("x", x)
    engine = vs.engine()
    engine.load(vs.device)
    with pytest.raises(poplar.application_runtime_error,
                       match=r"Compute set 'vertices': vertex 'CheckPositive' \(id 0\) on tile 2 returned false"):
        engine.run(0)
    engine.writeTensor("x", np.array([np.nan], np.float32))
    with pytest.raises(poplar.application_runtime_error, match=r"threw from compute\(\): x is NaN"):
        engine.run(0)
    engine.writeTensor("x", np.array([3.0], np.float32))
    engine.run(0)


def test_codelet_compile_errors_name_file_and_line(tmp_path):
    bad = "#include <poplar/Vertex.hpp>\nclass Bad : public poplar::Vertex {\npublic:\n  bool compute() { return nope; }\n};\n"
    graph = Vertices().graph
    with pytest.raises(poplar.graph_program_compilation_error, match=r"<codelet source>:4:\d+: error: .*nope"):
        graph.addCodelets(bad)
    path = tmp_path / "bad_codelets.cpp"
    path.write_text(bad)
    with pytest.raises(poplar.graph_program_compilation_error, match=rf"{path}:4:\d+: error"):
        graph.addCodelets(path)
    with pytest.raises(poplar.graph_program_compilation_error, match=r"<codelet source>:1:\d+: error"):
        graph.addCodelets("class OneLine { int f() { return nope; } };")  # a brace: source text
    ipu_only = ("#include <poplar/Vertex.hpp>\n#include <ipu_builtins.h>\n"
                "class Put : public poplar::Vertex {\npublic:\n  void compute() { __builtin_ipu_put(0u, 1); }\n};\n")
    with pytest.raises(poplar.graph_program_compilation_error,
                       match="__builtin_ipu_put has no exact host equivalent: the popdsl emulator cannot run it"):
        graph.addCodelets(ipu_only)
    with pytest.raises(poplar.graph_program_compilation_error, match="Cannot read codelet file '/no/such.cpp'"):
        graph.addCodelets("/no/such.cpp")
    assembly = tmp_path / "kernel.S"
    assembly.write_text("nop\n")
    with pytest.raises(poplar.graph_program_compilation_error, match="cannot load IPU assembly"):
        graph.addCodelets(assembly)


def test_introspection_and_redefined_vertices():
    vs = Vertices()
    v = vs.vertex("SumVertex", tile=3)
    assert vs.graph.getTileMapping(v) == 3
    assert [cs.getId() for cs in vs.graph.getComputeSets()] == [vs.cs.getId()]
    with pytest.raises(poplar.invalid_tile_mapping, match=r"Vertex 'SumVertex' \(id 1\) is not mapped to a tile"):
        vs.graph.getTileMapping(vs.graph.addVertex(vs.cs, "SumVertex"))
    other_graph = Vertices()
    with pytest.raises(poplar.poplar_error, match="Graph::setPerfEstimate: the vertex belongs to a different graph"):
        other_graph.graph.setPerfEstimate(v, 5)
    with pytest.raises(poplar.poplar_error, match="Graph::setFieldSize: the vertex belongs to a different graph"):
        other_graph.graph.setFieldSize(v["in"], 5)
    assert vs.graph.addCodelets(SOURCE) is False  # the same codelets again: nothing to add
    other = "#include <poplar/Vertex.hpp>\nclass SumVertex : public poplar::Vertex {\npublic:\n  void compute() {}\n};\n"
    with pytest.raises(poplar.graph_program_compilation_error,
                       match="define vertex 'SumVertex', which codelets added earlier already define"):
        vs.graph.addCodelets(other)


def test_codelet_files_compile_with_flags_and_local_includes(tmp_path):
    (tmp_path / "scale.hpp").write_text("#define SCALE 3\n")
    (tmp_path / "codelets.cpp").write_text(
        '#include <poplar/Vertex.hpp>\n#include "scale.hpp"\n'
        "class Triple : public poplar::Vertex {\npublic:\n  poplar::InOut<float> x;\n"
        "  bool compute() { *x = *x * SCALE + OFFSET; return true; }\n};\n")
    vs = Vertices()
    assert vs.graph.addCodelets(str(tmp_path / "codelets.cpp"), "-DOFFSET=1")
    x = vs.variable(np.array([2.0], np.float32))
    vs.vertex("Triple", x=x[0])
    (result,) = vs.run(x)
    assert result[0] == 7


# ------------------------------------------------------------------ executables and the cache

RUN_SAVED = """
import sys, time, numpy as np
from popdsl import poplar
start = time.perf_counter()
exe = poplar.Executable.deserialize(open(sys.argv[1], "rb").read())
loaded = time.perf_counter() - start
model = poplar.IPUModel("ipu2"); model.tilesPerIPU = 4
engine = poplar.Engine(exe)
engine.load(model.createDevice())
engine.run(0)
print(engine.readTensor("v2", np.empty(4, np.float32)).tolist(), loaded)
"""


@pytest.mark.parametrize("package_path", ["as installed", "through a symbolic link"])
def test_executables_carry_their_codelets_to_a_new_process(tmp_path, codelet_cache, package_path):
    # Through a link the new process finds popdsl's headers at another path: the cached
    # codelets are keyed by the headers' contents, so they still serve it.
    parent = POPDSL_PARENT
    if package_path == "through a symbolic link":
        parent = tmp_path / "elsewhere"
        parent.symlink_to(POPDSL_PARENT, target_is_directory=True)
    vs = Vertices()
    _, v2 = tutorial3(vs)
    vs.graph.createHostRead("v2", v2)
    path = tmp_path / "tut3.exe"
    path.write_bytes(poplar.compileGraph(vs.graph, [program.Execute(vs.cs)]).serialize())
    libraries = {p.name: p.stat().st_mtime_ns for p in codelet_cache.glob("codelets/*.so")}
    assert libraries, "the codelets were not cached"
    # Unchecked field accesses: a checked engine would add the checked build to the cache.
    env = dict(os.environ, PYTHONPATH=str(parent), POPDSL_CACHE_DIR=str(codelet_cache), POPDSL_CHECK_VERTEX_ACCESS="0")
    # cwd: not the repository root, whose popdsl/ would come before PYTHONPATH.
    result = subprocess.run([sys.executable, "-c", RUN_SAVED, str(path)], capture_output=True, text=True,
                            env=env, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rsplit(" ", 1)[0] == "[7.0, 6.0, 4.5, 2.5]"
    # A cache hit: no new library and none rewritten (a compile takes about a second).
    assert {p.name: p.stat().st_mtime_ns for p in codelet_cache.glob("codelets/*.so")} == libraries
    # With an empty cache the new process compiles the codelets again.
    fresh = tmp_path / "fresh-cache"
    result = subprocess.run([sys.executable, "-c", RUN_SAVED, str(path)], capture_output=True, text=True,
                            env=dict(env, POPDSL_CACHE_DIR=str(fresh)), timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split(" ", 4)[:4] == ["[7.0,", "6.0,", "4.5,", "2.5]"]
    assert len(list(fresh.glob("codelets/*.so"))) == 1
