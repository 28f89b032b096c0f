"""popops data operations against float64 numpy: reduce, dynamic and multi slices,
fill/zero, cast, pad and scaled add, on tiny, odd and larger shapes, through
non-contiguous views, with the error cases poplibs defines."""
import subprocess

import numpy as np
import pytest

from popdsl import poplar, popops, poputil, program
from cpp_build import build_program

PTYPE = {np.float32: poplar.FLOAT, np.float16: poplar.HALF, np.int32: poplar.INT, np.uint32: poplar.UNSIGNED_INT,
         np.int16: poplar.SHORT, np.uint16: poplar.UNSIGNED_SHORT, np.int8: poplar.CHAR,
         np.uint8: poplar.UNSIGNED_CHAR, np.bool_: poplar.BOOL}
RTOL = {np.float32: 1e-6, np.float16: 1e-3}
VIEWS = ["plain", "transposed", "reversed", "strided"]
Op = popops.Operation


def tensor_from(graph, values, name, view="plain"):
    """A tensor holding `values`, seen through `view` of a differently laid out variable."""
    values = np.asarray(values)
    base, make_view = values, (lambda t: t)
    if view == "transposed" and values.ndim > 1:
        perm = list(reversed(range(values.ndim)))
        base, make_view = values.transpose(perm), (lambda t: t.dimShuffle(perm))
    elif view == "reversed" and values.ndim > 0:
        base, make_view = values[::-1], (lambda t: t.reverse(0))
    elif view == "strided" and values.ndim > 0:
        base = np.zeros(values.shape[:-1] + (2 * values.shape[-1],), values.dtype)
        base[..., ::2] = values
        base[..., 1::2] = 1  # junk between the viewed elements
        make_view = lambda t: t.subSample(2, values.ndim - 1)
    t = graph.addVariable(PTYPE[values.dtype.type], list(base.shape), name)
    poputil.mapTensorLinearly(graph, t)
    graph.setInitialValue(t, np.ascontiguousarray(base))
    return make_view(t)


def run(graph, device, prog, reads, repeats=1, before_run=None):
    """Runs `prog` and returns {name: array} for the tensors in `reads`."""
    for name, t in reads.items():
        graph.createHostRead(name, t)
    engine = poplar.Engine(graph, prog)
    engine.load(device)
    for i in range(repeats):
        if before_run:
            before_run(engine, i)
        engine.run(0)
    return {name: engine.readTensor(name, np.zeros(t.shape(), t.elementType().numpy_dtype))
            for name, t in reads.items()}


def assert_matches(actual, expected, dtype):
    """Floats within dtype-aware tolerance of the float64 reference; integers and bools exactly."""
    dtype = np.dtype(dtype).type
    assert actual.dtype == dtype
    if dtype in RTOL:
        expected = np.asarray(expected, np.float64)
        scale = max(1.0, float(np.max(np.abs(expected[np.isfinite(expected)]), initial=0)))
        np.testing.assert_allclose(actual.astype(np.float64), expected, rtol=RTOL[dtype], atol=RTOL[dtype] * scale)
    else:
        np.testing.assert_array_equal(actual, np.asarray(expected).astype(dtype))


def raises_poplibs_error(pattern):
    return pytest.raises(poputil.poplibs_error, match=pattern)


# --------------------------------------------------------------------------- reduce

def reference_reduce(op, x, dims):
    axes = tuple(dims)
    if op == Op.ADD:
        return x.sum(axis=axes)
    if op == Op.MUL:
        return x.prod(axis=axes)
    if op == Op.MIN:
        return x.min(axis=axes)
    if op == Op.MAX:
        return x.max(axis=axes)
    if op == Op.SQUARE_ADD:
        return (x * x).sum(axis=axes)
    if op == Op.LOG_ADD:
        return np.log(np.exp(x).sum(axis=axes))
    if op == Op.LOGICAL_AND:
        return x.all(axis=axes)
    return x.any(axis=axes)


def reduce_inputs(op, dtype, shape, rng):
    if dtype == np.bool_:
        return rng.random(shape) < (0.8 if op == Op.LOGICAL_AND else 0.2)
    if dtype == np.int32:
        return rng.integers(-3, 4, shape).astype(np.int32)
    if op == Op.MUL:
        return rng.uniform(0.7, 1.3, shape).astype(dtype)
    return rng.normal(0, 2, shape).astype(dtype)


# (shape, dims) cases: tiny, odd and larger; leading, trailing, middle, several and all dims.
REDUCE_CASES = [((1,), [0]), ((7,), [0]), ((3, 5), [0]), ((3, 5), [1]), ((3, 5), [0, 1]), ((1, 1), [1]),
                ((4, 3, 5), [1]), ((4, 3, 5), [0, 2]), ((4, 3, 5), [2, 0]), ((2, 3, 4, 5), [1, 2]),
                ((64, 33), [0]), ((33, 64), [1])]
REDUCE_TYPES = [(op, dt) for op in (Op.ADD, Op.MUL, Op.MIN, Op.MAX, Op.SQUARE_ADD)
                for dt in (np.float32, np.float16, np.int32)]
REDUCE_TYPES += [(Op.LOG_ADD, np.float32), (Op.LOG_ADD, np.float16),
                 (Op.LOGICAL_AND, np.bool_), (Op.LOGICAL_OR, np.bool_)]


@pytest.mark.parametrize("op,dtype", REDUCE_TYPES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_reduce_matches_numpy(graph, device, op, dtype):
    rng = np.random.default_rng(1)
    seq = program.Sequence()
    reads, expected = {}, {}
    for i, (shape, dims) in enumerate(REDUCE_CASES):
        view = VIEWS[i % len(VIEWS)]
        x = reduce_inputs(op, dtype, shape, rng)
        t = tensor_from(graph, x, f"x{i}", view)
        reads[f"r{i}"] = popops.reduce(graph, t, dims, popops.ReduceParams(op), seq, f"reduce{i}")
        expected[f"r{i}"] = reference_reduce(op, x.astype(np.float64) if dtype != np.bool_ else x, dims)
        assert reads[f"r{i}"].shape() == list(np.shape(expected[f"r{i}"]))
    results = run(graph, device, seq, reads)
    for name, want in expected.items():
        assert_matches(results[name], want, dtype)


# LOG_ADD along rows: the row's largest element, then one exp each. Rows far beyond exp's range,
# of -inf only (-inf), with +inf (+inf) and with NaN (NaN), long enough for the vector max.
def test_reduce_log_add_of_rows_keeps_its_range_and_special_values(graph, device):
    rng = np.random.default_rng(2)
    x = rng.normal(0, 3, (7, 100)).astype(np.float32)
    x[0] += 1000
    x[1] -= 1000
    x[2] = -np.inf
    x[3, 17] = np.inf
    x[4, 50] = np.nan
    x[5, :99] = -np.inf
    seq = program.Sequence()
    out = popops.reduce(graph, tensor_from(graph, x, "x"), [1], popops.ReduceParams(Op.LOG_ADD), seq)
    got = run(graph, device, seq, {"out": out})["out"]
    x64 = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        top = np.max(np.where(np.isinf(x64), -np.inf, x64), axis=1, keepdims=True)
        want = (top + np.log(np.exp(x64 - top).sum(1, keepdims=True)))[:, 0]
    want[[2, 3, 4]] = [-np.inf, np.inf, np.nan]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_reduce_int_add_wraps_like_the_device(graph, device):
    t = tensor_from(graph, np.array([2**31 - 1, 1, 5], np.int32), "big")
    seq = program.Sequence()
    out = popops.reduce(graph, t, [0], Op.ADD, seq)
    np.testing.assert_array_equal(run(graph, device, seq, {"o": out})["o"], np.int32(-2**31 + 5))


def test_reduce_half_accumulates_in_float_unless_asked_for_half(graph, device):
    ones = tensor_from(graph, np.ones(4096, np.float16), "ones")
    seq = program.Sequence()
    float_acc = popops.reduce(graph, ones, [0], Op.ADD, seq, "sum")
    half_acc = popops.reduce(graph, ones, [0], Op.ADD, seq, "halfsum", {"accumType.inVertex": "half"})
    out = run(graph, device, seq, {"f": float_acc, "h": half_acc})
    assert out["f"] == 4096  # 2048 + 1 rounds back to 2048 in half
    assert out["h"] == 2048


@pytest.mark.parametrize("in_type,out_type", [(np.float32, np.float16), (np.float16, np.float32)])
def test_reduce_with_output_type(graph, device, in_type, out_type):
    x = np.random.default_rng(2).normal(0, 1, (5, 9)).astype(in_type)
    t = tensor_from(graph, x, "x", "transposed")
    seq = program.Sequence()
    out = popops.reduce(graph, t, PTYPE[out_type], [1], Op.SQUARE_ADD, seq)
    assert out.elementType() == PTYPE[out_type]
    assert_matches(run(graph, device, seq, {"o": out})["o"], (x.astype(np.float64) ** 2).sum(1), out_type)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_reduce_with_output_updates_and_scales(graph, device, dtype):
    x = np.random.default_rng(3).normal(0, 1, (6, 4)).astype(dtype)
    t = tensor_from(graph, x, "x", "reversed")
    scale = tensor_from(graph, np.array([0.5], np.float32), "scale")
    start = np.array([1.0, -2.0, 3.0, 0.25], dtype)
    out = tensor_from(graph, start, "acc")
    log_out = tensor_from(graph, start, "logacc")
    seq = program.Sequence()
    popops.reduceWithOutput(graph, t, out, [0], popops.ReduceParams(Op.ADD, True, scale), seq)
    popops.reduceWithOutput(graph, t, log_out, [0], popops.ReduceParams(Op.LOG_ADD, True, scale), seq)
    got = run(graph, device, seq, {"o": out, "l": log_out}, repeats=2)
    xf, s = x.astype(np.float64), 0.5
    # out += s * sum(x), twice; for LOG_ADD the scale adds (log-multiply) and the update is a log-add.
    assert_matches(got["o"], start.astype(np.float64) + 2 * s * xf.sum(0), dtype)
    lse = np.log(np.exp(xf).sum(0)) + s
    assert_matches(got["l"], np.logaddexp(np.logaddexp(start.astype(np.float64), lse), lse), dtype)


def test_reduce_with_output_accepts_extra_singleton_dims_and_maps_unmapped_output(graph, device):
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    t = tensor_from(graph, x, "x")
    out = graph.addVariable(poplar.FLOAT, [1, 3, 1], "out")
    seq = program.Sequence()
    popops.reduceWithOutput(graph, t, out, [1], Op.MAX, seq)
    graph.getTileMapping(out)  # complete now
    assert_matches(run(graph, device, seq, {"o": out})["o"], x.max(1).reshape(1, 3, 1), np.float32)


def test_reduce_dims_are_a_set_and_may_cover_everything_or_nothing(graph, device):
    x = np.random.default_rng(4).normal(0, 1, (3, 4)).astype(np.float32)
    t = tensor_from(graph, x, "x", "strided")
    seq = program.Sequence()
    repeated = popops.reduce(graph, t, [1, 1], Op.ADD, seq)
    everything = popops.reduce(graph, t, [0, 1], Op.ADD, seq)
    nothing = popops.reduce(graph, t, [], Op.SQUARE_ADD, seq)
    assert repeated.shape() == [3] and everything.shape() == [] and nothing.shape() == [3, 4]
    out = run(graph, device, seq, {"r": repeated, "e": everything, "n": nothing})
    xf = x.astype(np.float64)
    assert_matches(out["r"], xf.sum(1), np.float32)
    assert_matches(out["e"], xf.sum(), np.float32)
    assert_matches(out["n"], xf * xf, np.float32)


def test_reduce_over_an_empty_dimension_gives_the_identity(graph, device):
    t = graph.addVariable(poplar.FLOAT, [0, 3], "empty")
    seq = program.Sequence()
    total = popops.reduce(graph, t, [0], Op.ADD, seq)
    biggest = popops.reduce(graph, t, [0], Op.MAX, seq)
    out = run(graph, device, seq, {"s": total, "m": biggest})
    np.testing.assert_array_equal(out["s"], np.zeros(3, np.float32))
    np.testing.assert_array_equal(out["m"], np.full(3, -np.inf, np.float32))


def test_reduce_many_creates_or_fills_outputs_in_one_compute_set(graph, device):
    x = np.random.default_rng(5).normal(0, 1, (4, 6)).astype(np.float32)
    t = tensor_from(graph, x, "x")
    seq = program.Sequence()
    ops = [popops.SingleReduceOp(t, [0], Op.ADD, "colsum"),
           popops.SingleReduceOp(t, [1], popops.ReduceParams(Op.SQUARE_ADD), poplar.HALF, "rowsquares")]
    outputs = []
    assert popops.reduceMany(graph, ops, outputs, seq) is outputs
    assert [o.shape() for o in outputs] == [[6], [4]] and outputs[1].elementType() == poplar.HALF
    given = [graph.addVariable(poplar.FLOAT, [6], "given")]
    popops.reduceMany(graph, ops[:1], given, seq)
    out = run(graph, device, seq, {"a": outputs[0], "b": outputs[1], "c": given[0]})
    assert_matches(out["a"], x.astype(np.float64).sum(0), np.float32)
    assert_matches(out["b"], (x.astype(np.float64) ** 2).sum(1), np.float16)
    assert_matches(out["c"], x.astype(np.float64).sum(0), np.float32)


def test_reduce_compute_set_form_appends_to_the_list(graph, device):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = tensor_from(graph, x, "x")
    css = []
    out = popops.reduce(graph, t, [0], Op.MUL, css, "prod")
    assert len(css) == 1
    seq = program.Sequence([program.Execute(cs) for cs in css])
    np.testing.assert_array_equal(run(graph, device, seq, {"o": out})["o"], x.prod(0))


def test_reduce_errors_name_the_tensors_types_and_operation(graph):
    seq = program.Sequence()
    f = graph.addVariable(poplar.FLOAT, [3, 4], "fin")
    u = graph.addVariable(poplar.UNSIGNED_INT, [3], "uin")
    b = graph.addVariable(poplar.BOOL, [3], "bin")
    with raises_poplibs_error(r"dimension 2 is out of range for input 'fin' \[3,4\] float"):
        popops.reduce(graph, f, [2], Op.ADD, seq)
    with raises_poplibs_error(r"operation MAX does not support input 'uin' \[3\] unsigned int"):
        popops.reduce(graph, u, [0], Op.MAX, seq)
    with raises_poplibs_error(r"operation LOGICAL_AND does not support input 'fin'"):
        popops.reduce(graph, f, [0], Op.LOGICAL_AND, seq)
    with raises_poplibs_error(r"operation ADD does not support input 'bin' \[3\] bool"):
        popops.reduce(graph, b, [0], Op.ADD, seq)
    with raises_poplibs_error(r"operation MAX does not support input 'fin' .* output type half"):
        popops.reduce(graph, f, poplar.HALF, [0], Op.MAX, seq)
    out = graph.addVariable(poplar.FLOAT, [4], "fout")
    with raises_poplibs_error(r"only supported for ADD, SQUARE_ADD and LOG_ADD, not MIN"):
        popops.reduceWithOutput(graph, f, out, [0], popops.ReduceParams(Op.MIN, True), seq)
    with raises_poplibs_error(r"Cannot do an update using reduce\(\) \(input 'fin'.*call reduceWithOutput"):
        popops.reduce(graph, f, [0], popops.ReduceParams(Op.ADD, True), seq)
    with raises_poplibs_error(r"output 'fout' \[4\] float does not have the shape \[3\]"):
        popops.reduceWithOutput(graph, f, out, [1], Op.ADD, seq)
    two = graph.addVariable(poplar.FLOAT, [2], "two")
    with raises_poplibs_error(r"the scale 'two' \[2\] float must be one numeric element"):
        popops.reduceWithOutput(graph, f, out, [0], popops.ReduceParams(Op.ADD, False, two), seq)
    for constant_scale in (2.0, np.float32(2.0), 1):
        with pytest.raises(TypeError, match="update must be a bool.*pass the scale as a one-element tensor"):
            popops.ReduceParams(Op.ADD, constant_scale)
    assert popops.ReduceParams(Op.ADD, np.True_).update and popops.ReduceParams(Op.MAX).op == Op.MAX
    assert popops.ReduceParams().op == Op.ADD and not popops.ReduceParams().update
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'accumType.outer'"):
        popops.reduce(graph, f, [0], Op.ADD, seq, "r", {"accumType.outer": "float"})
    with pytest.raises(poplar.invalid_option, match="Invalid value 'double' for option 'accumType.inVertex'"):
        popops.reduce(graph, f, [0], Op.ADD, seq, "r", {"accumType.inVertex": "double"})


# --------------------------------------------------------------------------- dynamic slices

def offset_tensor(graph, n=1, name="offset"):
    off = graph.addVariable(poplar.UNSIGNED_INT, [n], name)
    graph.setTileMapping(off, 0)
    graph.createHostWrite(name, off)
    return off


def wrapped_rows(dim_size, start, size):
    return (start + np.arange(size)) % dim_size


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("view", VIEWS)
def test_dynamic_slice_wraps_and_skips_out_of_range_offsets(graph, device, dtype, view):
    rng = np.random.default_rng(6)
    x = (rng.integers(0, 100, (7, 5)) % (2 if dtype == np.bool_ else 100)).astype(dtype)
    t = tensor_from(graph, x, "table", view)
    off = offset_tensor(graph)
    seq = program.Sequence()
    rows = popops.dynamicSlice(graph, t, off, [0], [3], seq, "rows")
    cols = popops.dynamicSlice(graph, t, off, [1], [2], seq, "cols")
    graph.createHostRead("rows", rows)
    graph.createHostRead("cols", cols)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    expect_rows, expect_cols = np.zeros((3, 5), dtype), np.zeros((7, 2), dtype)
    for start in [0, 2, 5, 6, 7, 100, 4, 2**32 - 1, 1]:
        engine.writeTensor("offset", np.array([start], np.uint32))
        engine.run(0)
        if start < 7:  # otherwise skipped: the output keeps its previous value
            expect_rows = x[wrapped_rows(7, start, 3)]
        if start < 5:
            expect_cols = x[:, wrapped_rows(5, start, 2)]
        np.testing.assert_array_equal(engine.readTensor("rows", np.zeros((3, 5), dtype)), expect_rows)
        np.testing.assert_array_equal(engine.readTensor("cols", np.zeros((7, 2), dtype)), expect_cols)


def test_dynamic_slice_of_several_dims_in_any_order_with_a_per_tile_offset(graph, device):
    x = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    t = tensor_from(graph, x, "cube", "transposed")
    off = graph.addVariable(poplar.UNSIGNED_INT, [2, 3], "offsets")  # second dim: one copy per tile
    graph.setTileMapping(off, 0)
    graph.createHostWrite("offsets", off)
    seq = program.Sequence()
    out = popops.dynamicSlice(graph, t, off, [2, 0], [4, 3], seq)
    assert out.shape() == [3, 5, 4]
    graph.createHostRead("out", out)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    for d2, d0 in [(0, 0), (3, 2), (5, 3)]:
        engine.writeTensor("offsets", np.array([[d2] * 3, [d0] * 3], np.uint32))
        engine.run(0)
        want = x[wrapped_rows(4, d0, 3)][:, :, wrapped_rows(6, d2, 4)]
        np.testing.assert_array_equal(engine.readTensor("out", np.zeros((3, 5, 4), np.float32)), want)


def test_dynamic_slice_options_remap_out_of_range_and_pad_with_zeros(graph, device):
    x = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
    t = tensor_from(graph, x, "x")
    off = offset_tensor(graph)
    seq = program.Sequence()
    remapped = popops.dynamicSlice(graph, t, off, [0], [2], seq, "remap", {"remapOutOfBoundIndices": True})
    padded = popops.dynamicSlice(graph, t, off, [0], [1], seq, "pad", {"paddingIndexUsed": "true"})
    graph.createHostRead("remapped", remapped)
    graph.createHostRead("padded", padded)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    cases = [(3, x[[3, 0]], x[[3]]), (9, x[[0, 1]], x[[3]]), (4, x[[0, 1]], np.zeros((1, 3)))]
    for start, want_remap, want_pad in cases:
        engine.writeTensor("offset", np.array([start], np.uint32))
        engine.run(0)
        np.testing.assert_array_equal(engine.readTensor("remapped", np.zeros((2, 3), np.float32)), want_remap)
        np.testing.assert_array_equal(engine.readTensor("padded", np.zeros((1, 3), np.float32)), want_pad)


def test_dynamic_slice_reads_an_int_offset_as_unsigned(graph, device):
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    t = tensor_from(graph, x, "x")
    off = graph.addVariable(poplar.INT, [1], "ioff")
    graph.setTileMapping(off, 0)
    graph.createHostWrite("ioff", off)
    seq = program.Sequence()
    out = popops.dynamicSlice(graph, t, off, [0], [1], seq)
    graph.createHostRead("out", out)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    for start, want in [(2, x[[2]]), (-1, x[[2]]), (3, x[[3]])]:  # -1 is 2**32 - 1: skipped
        engine.writeTensor("ioff", np.array([start], np.int32))
        engine.run(0)
        np.testing.assert_array_equal(engine.readTensor("out", np.zeros((1, 2), np.float32)), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_dynamic_update_wraps_and_skips_out_of_range_offsets(graph, device, dtype):
    base = np.arange(6 * 4).reshape(6, 4).astype(dtype)
    t = tensor_from(graph, base, "t", "transposed")
    update = -(np.arange(3 * 4).reshape(3, 4) + 1).astype(dtype)
    s = tensor_from(graph, update, "s", "reversed")
    off = offset_tensor(graph)
    seq = program.Sequence()
    popops.dynamicUpdate(graph, t, s, off, [0], [3], seq, "update")
    graph.createHostRead("t", t)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    want = base.copy()
    for start in [4, 6, 1]:
        engine.writeTensor("offset", np.array([start], np.uint32))
        engine.run(0)
        if start < 6:
            want[wrapped_rows(6, start, 3)] = update
        np.testing.assert_array_equal(engine.readTensor("t", np.zeros((6, 4), dtype)), want)


def test_dynamic_slices_in_a_repeat_with_device_counters_reverse_the_rows(graph, device):
    n = 9
    x = np.random.default_rng(7).normal(0, 1, (n, 5)).astype(np.float32)
    t = tensor_from(graph, x, "x")
    out = popops.createSliceableTensor(graph, poplar.FLOAT, [n, 5], [0], [1], 0, "out")
    up = tensor_from(graph, np.array([0], np.uint32), "up")
    down = tensor_from(graph, np.array([n - 1], np.uint32), "down")
    one = tensor_from(graph, np.array([1], np.uint32), "one")
    body = program.Sequence()
    row = popops.dynamicSlice(graph, t, up, [0], [1], body, "row")
    popops.dynamicUpdate(graph, out, row, down, [0], [1], body, "put")
    popops.scaledAddTo(graph, up, one, 1.0, body, "up+=1")
    popops.scaledSubtractFrom(graph, down, one, 1.0, body, "down-=1")
    got = run(graph, device, program.Repeat(n, body), {"out": out, "up": up})
    np.testing.assert_array_equal(got["out"], x[::-1])
    np.testing.assert_array_equal(got["up"], [n])


def test_dynamic_slice_offsets_from_a_stream_inside_a_repeat(graph, device):
    x = np.arange(10, dtype=np.int32) * 3
    t = tensor_from(graph, x, "x")
    off = graph.addVariable(poplar.UNSIGNED_INT, [1], "off")
    graph.setTileMapping(off, 1)
    stream = graph.addHostToDeviceFIFO("offsets", poplar.UNSIGNED_INT, 1)
    total = tensor_from(graph, np.array([0], np.int32), "total")
    one = tensor_from(graph, np.array([1], np.int32), "one")
    body = program.Sequence([program.Copy(stream, off)])
    picked = popops.dynamicSlice(graph, t, off, [0], [1], body, "pick")
    popops.scaledAddTo(graph, total, picked, one, body, "total+=picked")
    graph.createHostRead("total", total)
    engine = poplar.Engine(graph, program.Repeat(5, body))
    engine.load(device)
    offsets = np.array([1, 7, 12, 9, 0], np.uint32)  # 12 is skipped: 'picked' keeps x[7]
    engine.connectStream("offsets", offsets)
    engine.run(0)
    np.testing.assert_array_equal(engine.readTensor("total", np.zeros(1, np.int32)), [3 + 21 + 21 + 27 + 0])


def test_dynamic_slice_with_output_and_slice_mapping(graph, device):
    x = np.arange(20, dtype=np.float32).reshape(5, 4)
    t = tensor_from(graph, x, "x")
    off = tensor_from(graph, np.array([3], np.uint32), "off")
    output = popops.createDynamicSliceOutput(graph, t, off, [0], [2], "slice")
    assert output.shape() == [2, 4]
    mapping = popops.getSliceMapping(graph, t, [0], [2])
    assert sum(i.size() for tile in mapping for i in tile) == 8
    seq = program.Sequence()
    popops.dynamicSliceWithOutput(graph, output, t, off, [0], [2], seq)
    np.testing.assert_array_equal(run(graph, device, seq, {"o": output})["o"], x[[3, 4]])


def covered_elements(mapping):
    return sorted(e for tile in mapping for i in tile for e in range(i.begin(), i.end()))


def test_create_sliceable_tensor_maps_whole_columns_to_tiles(graph):
    t = popops.createSliceableTensor(graph, poplar.HALF, [8, 3, 6], [0], [1], 0, "table")
    mapping = graph.getTileMapping(t)
    assert covered_elements(mapping) == list(range(8 * 3 * 6))
    tile_of = np.zeros(8 * 3 * 6, int)
    for tile, intervals in enumerate(mapping):
        for i in intervals:
            tile_of[i.begin():i.end()] = tile
    tile_of = tile_of.reshape(8, 18)
    assert (tile_of == tile_of[0]).all()  # every row of a column on one tile
    assert len(set(tile_of[0])) == 4
    coarse = popops.createSliceableTensor(graph, poplar.FLOAT, [8, 18], [0], [1], 10, "coarse")
    assert sum(1 for tile in graph.getTileMapping(coarse) if tile) == 2  # at least 10 columns per tile
    one_column = popops.createSliceableTensor(graph, poplar.INT, [100], [0], [1])
    assert covered_elements(graph.getTileMapping(one_column)) == list(range(100))


def test_slice_tensor_creation_shapes(graph):
    t = graph.addVariable(poplar.FLOAT, [10, 4, 3], "t")
    assert popops.createSliceTensor(graph, t, [1], [2], 5).shape() == [5, 10, 2, 3]
    plan = popops.embedding.plan(graph, poplar.FLOAT, 10, 12, [5], {"usedForUpdate": False})
    assert plan != popops.SlicePlan() and "numEntries=10" in repr(plan)
    assert repr(popops.SlicePlan()) == "SlicePlan(null)"
    s = popops.createSliceTensor(graph, poplar.HALF, [10, 12], [0], [1], 5, plan, {})
    assert s.shape() == [5, 1, 12] and s.elementType() == poplar.HALF
    idx = popops.createIndicesTensor(graph, [0], 5, plan, {})
    assert idx.shape() == [5, 1] and idx.elementType() == poplar.UNSIGNED_INT
    big = popops.createSliceableTensorFromSlice(graph, t, [0, 2], [3, 2])
    assert big.shape() == [30, 4, 6]
    covered_elements(graph.getTileMapping(big))
    planned = popops.createSliceableTensor(graph, poplar.FLOAT, [10, 12], [0], [1], plan, {})
    assert covered_elements(graph.getTileMapping(planned)) == list(range(120))


def test_dynamic_slice_errors(graph):
    seq = program.Sequence()
    t = graph.addVariable(poplar.FLOAT, [6, 4], "tab")
    u = graph.addVariable(poplar.UNSIGNED_INT, [1], "off")
    with pytest.raises(poplar.graph_connection_error, match=r"offset 'foff' \[1\] float must be UNSIGNED_INT"):
        popops.dynamicSlice(graph, t, graph.addVariable(poplar.FLOAT, [1], "foff"), [0], [1], seq)
    with raises_poplibs_error(r"offset 'off2' \[2\] unsigned int must have 1 rows .* 'tab' \[6,4\]"):
        popops.dynamicSlice(graph, t, graph.addVariable(poplar.UNSIGNED_INT, [2], "off2"), [0], [1], seq)
    with raises_poplibs_error(r"offset 'percopy' \[1,0\] unsigned int must have 1 rows"):
        popops.dynamicSlice(graph, t, graph.addVariable(poplar.UNSIGNED_INT, [1, 0], "percopy"), [0], [1], seq)
    with raises_poplibs_error(r"dims \[0\] and sizes \[1,1\] of the slice of 'tab'"):
        popops.dynamicSlice(graph, t, u, [0], [1, 1], seq)
    with raises_poplibs_error(r"getSliceMapping: dims \[0\] and sizes \[\] of the slice of 'tab'"):
        popops.getSliceMapping(graph, t, [0], [])
    with pytest.raises(poplar.graph_connection_error, match=r"dimension 2 is out of range for 'tab'"):
        popops.dynamicSlice(graph, t, u, [2], [1], seq)
    with pytest.raises(poplar.graph_connection_error, match=r"slice size 7 is larger than dimension 0 of 'tab'"):
        popops.dynamicSlice(graph, t, u, [0], [7], seq)
    two = graph.addVariable(poplar.UNSIGNED_INT, [2], "two")
    with pytest.raises(poplar.graph_connection_error, match=r"dimension 1 is repeated in dims \[1,1\] for 'tab'"):
        popops.dynamicSlice(graph, t, two, [1, 1], [1, 1], seq)
    s = graph.addVariable(poplar.FLOAT, [2, 3], "upd")
    with raises_poplibs_error(r"slice 'upd' \[2,3\] float does not match 'tab' \[6,4\] float sliced to \[2,4\]"):
        popops.dynamicUpdate(graph, t, s, u, [0], [2], seq)
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'wrap'"):
        popops.dynamicSlice(graph, t, u, [0], [1], seq, "s", {"wrap": "true"})
    with pytest.raises(poplar.invalid_option, match="Invalid value 'yes' for option 'remapOutOfBoundIndices'"):
        popops.dynamicSlice(graph, t, u, [0], [1], seq, "s", {"remapOutOfBoundIndices": "yes"})


# --------------------------------------------------------------------------- multi slices

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_multi_slice_and_update(graph, device, dtype):
    x = np.arange(7 * 3).reshape(7, 3).astype(dtype)
    t = tensor_from(graph, x, "t", "reversed")
    idx = np.array([[2], [6], [9], [2], [0]], np.uint32)  # 9 is out of range: skipped
    offsets = tensor_from(graph, idx, "idx")
    seq = program.Sequence()
    plan = popops.SlicePlan()
    sliced = popops.multiSlice(graph, t, offsets, [0], [1], seq, plan, {})
    wide = popops.multiSlice(graph, t, offsets, [1], [2], seq, plan, {})  # slices of 2 columns
    assert sliced.shape() == [5, 1, 3] and wide.shape() == [5, 7, 2]
    static = popops.multiSlice(graph, t, [4, 1], 0, seq)
    target = tensor_from(graph, np.zeros((7, 3), dtype), "target", "transposed")
    updates = tensor_from(graph, (np.arange(5 * 3).reshape(5, 1, 3) + 1).astype(dtype), "updates")
    popops.multiUpdate(graph, target, updates, offsets, [0], [1], seq, plan, {})
    out = run(graph, device, seq, {"s": sliced, "w": wide, "static": static, "target": target})
    want = np.zeros((5, 1, 3), dtype)
    want[[0, 1, 3, 4], 0] = x[[2, 6, 2, 0]]
    np.testing.assert_array_equal(out["s"], want)
    want_wide = np.zeros((5, 7, 2), dtype)  # column offsets: 9 and 6 skip (3 columns), 2 wraps
    for n, i in enumerate(idx[:, 0]):
        if i < 3:
            want_wide[n] = x[:, wrapped_rows(3, i, 2)]
    np.testing.assert_array_equal(out["w"], want_wide)
    np.testing.assert_array_equal(out["static"], x[[4, 1]].reshape(2, 1, 3))
    want_target = np.zeros((7, 3), dtype)
    for n, i in enumerate(idx[:, 0]):  # in index order: the later duplicate wins
        if i < 7:
            want_target[i] = n * 3 + np.arange(1, 4)
    np.testing.assert_array_equal(out["target"], want_target)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint32])
def test_multi_update_add_max_and_mul_accumulate_repeated_indices(graph, device, dtype):
    rng = np.random.default_rng(8)
    base = rng.integers(1, 5, (6, 4)).astype(dtype)
    upd = rng.integers(1, 5, (5, 1, 4)).astype(dtype)
    idx = np.array([[1], [3], [1], [8], [5]], np.uint32)
    tensors = {k: tensor_from(graph, base, k, "strided") for k in ("add", "max", "mul", "static")}
    u = tensor_from(graph, upd, "u")
    offsets = tensor_from(graph, idx, "idx")
    scale = tensor_from(graph, np.array([2], dtype), "scale")
    seq = program.Sequence()
    plan = popops.SlicePlan()
    popops.multiUpdateAdd(graph, tensors["add"], u, offsets, scale, [0], [1], seq, plan, {})
    popops.multiUpdateMax(graph, tensors["max"], u, offsets, [0], [1], seq, plan, {})
    popops.multiUpdateMul(graph, tensors["mul"], u, offsets, [0], [1], seq, plan, {})
    popops.multiUpdateAdd(graph, tensors["static"], u, [0, 2, 0, 1, 5], scale, 0, seq)
    out = run(graph, device, seq, tensors)
    want = {k: base.astype(np.float64) for k in tensors}
    for n, i in enumerate(idx[:, 0]):
        if i < 6:
            want["add"][i] += 2 * upd[n, 0]
            want["max"][i] = np.maximum(want["max"][i], upd[n, 0])
            want["mul"][i] *= upd[n, 0]
    for n, i in enumerate([0, 2, 0, 1, 5]):
        want["static"][i] += 2 * upd[n, 0]
    for k in tensors:
        assert_matches(out[k], want[k], dtype)


def test_multi_slice_errors(graph):
    seq = program.Sequence()
    plan = popops.SlicePlan()
    t = graph.addVariable(poplar.FLOAT, [6, 4], "tab")
    flat = graph.addVariable(poplar.UNSIGNED_INT, [3], "flat")
    with raises_poplibs_error(r"offsets 'flat' \[3\] unsigned int must have shape \[numIndices, 1\]"):
        popops.multiSlice(graph, t, flat, [0], [1], seq, plan, {})
    idx = graph.addVariable(poplar.UNSIGNED_INT, [3, 1], "idx")
    with raises_poplibs_error(r"dims \[0,1\] and sizes \[1,1\] must each have one element"):
        popops.multiSlice(graph, t, idx, [0, 1], [1, 1], seq, plan, {})
    with pytest.raises(poplar.graph_connection_error, match=r"offset 'fidx' \[3,1\] float must be UNSIGNED_INT"):
        popops.multiSlice(graph, t, graph.addVariable(poplar.FLOAT, [3, 1], "fidx"), [0], [1], seq, plan, {})
    with raises_poplibs_error(r"offset 6 is out of range for dimension 0 of 'tab'"):
        popops.multiSlice(graph, t, [1, 6], 0, seq)
    s = graph.addVariable(poplar.FLOAT, [2, 1, 4], "s")
    with raises_poplibs_error(r"slices 's' \[2,1,4\] float do not match 'tab'"):
        popops.multiUpdate(graph, t, s, idx, [0], [1], seq, plan, {})
    short = graph.addVariable(poplar.SHORT, [6, 4], "short")
    with raises_poplibs_error(r"multiUpdateMax: 'short' \[6,4\] short has an unsupported element type"):
        popops.multiUpdateMax(graph, short, graph.addVariable(poplar.SHORT, [3, 1, 4]), idx, [0], [1], seq, plan, {})


# --------------------------------------------------------------------------- fill and zero

FILL_TYPES = [np.float32, np.float16, np.int32, np.uint32, np.int8, np.uint8, np.bool_]


@pytest.mark.parametrize("dtype", FILL_TYPES)
def test_fill_and_zero_write_only_the_viewed_elements(graph, device, dtype):
    base = np.arange(1, 6 * 5 + 1).reshape(6, 5).astype(dtype)
    a, b, c = (tensor_from(graph, base, n) for n in "abc")
    seq = program.Sequence()
    popops.fill(graph, a.slice(1, 4, 1), seq, 3, "fill-int")           # a column range
    popops.fill(graph, b.reverse(0).subSample(2, 0), seq, 2.0, "fill-float")  # every other row, reversed
    popops.zero(graph, c.transpose()[2], seq, "zero")                    # row 2 through a transpose
    out = run(graph, device, seq, {"a": a, "b": b, "c": c})
    want_a, want_b, want_c = base.copy(), base.copy(), base.copy()
    want_a[:, 1:4], want_b[1::2], want_c[:, 2] = 3, 2, 0
    for k, want in (("a", want_a), ("b", want_b), ("c", want_c)):
        np.testing.assert_array_equal(out[k], want)


def test_fill_converts_the_value_to_the_element_type(graph, device):
    h = tensor_from(graph, np.zeros(3, np.float16), "h")
    i = tensor_from(graph, np.zeros(3, np.int32), "i")
    u = tensor_from(graph, np.zeros(3, np.uint32), "u")
    f = tensor_from(graph, np.zeros(3, np.float32), "f")
    seq = program.Sequence()
    popops.fill(graph, h, seq, 0.1)
    popops.fill(graph, f, seq, np.float32(2.5))  # a numpy float stays a float
    popops.fill(graph, i, seq, -10000)
    popops.fill(graph, u, seq, 4294967295)
    out = run(graph, device, seq, {"h": h, "i": i, "u": u, "f": f})
    np.testing.assert_array_equal(out["f"], [2.5] * 3)
    np.testing.assert_array_equal(out["h"], np.full(3, 0.1, np.float16))
    np.testing.assert_array_equal(out["i"], [-10000] * 3)
    np.testing.assert_array_equal(out["u"], [4294967295] * 3)


def test_fill_and_zero_compute_set_forms_cover_the_given_regions(graph, device):
    t = tensor_from(graph, np.ones(100, np.float32), "t")  # 32 elements on each of tiles 0..2, 4 on tile 3
    z = tensor_from(graph, np.ones(100, np.float32), "z")
    cs = graph.addComputeSet("fills")
    popops.fill(graph, t, 1, cs, 5.0)                                # the elements on tile 1
    popops.fill(graph, t, [poplar.Interval(0, 2), (98, 100)], 0, cs, 7)  # explicit regions
    popops.zero(graph, z, graph.getTileMapping(z)[2:], cs)          # a mapping: tiles 2.. of it
    out = run(graph, device, program.Execute(cs), {"t": t, "z": z})
    want_t = np.ones(100)
    want_t[32:64], want_t[[0, 1, 98, 99]] = 5, 7
    np.testing.assert_array_equal(out["t"], want_t)
    np.testing.assert_array_equal(out["z"], np.r_[np.ones(64), np.zeros(36)])


def test_fill_unsupported_type_names_the_tensor(graph):
    s = graph.addVariable(poplar.SHORT, [4], "shorts")
    with raises_poplibs_error(r"cannot fill 'shorts' \[4\] short: popops has no fill for type short"):
        popops.fill(graph, s, program.Sequence(), 1)
    with raises_poplibs_error(r"cannot fill 'shorts'"):
        popops.zero(graph, s, program.Sequence())


# --------------------------------------------------------------------------- cast

CAST_TYPES = [np.float32, np.float16, np.int32, np.uint32, np.int16, np.uint16, np.int8, np.uint8, np.bool_]


def cast_reference(x, dst):
    """The emulator's rules: float to integer truncates and saturates, integer to
    integer wraps, non-zero is true."""
    if dst == np.bool_:
        return x != 0
    if np.issubdtype(x.dtype, np.floating) and not np.issubdtype(dst, np.floating):
        limits = np.iinfo(dst)
        return np.clip(np.trunc(x.astype(np.float64)), limits.min, limits.max).astype(dst)
    return x.astype(np.int64).astype(dst) if x.dtype == np.bool_ else x.astype(dst)


@pytest.mark.parametrize("src", CAST_TYPES, ids=lambda t: t.__name__)
def test_cast_between_all_types(graph, device, src):
    # Values every type holds exactly (bool aside), plus fractions, negatives and
    # wrapping integers where the source has them.
    values = [0, 1, 2, 3, 100, 127]
    if np.issubdtype(src, np.floating):
        values += [2.75, -2.75, 0.5, -1]
    elif np.issubdtype(src, np.signedinteger):
        values += [-1, -100]
    if src in (np.int32, np.uint32, np.int16, np.uint16):
        values += [300, 65535 if src in (np.uint16, np.int32, np.uint32) else 1000]
    x = np.array(values).astype(src) if src != np.bool_ else np.array([0, 1, 1, 0, 1], bool)
    t = tensor_from(graph, x, "src", "reversed")
    seq = program.Sequence()
    outs = {dst.__name__: popops.cast(graph, t, PTYPE[dst], seq, f"to_{dst.__name__}") for dst in CAST_TYPES}
    got = run(graph, device, seq, outs)
    for dst in CAST_TYPES:
        with np.errstate(over="ignore"):  # 65535 is beyond half's range: inf
            want = cast_reference(x, dst)
        np.testing.assert_array_equal(got[dst.__name__], want, err_msg=f"{src.__name__} -> {dst.__name__}")


# Every half, and a million floats' bit patterns with the edges of half's range: casts convert
# eight at a time with F16C where the CPU has it, and must give the bits of IEEE rounding to
# nearest (even), a NaN's payload kept from half to float, every NaN one quiet NaN from float to half.
def test_cast_between_float_and_half_gives_the_bits_of_ieee_rounding(graph, device):
    halves = np.arange(1 << 16, dtype=np.uint16)
    rng = np.random.default_rng(5)
    edges = np.array([0.0, -0.0, 65504, 65519.996, 65520, -65520, 2.0**-24, 2.0**-25, 2.0**-25 * 1.0000001,
                      2.0**-14, 1e-8, np.inf, -np.inf, np.nan], np.float32).view(np.uint32)
    floats = np.concatenate([rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint32), edges])
    seq = program.Sequence()
    half_bits = tensor_from(graph, halves, "halves").reinterpret(poplar.HALF)  # NaN payloads as they are
    to_float = popops.cast(graph, half_bits, poplar.FLOAT, seq)
    to_half = popops.cast(graph, tensor_from(graph, floats.view(np.float32), "floats"), poplar.HALF, seq)
    got = run(graph, device, seq, {"float": to_float, "half": to_half})
    nan_halves = (halves & 0x7c00) == 0x7c00
    nan_halves &= (halves & 0x3ff) != 0
    bits = halves.astype(np.uint32)
    want_floats = np.where(nan_halves, (bits & 0x8000) << 16 | 0x7f800000 | (bits & 0x3ff) << 13,
                           halves.view(np.float16).astype(np.float32).view(np.uint32))
    np.testing.assert_array_equal(got["float"].view(np.uint32), want_floats)
    nan_floats = np.isnan(floats.view(np.float32))
    with np.errstate(over="ignore"):
        rounded = floats.view(np.float32).astype(np.float16).view(np.uint16)
    want_halves = np.where(nan_floats, (floats >> 16 & 0x8000) | 0x7e00, rounded)
    np.testing.assert_array_equal(got["half"].view(np.uint16), want_halves)


def test_cast_saturates_float_to_integer_and_maps_nan_to_zero(graph, device):
    t = tensor_from(graph, np.array([1e10, -1e10, np.nan, 3.9], np.float32), "f")
    seq = program.Sequence()
    i = popops.cast(graph, t, poplar.INT, seq)
    u = popops.cast(graph, t, poplar.UNSIGNED_INT, seq)
    out = run(graph, device, seq, {"i": i, "u": u})
    np.testing.assert_array_equal(out["i"], [2**31 - 1, -2**31, 0, 3])
    np.testing.assert_array_equal(out["u"], [2**32 - 1, 0, 0, 3])


def test_cast_forms_same_type_copy_with_output_program_and_compute_set(graph, device):
    x = np.array([[1.5, -2.25], [3.0, 4.75]], np.float32)
    t = tensor_from(graph, x, "x", "transposed")
    seq = program.Sequence()
    same = popops.cast(graph, t, poplar.FLOAT, seq)
    into = tensor_from(graph, np.zeros((2, 2), np.float16), "into")
    popops.castWithOutput(graph, t, into, seq)
    prog_dst = tensor_from(graph, np.zeros((2, 2), np.int32), "progdst")
    seq.add(popops.cast(graph, t, prog_dst, "as-program"))
    cs = graph.addComputeSet("casts")
    cs_new = popops.cast(graph, t, poplar.SHORT, cs)
    cs_dst = tensor_from(graph, np.zeros((2, 2), np.uint8), "csdst")
    popops.cast(graph, t.reverse(1), cs_dst, cs)
    seq.add(program.Execute(cs))
    out = run(graph, device, seq, {"same": same, "into": into, "prog": prog_dst, "csnew": cs_new, "csdst": cs_dst})
    np.testing.assert_array_equal(out["same"], x)
    np.testing.assert_array_equal(out["into"], x.astype(np.float16))
    np.testing.assert_array_equal(out["prog"], [[1, -2], [3, 4]])
    np.testing.assert_array_equal(out["csnew"], [[1, -2], [3, 4]])
    np.testing.assert_array_equal(out["csdst"], [[0, 1], [4, 3]])  # -2.25 saturates to 0


def test_cast_errors(graph):
    seq = program.Sequence()
    f = graph.addVariable(poplar.FLOAT, [3], "f")
    with raises_poplibs_error(r"cannot cast 'f' \[3\] float to long long: unsupported element type"):
        popops.cast(graph, f, poplar.LONGLONG, seq)
    with raises_poplibs_error(r"source 'f' \[3\] float and destination 'g' \[4\] half have different shapes"):
        popops.castWithOutput(graph, f, graph.addVariable(poplar.HALF, [4], "g"), seq)


# --------------------------------------------------------------------------- pad

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_constant_pad_matches_numpy(graph, device, dtype):
    x = np.arange(1, 13).reshape(3, 4).astype(dtype)
    t = tensor_from(graph, x, "x", "transposed")
    val = tensor_from(graph, np.array([9], dtype), "val")
    padded = {"float": popops.pad(graph, t, [1, 2], [0, 1], 2.5 if dtype != np.int32 else 2.0),
              "int": popops.pad(graph, t, [0, 0], [2, 1], -3),
              "truncate": popops.pad(graph, t, [-1, 1], [1, -2], 5, popops.padding.MappingMethod.EDGE),
              "tensor": popops.pad(graph, t, [1, 1], [1, 1], val),
              "one_dim": popops.pad(graph, t, 2, 0, 1),
              "default": popops.pad(graph, t, [1, 0], [0, 0])}
    assert padded["tensor"].containsConstant() is False and padded["float"].containsConstant()
    out = run(graph, device, program.Sequence(), padded)
    fill = 2.5 if dtype != np.int32 else 2
    want = {"float": np.pad(x, ((1, 0), (2, 1)), constant_values=fill).astype(dtype),
            "int": np.pad(x, ((0, 2), (0, 1)), constant_values=-3),
            "truncate": np.pad(x[1:, :2], ((0, 1), (1, 0)), constant_values=5),
            "tensor": np.pad(x, 1, constant_values=9),
            "one_dim": np.pad(x, ((0, 0), (2, 0))),
            "default": np.pad(x, ((1, 0), (0, 0)))}
    for k in padded:
        np.testing.assert_array_equal(out[k], want[k].astype(dtype), err_msg=k)


def test_constant_pad_mapping_methods(graph):
    t = tensor_from(graph, np.zeros((4, 40), np.float32), "x")  # rows are spread over the tiles
    edge = popops.pad(graph, t, [1, 0], [0, 0], 0.0, popops.padding.MappingMethod.EDGE)
    first_row, padding_row = graph.getTileMapping(edge[1]), graph.getTileMapping(edge[0])
    assert [[(i.begin(), i.end()) for i in tile] for tile in first_row] == \
           [[(i.begin(), i.end()) for i in tile] for tile in padding_row]
    zero = popops.pad(graph, t, [0, 0], [0, 3], 1.0, popops.padding.MappingMethod.ZERO)
    assert covered_elements(graph.getTileMapping(zero.slice(40, 43, 1))[0:1]) == list(range(12))
    unmapped = popops.pad(graph, t, [0, 0], [0, 1], 1.0, popops.padding.MappingMethod.NONE)
    with pytest.raises(poplar.invalid_tile_mapping):
        graph.getTileMapping(unmapped)


@pytest.mark.parametrize("mode", ["edge", "reflect"])
def test_edge_and_reflect_pad_match_numpy(graph, device, mode):
    x = np.arange(1, 21, dtype=np.float32).reshape(4, 5)
    t = tensor_from(graph, x, "x", "reversed")
    kind = popops.padding.Type.EDGE if mode == "edge" else popops.padding.Type.REFLECT
    padded = {"both": popops.pad(t, [2, 1], [3, 4], kind), "one_dim": popops.pad(t, 1, 2, 1, kind),
              "truncate": popops.pad(t, [-1, 2], [1, 0], kind)}
    out = run(graph, device, program.Sequence(), padded)
    np.testing.assert_array_equal(out["both"], np.pad(x, ((2, 3), (1, 4)), mode=mode))
    np.testing.assert_array_equal(out["one_dim"], np.pad(x, ((0, 0), (1, 2)), mode=mode))
    np.testing.assert_array_equal(out["truncate"], np.pad(x[1:], ((0, 1), (2, 0)), mode=mode))


def test_pad_errors(graph):
    t = graph.addVariable(poplar.FLOAT, [3, 4], "x")
    with raises_poplibs_error(r"1 lower and 2 upper padding amounts given for 'x' \[3,4\] float of rank 2"):
        popops.pad(graph, t, [1], [1, 1])
    with raises_poplibs_error(r"cannot reflect 3 elements in dimension 0 of 'x' \[3,4\] float, which has 3"):
        popops.pad(t, [3, 0], [0, 0], popops.padding.Type.REFLECT)
    with raises_poplibs_error(r"negative padding removes 4 elements from dimension 0 of 'x'"):
        popops.pad(graph, t, [-2, 0], [-2, 0])
    with raises_poplibs_error(r"the padding value 'v' \[1\] half must be one element of the type of 'x'"):
        popops.pad(graph, t, [1, 0], [0, 0], graph.addVariable(poplar.HALF, [1], "v"))
    with raises_poplibs_error(r"dimension 2 is out of range for 'x'"):
        popops.pad(t, 1, 1, 2, popops.padding.Type.EDGE)


# --------------------------------------------------------------------------- scaled add

SCALED_TYPES = [np.float32, np.float16, np.int32, np.uint32]


def scaled_values(dtype, shape, rng):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 50, shape).astype(dtype)
    return rng.normal(0, 1, shape).astype(dtype)


@pytest.mark.parametrize("dtype", SCALED_TYPES)
def test_scaled_add_forms_match_numpy(graph, device, dtype):
    rng = np.random.default_rng(9)
    shapes = [(1,), (7,), (5, 3), (33, 17)]
    seq = program.Sequence()
    tensors, expected = {}, {}
    integer = np.issubdtype(dtype, np.integer)
    sa, sb = (3.0, 2.0) if integer else (0.75, -1.5)
    scale_a = tensor_from(graph, np.array([sa], np.float32), "sa")
    scale_b = tensor_from(graph, np.array([sb], dtype), "sb")
    forms = {
        "add": (lambda A, B: popops.scaledAddTo(graph, A, B, sb, seq), lambda a, b: a + sb * b),
        "add_t": (lambda A, B: popops.scaledAddTo(graph, A, B, scale_b, seq), lambda a, b: a + sb * b),
        "sub": (lambda A, B: popops.scaledSubtractFrom(graph, A, B, sb, seq), lambda a, b: a - sb * b),
        "sub_t": (lambda A, B: popops.scaledSubtractFrom(graph, A, B, scale_b, seq), lambda a, b: a - sb * b),
        "ab": (lambda A, B: popops.scaledAddTo(graph, A, sa, B, sb, seq), lambda a, b: sa * a + sb * b),
        "ab_t": (lambda A, B: popops.scaledAddTo(graph, A, scale_a, B, scale_b, seq), lambda a, b: sa * a + sb * b),
        "sub_ab": (lambda A, B: popops.scaledSubtractFrom(graph, A, sa, B, sb, seq), lambda a, b: sa * a - sb * b),
        "sub_ab_t": (lambda A, B: popops.scaledSubtractFrom(graph, A, scale_a, B, scale_b, seq),
                     lambda a, b: sa * a - sb * b),
        "ab_default": (lambda A, B: popops.scaledAddTo(graph, A, sa, B, sb, seq, popops.ScaledAddSpecialisation.DEFAULT),
                       lambda a, b: sa * a + sb * b),
        "xax": (lambda A, B: popops.scaledAddTo(graph, A, sa, B, sb, seq,
                                                popops.ScaledAddSpecialisation.X_MINUS_AX_PLUS_BY),
                lambda a, b: a - sa * a + sb * b),
        "xax_t": (lambda A, B: popops.scaledAddTo(graph, A, scale_a, B, scale_b, seq,
                                                  popops.ScaledAddSpecialisation.X_MINUS_AX_PLUS_BY),
                  lambda a, b: a - sa * a + sb * b),
    }
    for f, (name, (build, reference)) in enumerate(forms.items()):
        for s, shape in enumerate(shapes):
            a, b = scaled_values(dtype, shape, rng), scaled_values(dtype, shape, rng)
            A = tensor_from(graph, a, f"A_{name}_{s}", VIEWS[(f + s) % 4])
            B = tensor_from(graph, b, f"B_{name}_{s}", VIEWS[(f + s + 1) % 4])
            build(A, B)
            key = f"{name}_{s}"
            tensors[key] = A
            want = reference(a.astype(np.float64), b.astype(np.float64))
            expected[key] = np.mod(want, 2**32).astype(np.uint32) if dtype == np.uint32 else want
    out = run(graph, device, seq, tensors)
    for key, want in expected.items():
        assert_matches(out[key], want, dtype)


def test_scaled_add_converts_b_to_a_type_and_handles_a_aliasing_b(graph, device):
    a = np.array([1.0, 2.0, 3.0], np.float32)
    b = np.array([0.5, 0.25, 1024.0], np.float16)
    A = tensor_from(graph, a, "A")
    same = tensor_from(graph, a, "same")
    seq = program.Sequence()
    popops.scaledAddTo(graph, A, tensor_from(graph, b, "B"), 2.0, seq)
    popops.scaledAddTo(graph, same, same.reverse(0), 1.0, seq)  # B is A reversed
    out = run(graph, device, seq, {"A": A, "same": same})
    assert_matches(out["A"], a + 2 * b.astype(np.float64), np.float32)
    assert_matches(out["same"], a + a[::-1], np.float32)


def test_scaled_add_half_scale_tolerance_chooses_half_or_float_scale(graph, device):
    a = np.zeros(2000, np.float16)
    b = (np.arange(2000) + 1).astype(np.float16)
    exact, loose = tensor_from(graph, a, "exact"), tensor_from(graph, a, "loose")
    B = tensor_from(graph, b, "B")
    seq = program.Sequence()
    popops.scaledAddTo(graph, exact, B, 0.1, seq)  # 0.1 is not a half: used as a float
    popops.scaledAddTo(graph, loose, B, 0.1, seq, "loose", {"scaleFloatToHalfTolerance": 1e-3})
    out = run(graph, device, seq, {"exact": exact, "loose": loose})
    with_float = (np.float32(0.1) * b.astype(np.float32)).astype(np.float16)
    with_half = (np.float32(np.float16(0.1)) * b.astype(np.float32)).astype(np.float16)
    assert (with_float != with_half).any()
    np.testing.assert_array_equal(out["exact"], with_float)
    np.testing.assert_array_equal(out["loose"], with_half)


def test_scaled_add_errors(graph):
    seq = program.Sequence()
    A = graph.addVariable(poplar.FLOAT, [3, 2], "A")
    with raises_poplibs_error(r"scaledAddTo: A 'A' \[3,2\] float and B 'B' \[2,3\] float have different shapes"):
        popops.scaledAddTo(graph, A, graph.addVariable(poplar.FLOAT, [2, 3], "B"), 1.0, seq)
    S = graph.addVariable(poplar.SHORT, [3, 2], "S")
    with raises_poplibs_error(r"scaledSubtractFrom: 'S' \[3,2\] short has type short"):
        popops.scaledSubtractFrom(graph, S, S, 1.0, seq)
    with raises_poplibs_error(r"the scale 'k' \[2\] float must be one numeric element"):
        popops.scaledAddTo(graph, A, A, graph.addVariable(poplar.FLOAT, [2], "k"), seq)
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'fast'"):
        popops.scaledAddTo(graph, A, A, 1.0, seq, "s", {"fast": "true"})
    with pytest.raises(poplar.invalid_option, match="Invalid value 'small' for option 'scaleFloatToHalfTolerance'"):
        popops.scaledAddTo(graph, A, A, 1.0, seq, "s", {"scaleFloatToHalfTolerance": "small"})


def test_add_codelets_exists_and_changes_nothing(graph):
    popops.addCodelets(graph)
    assert graph.getTarget().getNumTiles() == 4


def test_cpp_slice_plans_are_values(tmp_path):
    exe = build_program(tmp_path, r'''
#include <poplar/IPUModel.hpp>
#include <popops/DynamicSlice.hpp>
#include <cstdio>
#include <sstream>
#include <utility>
int main() {
  poplar::IPUModel model;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph g(device.getTarget());
  popops::SlicePlan plan = popops::embedding::plan(g, poplar::FLOAT, 10, 12, {5}, {});
  popops::SlicePlan null, copy(plan), assigned;
  assigned = plan;
  popops::SlicePlan moved(std::move(copy)), moveAssigned;
  moveAssigned = std::move(assigned);
  std::ostringstream os;
  os << null;
  std::printf("%d %d %d %d %d %s\n", moved == plan, moveAssigned == plan, null != plan,
              (null < plan) != (plan < null), !(plan < plan), os.str().c_str());
}''')
    assert subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout == "1 1 1 1 1 SlicePlan(null)\n"


def test_cpp_plan_multiple_plans_each_parameter_set_as_plan_does(tmp_path):
    exe = build_program(tmp_path, r'''
#include <poplar/IPUModel.hpp>
#include <popops/DynamicSlice.hpp>
#include <cstdio>
#include <vector>
int main() {
  poplar::IPUModel model;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph g(device.getTarget());
  const std::vector<popops::embedding::SlicePlanningParameters> sets = {
      {g, poplar::FLOAT, 10, 12, {5}, {}}, {g, poplar::HALF, 3, 8, 4, {2, 6}, {}}};
  const std::vector<popops::SlicePlan> plans = popops::embedding::planMultiple(sets);
  const popops::SlicePlan one = popops::embedding::plan(g, poplar::FLOAT, 10, 12, {5}, {});
  const popops::SlicePlan grouped = popops::embedding::plan(g, poplar::HALF, 3, 8, 4, {2, 6}, {});
  std::printf("%zu %zu %d %d %d\n", plans.size(), sets[1].groupSize + sets[0].groupSize, plans[0] == one,
              plans[1] == grouped, plans[0] == grouped);
}''')
    # Two plans, group sizes 3 and the default 1, each equal to plan()'s and not to the other's.
    assert subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout == "2 4 1 1 0\n"
