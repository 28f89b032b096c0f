"""The rest of the Graph's vertex API: perf estimates (explicit, and registered
estimators that read the vertex through VertexIntrospector/FieldData), field limits
from each field's layout (getMaxFieldDim, getMaxVertexFieldValue(As)) and
setInitialValueHalf of a vertex field."""

import numpy as np
import pytest

from popdsl import poplar, program

# ipu2 tiles hold 638976 bytes; the limits below are derived from it by hand.
IPU2_TILE_BYTES = 624 * 1024

SOURCE = r"""
#include <poplar/Vertex.hpp>
using namespace poplar;
static constexpr auto ONE_PTR = VectorLayout::ONE_PTR;

// Its cost depends on its sizes and on its plain field `passes`.
class Weighted : public Vertex {
public:
  Input<VectorList<float, VectorListLayout::DELTANELEMENTS>> rows;
  Input<Vector<float>> scale;
  Input<int> bias;
  Output<Vector<float>> out;
  unsigned passes;
  Vector<float> weights;
  bool compute() {
    for (unsigned r = 0; r < rows.size(); ++r) out[r] = rows[r].size() * weights[r] * scale[0] + *bias + passes;
    return true;
  }
};

class Layouts : public Vertex {
public:
  Input<Vector<float, VectorLayout::SHORT_SPAN>> shortSpan;
  Input<Vector<short, VectorLayout::SCALED_PTR32, 4>> scaled32;
  Input<Vector<float, VectorLayout::SCALED_PTR64, 8>> scaled64;
  Input<Vector<float, VectorLayout::SCALED_PTR128, 16>> scaled128;
  Input<Vector<char, VectorLayout::COMPACT_PTR>> compact;
  Vector<Input<Vector<half, VectorLayout::SHORT_SPAN>>, ONE_PTR> edges;
  Input<VectorList<int, VectorListLayout::DELTANELEMENTS>> list;
  Output<float> out;
  unsigned short count;
  short delta;
  unsigned long long big;
  long long signedBig;
  half scale;
  bool flag;
  Vector<unsigned char> bytes;
  void compute() { *out = float(scale) + count; }
};

class HalfPlusCount : public Vertex {
public:
  Output<float> out;
  unsigned short count;
  half scale;
  void compute() { *out = float(scale) + count; }
};
"""


# Each module compiles into a private codelet cache (conftest.py).
pytestmark = pytest.mark.usefixtures("codelet_cache")


def make_graph(tiles=4):
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = tiles
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    graph.addCodelets(SOURCE)
    return device, graph


def weighted_vertex(graph, cs, rows=(3, 5), tile=0):
    """A Weighted vertex with len(rows) list elements of the given lengths, a constant scale and bias."""
    tensors = []
    for i, n in enumerate(rows):
        t = graph.addVariable(poplar.FLOAT, [n], f"row{i}")
        graph.setTileMapping(t, tile)
        graph.setInitialValue(t, np.ones(n, np.float32))
        tensors.append(t)
    scale = graph.addConstant(poplar.FLOAT, [2], np.array([0.5, 4.0], np.float32), "scale")
    graph.setTileMapping(scale, tile)
    out = graph.addVariable(poplar.FLOAT, [len(rows)], "out")
    graph.setTileMapping(out, tile)
    v = graph.addVertex(cs, "Weighted", {"rows": tensors, "scale": scale, "bias": -2, "out": out})
    graph.setTileMapping(v, tile)
    graph.setInitialValue(v["passes"], 3)
    graph.setInitialValue(v["weights"], np.array([1.5, 2.0], np.float32))
    return v, out


def compute_cycles(device, graph, cs):
    engine = poplar.Engine(graph, program.Execute(cs))
    engine.load(device)
    engine.run(0)
    [step] = [s for s in engine.getProfileData()["steps"] if s["name"] == "vs"]
    return step["compute_cycles"]


# ------------------------------------------------------------------ perf estimates

def test_explicit_estimates_round_trip_with_flops():
    _, graph = make_graph()
    cs = graph.addComputeSet("vs")
    v, _ = weighted_vertex(graph, cs)
    graph.setPerfEstimate(v, poplar.VertexPerfEstimate(120, 44))
    assert graph.getPerfEstimate(v) == poplar.VertexPerfEstimate(cycles=120, flops=44)
    graph.setPerfEstimate(v, 9)
    estimate = graph.getPerfEstimate(v)
    assert (estimate.cycles, estimate.flops) == (9, 0)


def test_a_vertex_without_an_estimate_or_estimator_has_none():
    _, graph = make_graph()
    cs = graph.addComputeSet("vs")
    v, _ = weighted_vertex(graph, cs)
    with pytest.raises(poplar.missing_perf_estimate,
                       match=r"Vertex 'Weighted' \(id 0\) has no perf estimate: set one with Graph::setPerfEstimate"):
        graph.getPerfEstimate(v)


@pytest.mark.needs_emulator("a vertex field's initial values in a Python perf estimator (FieldData.getInitialValue)")
def test_an_estimator_sees_sizes_initial_values_and_constants_and_sets_the_profile_cycles():
    device, graph = make_graph()
    cs = graph.addComputeSet("vs")
    v, _ = weighted_vertex(graph, cs, rows=(3, 5))
    seen = {}

    def estimate(vertex, target):
        rows, scale, bias = vertex.getFieldInfo("rows"), vertex.getFieldInfo("scale"), vertex.getFieldInfo("bias")
        passes, weights, out = vertex.getFieldInfo("passes"), vertex.getFieldInfo("weights"), vertex.getFieldInfo("out")
        seen.update(
            ranks=[f.rank() for f in (rows, scale, bias, passes, weights, out)],
            sizes=[rows.size(), rows.getSizeAtIndex(0), rows[1].size(), scale.size(), out.size(), weights.size()],
            names=[rows.name(), passes.name()],
            passes=passes.getInitialValue(target), weights=weights.getInitialValues(target),
            scale=scale.getInitialValues(target), bias=bias.getInitialValue(target),
            cs=vertex.getComputeSet().getId(), tiles=target.getNumTiles())
        cycles = 10 * passes.getInitialValue(target) + rows[0].size() * rows[1].size()
        return cycles, 2 * out.size()

    graph.registerPerfEstimator("Weighted", estimate)
    assert graph.getPerfEstimate(v) == poplar.VertexPerfEstimate(30 + 15, 4)
    assert seen == dict(ranks=[2, 1, 0, 0, 1, 1], sizes=[2, 3, 5, 2, 2, 2], names=["rows", "passes"],
                        passes=3, weights=[1.5, 2.0], scale=[0.5, 4.0], bias=-2, cs=cs.getId(), tiles=4)
    assert compute_cycles(device, graph, cs) == 45


@pytest.mark.needs_emulator("profile data (Engine.getProfileData)")
def test_the_estimator_runs_when_the_engine_is_built_and_an_explicit_estimate_wins():
    device, graph = make_graph()
    cs = graph.addComputeSet("vs")
    v1, _ = weighted_vertex(graph, cs, rows=(4, 4), tile=0)
    v2, _ = weighted_vertex(graph, cs, rows=(2,), tile=1)
    calls = []
    graph.registerPerfEstimator("Weighted", lambda vertex, target: calls.append(1) or
                                poplar.VertexPerfEstimate(100 * vertex.getFieldInfo("rows").size()))
    graph.setPerfEstimate(v2, 7)
    assert calls == []
    graph.setInitialValue(v1["passes"], 8)  # set after registering: the estimator sees the graph as compiled
    assert compute_cycles(device, graph, cs) == 200  # tile 0: v1's 200; tile 1: v2's own 7
    assert len(calls) == 1
    assert graph.getPerfEstimate(v2).cycles == 7


def test_an_estimator_returning_a_plain_count_and_one_that_raises():
    device, graph = make_graph()
    cs = graph.addComputeSet("vs")
    v, _ = weighted_vertex(graph, cs)
    graph.registerPerfEstimator("Weighted", lambda vertex, target: 77)
    assert graph.getPerfEstimate(v) == poplar.VertexPerfEstimate(77, 0)

    def broken(vertex, target):
        return vertex.getFieldInfo("passes").getSizeAtIndex(0)

    graph.registerPerfEstimator("Weighted", broken)
    with pytest.raises(poplar.poplar_error,
                       match=r"Vertex 'Weighted' \(id 0\), field 'passes' has rank 0: getSizeAtIndex needs a 2-D field"):
        poplar.Engine(graph, program.Execute(cs))


@pytest.mark.needs_emulator("a vertex field's initial values in a Python perf estimator (FieldData.getInitialValue)")
def test_field_data_errors_name_the_vertex_and_field():
    _, graph = make_graph()
    cs = graph.addComputeSet("vs")
    v, _ = weighted_vertex(graph, cs)
    errors = {}

    def estimate(vertex, target):
        for name, call in (("unknown", lambda: vertex.getFieldInfo("nope")),
                           ("edge", lambda: vertex.getFieldInfo("out").getInitialValues(target)),
                           ("list", lambda: vertex.getFieldInfo("rows").getInitialValues(target)),
                           ("many", lambda: vertex.getFieldInfo("weights").getInitialValue(target)),
                           ("index", lambda: vertex.getFieldInfo("rows")[2])):
            with pytest.raises(poplar.poplar_error) as e:
                call()
            errors[name] = (type(e.value).__name__, str(e.value))
        return 1

    graph.registerPerfEstimator("Weighted", estimate)
    graph.getPerfEstimate(v)
    where = "Vertex 'Weighted' (id 0), field"
    assert errors == {
        "unknown": ("unknown_field", "Vertex 'Weighted' (id 0) has no field 'nope'"),
        "edge": ("poplar_error", f"{where} 'out' is connected to a tensor that is not a constant"),
        "list": ("poplar_error", f"{where} 'rows' is a list of edges: only plain fields and edges connected to "
                                 "constants have initial values"),
        "many": ("poplar_error", f"{where} 'weights' has 2 initial values: read them with getInitialValues"),
        "index": ("index_error", f"{where} 'rows' has 2 sub-vectors (index 2)"),
    }


@pytest.mark.needs_emulator("a vertex field's initial values in a Python perf estimator (FieldData.getInitialValue)")
def test_an_unset_plain_field_has_no_initial_value():
    _, graph = make_graph()
    cs = graph.addComputeSet("vs")
    out = graph.addVariable(poplar.FLOAT, [1], "out")
    graph.setTileMapping(out, 0)
    v = graph.addVertex(cs, "Layouts", {"out": out[0]})
    graph.registerPerfEstimator("Layouts", lambda vertex, target: vertex.getFieldInfo("count").getInitialValue(target))
    with pytest.raises(poplar.poplar_error,
                       match=r"^Vertex 'Layouts' \(id 0\), field 'count' has no initial value \(Graph::setInitialValue\)$"):
        graph.getPerfEstimate(v)
    graph.setInitialValue(v["count"], 65535)
    assert graph.getPerfEstimate(v).cycles == 65535


# ------------------------------------------------------------------ field limits

@pytest.mark.parametrize("field,dim,expected", [
    ("shortSpan", 0, 2047),                        # an 11-bit count
    ("scaled32", 0, 2 ** 18 // 2),                 # 256 KiB of shorts
    ("scaled64", 0, 2 ** 19 // 4),                 # 512 KiB of floats
    ("scaled128", 0, IPU2_TILE_BYTES // 4),        # 1 MiB reach, but the tile holds 624 KiB
    ("compact", 0, IPU2_TILE_BYTES),               # the tile, in chars
    ("edges", 0, IPU2_TILE_BYTES // 4),            # ONE_PTR list of edges: a 32-bit pointer each
    ("edges", 1, 2047),                            # each edge a SHORT_SPAN
    ("list", 0, 2 ** 32 - 1),                      # DeltaN lists count sub-vectors in 32 bits
    ("list", 1, IPU2_TILE_BYTES // 4),             # and each sub-vector is bounded by the tile
    ("bytes", 0, 2 ** 32 - 1),                     # a plain Vector: SPAN by default
])
def test_max_field_dim_follows_the_layout(field, dim, expected):
    _, graph = make_graph()
    assert graph.getMaxFieldDim("Layouts", field, dim) == expected


def test_max_field_dim_of_a_missing_dimension_type_or_field():
    _, graph = make_graph()
    with pytest.raises(poplar.poplar_error, match=r"^Graph::getMaxFieldDim: field 'count' of vertex type 'Layouts' "
                                                  r"has 0 dimensions; dimension 0 does not exist$"):
        graph.getMaxFieldDim("Layouts", "count", 0)
    with pytest.raises(poplar.poplar_error, match=r"field 'shortSpan' of vertex type 'Layouts' has 1 dimensions; "
                                                  r"dimension 1 does not exist"):
        graph.getMaxFieldDim("Layouts", "shortSpan", 1)
    with pytest.raises(poplar.unknown_vertex_type, match=r"Graph::getMaxFieldDim: unknown vertex type 'Nope'"):
        graph.getMaxFieldDim("Nope", "x", 0)
    with pytest.raises(poplar.unknown_field, match=r"Vertex type 'Layouts' has no field 'nope' \(its fields: shortSpan,"):
        graph.getMaxFieldDim("Layouts", "nope", 0)


@pytest.mark.parametrize("field,expected", [
    ("count", 65535.0), ("delta", 32767.0), ("big", 18446744073709551615.0),
    ("signedBig", 9223372036854775807.0), ("scale", 65504.0), ("flag", 1.0), ("bytes", 255.0),
])
def test_max_vertex_field_value_is_the_element_types_range(field, expected):
    _, graph = make_graph()
    assert graph.getMaxVertexFieldValue("Layouts", field) == expected


def test_max_vertex_field_value_as_is_exact_or_raises():
    _, graph = make_graph()
    assert graph.getMaxVertexFieldValueAs("Layouts", "count", np.uint16) == 65535
    assert graph.getMaxVertexFieldValueAs("Layouts", "big", np.uint64) == 2 ** 64 - 1
    assert graph.getMaxVertexFieldValueAs("Layouts", "signedBig", np.int64) == 2 ** 63 - 1
    assert graph.getMaxVertexFieldValueAs("Layouts", "scale", np.int32) == 65504
    assert graph.getMaxVertexFieldValueAs("Layouts", "count", np.float32) == 65535.0
    with pytest.raises(poplar.poplar_error, match=r"^Graph::getMaxVertexFieldValueAs: the largest value of field 'count' "
                                                  r"of vertex type 'Layouts' \(unsigned short: 65535\) is not exactly "
                                                  r"representable as a 16-bit integer$"):
        graph.getMaxVertexFieldValueAs("Layouts", "count", np.int16)
    with pytest.raises(poplar.poplar_error, match=r"\(unsigned long long: 18446744073709551615\) is not exactly "
                                                  r"representable as double"):
        graph.getMaxVertexFieldValueAs("Layouts", "big", np.float64)
    with pytest.raises(poplar.poplar_error, match=r"\(long long: 9223372036854775807\) is not exactly representable as "
                                                  r"float$"):
        graph.getMaxVertexFieldValueAs("Layouts", "signedBig", np.float32)
    with pytest.raises(poplar.poplar_error, match=r"\(float: 3.40282347e\+38\) is not exactly representable as "
                                                  r"a 64-bit unsigned integer$"):
        graph.getMaxVertexFieldValueAs("Weighted", "weights", np.uint64)


def test_max_vertex_field_value_of_an_edge_is_an_error():
    _, graph = make_graph()
    with pytest.raises(poplar.poplar_error, match=r"^Graph::getMaxVertexFieldValue: field 'out' of vertex type 'Layouts' "
                                                  r"is an Output, not a plain field"):
        graph.getMaxVertexFieldValue("Layouts", "out")


# ------------------------------------------------------------------ half initial values

def test_set_initial_value_half_of_a_field_takes_the_bits():
    device, graph = make_graph()
    cs = graph.addComputeSet("vs")
    out = graph.addVariable(poplar.FLOAT, [1], "out")
    graph.setTileMapping(out, 0)
    v = graph.addVertex(cs, "HalfPlusCount", {"out": out[0]})
    graph.setTileMapping(v, 0)
    graph.setInitialValue(v["count"], 4)
    graph.setInitialValueHalf(v["scale"], np.float16(2.5).view(np.uint16))  # 0x4100
    graph.createHostRead("out", out)
    engine = poplar.Engine(graph, program.Execute(cs))
    engine.load(device)
    engine.run(0)
    assert engine.readTensor("out", np.empty(1, np.float32))[0] == 6.5


# ------------------------------------------------------------------ addCodelets argument order

ADD_K = """#include <poplar/Vertex.hpp>
class AddK : public poplar::Vertex {
public:
  poplar::InOut<float> x;
  bool compute() { *x += K; return true; }
};
"""


def run_add_k(graph, device):
    x = graph.addVariable(poplar.FLOAT, [1], "x")
    graph.setTileMapping(x, 0)
    graph.setInitialValue(x, np.array([1.0], np.float32))
    cs = graph.addComputeSet("k")
    v = graph.addVertex(cs, "AddK", {"x": x[0]})
    graph.setTileMapping(v, 0)
    graph.createHostRead("x", x)
    engine = poplar.Engine(graph, program.Execute(cs))
    engine.load(device)
    engine.run(0)
    return engine.readTensor("x", np.empty(1, np.float32))[0]


@pytest.mark.parametrize("call,expected", [
    # The SDK's addCodelets(src, type, compileFlags, targetName) ...
    (lambda g, path: g.addCodelets(path, poplar.CodeletFileType.CppSource, "-DK=2", "ipu2"), 3.0),
    (lambda g, path: g.addCodelets(str(path), compileFlags="-DK=4"), 5.0),
    # ... and its list and stream forms, which take the flags second.
    (lambda g, path: g.addCodelets([path], "-DK=8"), 9.0),
    (lambda g, path: g.addCodelets(ADD_K, "-DK=16"), 17.0),
    (lambda g, path: g.addCodelets(ADD_K, poplar.CodeletFileType.CppSource, "-DK=32"), 33.0),
])
def test_add_codelets_takes_the_sdks_argument_orders(tmp_path, call, expected):
    path = tmp_path / "add_k.cpp"
    path.write_text(ADD_K)
    device, graph = make_graph()
    assert call(graph, path) is True
    assert run_add_k(graph, device) == expected


def test_a_list_of_codelet_files_takes_no_file_type(tmp_path):
    _, graph = make_graph()
    with pytest.raises(TypeError, match="a list of paths takes no CodeletFileType"):
        graph.addCodelets([tmp_path / "x.cpp"], poplar.CodeletFileType.CppSource)


# ------------------------------------------------------------------ included files and the cache

def test_a_header_next_to_the_codelet_is_part_of_the_cache_key(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("POPDSL_CACHE_DIR", str(cache))
    monkeypatch.setenv("POPDSL_CHECK_VERTEX_ACCESS", "0")  # one library a header: no checked build
    codelet = tmp_path / "add_k.cpp"
    codelet.write_text('#include "k.hpp"\n' + ADD_K)
    header = tmp_path / "k.hpp"
    results = []
    for k in (2, 5, 2):
        header.write_text(f"#define K {k}\n")
        device, graph = make_graph()
        graph.addCodelets(codelet)
        results.append(run_add_k(graph, device))
    assert results == [3.0, 6.0, 3.0]
    # One library per header content (the third run found the first's), and one manifest
    # listing the header for the source.
    assert len(list((cache / "codelets").glob("*.so"))) == 2
    [manifest] = (cache / "codelets").glob("*.deps")
    assert manifest.read_text() == f"{header}\n"
