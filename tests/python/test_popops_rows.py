"""The smaller popops headers through the bindings, against float64 numpy: one-hot
encodings and index ranges, counted loops, sorts (values and key-value, out of place and
in place, along any dimension and through views), top-k in every order, row-wise scalar
selects and updates, all-true and the NaN checks, with their error cases."""
import numpy as np
import pytest

from popdsl import poplar, popops, poputil, program
from test_popops_data import raises_poplibs_error, run, tensor_from

SortOrder = popops.SortOrder
MASKED = popops.MASKED_LABEL_CODE


def wave(shape, dtype=np.float32):
    """10 sin(0.37 i): distinct values in no particular order."""
    return (10 * np.sin(0.37 * np.arange(np.prod(shape)))).reshape(shape).astype(dtype)


def mapped(graph, ptype, shape, name):
    t = graph.addVariable(ptype, list(shape), name)
    poputil.mapTensorLinearly(graph, t)
    return t


# --------------------------------------------------------------------------- Encoding
@pytest.mark.parametrize("index_dtype", [np.uint32, np.int32])
def test_encode_one_hot_marks_each_rows_index_and_skips_masked_and_out_of_range(graph, device, index_dtype):
    labels = np.array([3, 0, 5, 2, 6], index_dtype)  # 5 and 6 are past a row of 5
    if index_dtype == np.uint32:
        labels[2] = MASKED
    indices = tensor_from(graph, labels, "labels")
    plain, on_off = mapped(graph, poplar.FLOAT, (5, 5), "plain"), mapped(graph, poplar.HALF, (5, 5), "onOff")
    on, off = (graph.addConstant(poplar.HALF, [1], v, n) for v, n in ((2.5, "on"), (-0.5, "off")))
    for c in (on, off):
        graph.setTileMapping(c, 0)
    seq = program.Sequence()
    popops.encodeOneHot(graph, indices, plain, seq, "oneHot")
    popops.encodeOneHot(graph, indices, on_off, seq, on, off)
    out = run(graph, device, seq, {"plain": plain, "onOff": on_off})
    want = np.zeros((5, 5))
    for row, label in enumerate(labels.astype(np.int64)):
        if 0 <= label < 5:
            want[row, label] = 1
    np.testing.assert_array_equal(out["plain"], want)
    np.testing.assert_array_equal(out["onOff"], np.where(want == 1, 2.5, -0.5))


def test_iota_and_iota_with_offset_count_up_from_their_start(graph, device):
    signed, unsigned = mapped(graph, poplar.INT, (7,), "s"), mapped(graph, poplar.UNSIGNED_INT, (5,), "u")
    shifted, offset = mapped(graph, poplar.INT, (4,), "shifted"), mapped(graph, poplar.INT, (1,), "offset")
    graph.createHostWrite("offset", offset)
    seq = program.Sequence()
    popops.iota(graph, signed, -4, seq)
    popops.iota(graph, unsigned.reverse(0), 4000000000, seq)  # through a view, past INT's range
    popops.iotaWithOffset(graph, shifted, offset, seq)
    for name, t in (("s", signed), ("u", unsigned), ("shifted", shifted)):
        graph.createHostRead(name, t)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    for start in (-10, 100):  # the offset is read when the program runs
        engine.writeTensor("offset", np.array([start], np.int32))
        engine.run(0)
        np.testing.assert_array_equal(engine.readTensor("shifted", np.zeros(4, np.int32)), start + np.arange(4))
    np.testing.assert_array_equal(engine.readTensor("s", np.zeros(7, np.int32)), np.arange(-4, 3))
    np.testing.assert_array_equal(engine.readTensor("u", np.zeros(5, np.uint32)), 4000000000 + np.arange(5)[::-1])


def test_encoding_errors_name_the_tensor(graph):
    seq = program.Sequence()
    floats, encoded = mapped(graph, poplar.FLOAT, (3,), "floatLabels"), mapped(graph, poplar.FLOAT, (3, 4), "enc")
    with raises_poplibs_error("indices 'floatLabels'.*INT or UNSIGNED_INT"):
        popops.encodeOneHot(graph, floats, encoded, seq)
    with raises_poplibs_error("encoded 'short'.*one row per index"):
        popops.encodeOneHot(graph, mapped(graph, poplar.UNSIGNED_INT, (3,), "l"),
                            mapped(graph, poplar.FLOAT, (2, 4), "short"), seq)
    with raises_poplibs_error("iota: t 'floatLabels'"):
        popops.iota(graph, floats, 0, seq)
    with raises_poplibs_error("offset 'wide'.*single element"):
        popops.iotaWithOffset(graph, mapped(graph, poplar.INT, (3,), "r"), mapped(graph, poplar.INT, (2,), "wide"), seq)
    with pytest.raises(ValueError, match="outside the range"):
        popops.iota(graph, mapped(graph, poplar.INT, (3,), "r2"), 2 ** 40, seq)


# --------------------------------------------------------------------------- Loop
def test_counted_loops_run_their_body_with_the_counter(graph, device):
    total, passes = mapped(graph, poplar.UNSIGNED_INT, (1,), "total"), mapped(graph, poplar.UNSIGNED_INT, (1,), "n")
    one = graph.addConstant(poplar.UNSIGNED_INT, [1], 1, "one")
    graph.setTileMapping(one, 0)
    seq = program.Sequence()
    popops.zero(graph, total, seq)
    popops.zero(graph, passes, seq)
    seen = []

    def body(counter):
        seen.append(counter.shape())
        step = program.Sequence()
        popops.addInPlace(graph, total, counter, step)
        return step

    seq.add(popops.countedLoop(graph, 3, 20, 4, body, "loop"))
    inc = program.Sequence()
    popops.addInPlace(graph, passes, one, inc)
    seq.add(popops.countedLoop(graph, 6, lambda counter: inc))
    out = run(graph, device, seq, {"total": total, "n": passes})
    assert seen == [[1]]
    assert out["total"][0] == sum(range(3, 20, 4))
    assert out["n"][0] == 6


@pytest.mark.parametrize("ptype,dtype,initial,limit,step", [
    (poplar.INT, np.int32, 10, -2, -3),
    (poplar.UNSIGNED_INT, np.uint32, 0, 12, 4),
    (poplar.INT, np.int32, 5, 5, 1),  # the limit at the start: no pass
])
def test_counted_for_loop_steps_until_the_count_reaches_the_limit_read_at_run_time(graph, device, ptype, dtype,
                                                                                   initial, limit, step):
    count, count_limit, total = (mapped(graph, ptype, (1,), n) for n in ("count", "limit", "total"))
    graph.createHostWrite("limit", count_limit)
    seq, body = program.Sequence(), program.Sequence()
    popops.zero(graph, total, seq)
    popops.addInPlace(graph, total, count, body)
    seq.add(popops.countedForLoop(graph, count, initial, count_limit, step, body))
    # The form that makes its own counter: count the passes.
    passes, one = mapped(graph, ptype, (1,), "passes"), graph.addConstant(ptype, [1], 1, "one")
    graph.setTileMapping(one, 0)
    popops.zero(graph, passes, seq)
    counting = program.Sequence()
    popops.addInPlace(graph, passes, one, counting)
    seq.add(popops.countedForLoop(graph, initial, count_limit, step, counting))
    out = run(graph, device, seq, {"total": total, "passes": passes},
              before_run=lambda engine, _: engine.writeTensor("limit", np.array([limit], dtype)))
    counts = list(range(initial, limit, step))
    assert out["total"][0] == sum(counts)
    assert out["passes"][0] == len(counts)


def test_loop_errors_say_what_is_wrong(graph):
    body = lambda counter: program.Sequence()
    with raises_poplibs_error("step must be greater than zero"):
        popops.countedLoop(graph, 0, 4, 0, body)
    with raises_poplibs_error(r"begin \(4\) must be less than end \(4\)"):
        popops.countedLoop(graph, 4, 4, 1, body)
    with raises_poplibs_error("count 'c'.*and countLimit 'l'.*same type"):
        popops.countedForLoop(graph, mapped(graph, poplar.INT, (1,), "c"), 0,
                              mapped(graph, poplar.UNSIGNED_INT, (1,), "l"), 1, program.Sequence())
    with raises_poplibs_error("count 'f'.*INT or UNSIGNED_INT"):
        popops.countedForLoop(graph, mapped(graph, poplar.FLOAT, (1,), "f"), 0,
                              mapped(graph, poplar.FLOAT, (1,), "fl"), 1, program.Sequence())
    with pytest.raises(RuntimeError, match="bad body"):
        popops.countedLoop(graph, 3, lambda counter: (_ for _ in ()).throw(RuntimeError("bad body")))


# --------------------------------------------------------------------------- Sort
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint32])
@pytest.mark.parametrize("view", ["plain", "transposed", "strided"])
def test_sort_along_each_dimension_matches_numpy(graph, device, dtype, view):
    values = wave((4, 3, 6), np.float64)
    if dtype == np.int32:
        values = values * 100
    elif dtype == np.uint32:
        values = np.abs(values) * 100
    values = values.astype(dtype)
    t = tensor_from(graph, values, "t", view)
    seq = program.Sequence()
    sorted_ = {dim: popops.sort(graph, t, dim, seq, f"sort{dim}") for dim in range(3)}
    in_place = tensor_from(graph, values, "inPlace", view)
    popops.sortInPlace(graph, in_place, 1, seq)
    out = run(graph, device, seq, {**{f"d{d}": s for d, s in sorted_.items()}, "inPlace": in_place})
    for dim in range(3):
        np.testing.assert_array_equal(out[f"d{dim}"], np.sort(values, axis=dim))
    np.testing.assert_array_equal(out["inPlace"], np.sort(values, axis=1))


def test_sort_puts_nan_last_as_numpy_does(graph, device):
    values = np.array([[3.0, np.nan, -1.0, np.inf, -np.inf, 0.5]], np.float32)
    t = tensor_from(graph, values, "t")
    seq = program.Sequence()
    out = run(graph, device, seq, {"s": popops.sort(graph, t, 1, seq)})
    np.testing.assert_array_equal(out["s"], np.sort(values, axis=1))


def test_sort_key_value_permutes_values_as_a_stable_sort_of_the_keys(graph, device):
    keys = ((3 * np.arange(2 * 9)) % 4).reshape(2, 9).astype(np.int32)  # ties
    values = wave((2, 9))
    k, v = tensor_from(graph, keys, "k"), tensor_from(graph, values, "v", "transposed")
    k2, v2 = tensor_from(graph, keys.T.copy(), "k2"), tensor_from(graph, values.T.copy(), "v2")
    seq = program.Sequence()
    permuted = popops.sortKeyValue(graph, k, v, 1, seq)
    popops.sortKeyValueInPlace(graph, k2, v2, 0, seq)
    out = run(graph, device, seq, {"permuted": permuted, "k": k, "k2": k2, "v2": v2})
    order = np.argsort(keys, axis=1, kind="stable")
    np.testing.assert_array_equal(out["permuted"], np.take_along_axis(values, order, axis=1))
    np.testing.assert_array_equal(out["k"], keys)  # sortKeyValue leaves the keys alone
    np.testing.assert_array_equal(out["k2"], np.sort(keys, axis=1).T)
    np.testing.assert_array_equal(out["v2"], np.take_along_axis(values, order, axis=1).T)


def test_sort_errors_name_the_tensors(graph):
    seq = program.Sequence()
    t = mapped(graph, poplar.FLOAT, (2, 3), "t")
    with raises_poplibs_error(r"sort: dim 2 is not a dimension of 't' \[2,3\]"):
        popops.sort(graph, t, 2, seq)
    with raises_poplibs_error("sortKeyValue: values 'v'.*and keys 't'.*different shapes"):
        popops.sortKeyValue(graph, t, mapped(graph, poplar.FLOAT, (3, 2), "v"), 1, seq)
    with raises_poplibs_error("sortInPlace: keys 'b'.*FLOAT, HALF, INT or UNSIGNED_INT"):
        popops.sortInPlace(graph, mapped(graph, poplar.BOOL, (4,), "b"), 0, seq)


# --------------------------------------------------------------------------- TopK
def topk_reference(x, k, largest, order):
    """numpy's top k of each innermost row, ties to the earlier position; NONE: row order."""
    by_rank = np.argsort(-x if largest else x, axis=-1, kind="stable")[..., :k]
    if order == SortOrder.NONE:
        positions = np.sort(by_rank, axis=-1)
    else:
        chosen = np.take_along_axis(x, by_rank, axis=-1)
        resort = np.argsort(chosen if order == SortOrder.ASCENDING else -chosen, axis=-1, kind="stable")
        positions = np.take_along_axis(by_rank, resort, axis=-1)
    return np.take_along_axis(x, positions, axis=-1), positions


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("order", [SortOrder.NONE, SortOrder.ASCENDING, SortOrder.DESCENDING])
def test_top_k_in_every_order_matches_numpy(graph, device, largest, order):
    x = wave((2, 3, 10))
    ties = ((7 * np.arange(3 * 8)) % 5).reshape(3, 8).astype(np.int32)
    params = popops.TopKParams(4, largest, order)
    t = popops.createTopKInput(graph, poplar.FLOAT, [2, 3, 10], params, "input")
    graph.setInitialValue(t, x)
    tied = tensor_from(graph, ties, "tied")
    payload = tensor_from(graph, wave((3, 8), np.float16), "payload")
    seq = program.Sequence()
    values = popops.topK(graph, seq, t, params)
    tied_values, tied_positions = popops.topKWithPermutation(graph, seq, tied, params)
    keys, carried = popops.topKKeyValue(graph, seq, tied, payload, params)
    out = run(graph, device, seq, {"values": values, "tv": tied_values, "tp": tied_positions, "keys": keys,
                                    "carried": carried})
    want, _ = topk_reference(x, 4, largest, order)
    np.testing.assert_array_equal(out["values"], want)
    want_values, want_positions = topk_reference(ties.astype(np.float64), 4, largest, order)
    np.testing.assert_array_equal(out["tv"], want_values)
    assert out["tp"].dtype == np.uint32
    np.testing.assert_array_equal(out["tp"], want_positions)
    np.testing.assert_array_equal(out["keys"], want_values)
    np.testing.assert_array_equal(out["carried"], np.take_along_axis(wave((3, 8), np.float16), want_positions, -1))


# Few of long rows (k * 8 < the row: one pass against the last of the best so far), with ties
# and NaNs, which order after every number (so the largest first).
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("order", [SortOrder.NONE, SortOrder.ASCENDING, SortOrder.DESCENDING])
def test_top_k_of_long_rows_with_ties_and_nans_matches_a_stable_sort(graph, device, largest, order):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 6, size=(4, 300)).astype(np.float32)
    x[0, rng.choice(300, 40, replace=False)] = np.nan
    x[1] = np.nan
    params = popops.TopKParams(5, largest, order)
    t = popops.createTopKInput(graph, poplar.FLOAT, [4, 300], params, "input")
    graph.setInitialValue(t, x)
    seq = program.Sequence()
    values, positions = popops.topKWithPermutation(graph, seq, t, params)
    out = run(graph, device, seq, {"values": values, "positions": positions})
    _, want_positions = topk_reference(np.where(np.isnan(x), 1e30, x).astype(np.float64), 5, largest, order)
    np.testing.assert_array_equal(out["positions"], want_positions)
    np.testing.assert_array_equal(out["values"], np.take_along_axis(x, want_positions, -1))


def test_top_k_params_fields_and_printing():
    p = popops.TopKParams(3, True, SortOrder.DESCENDING)
    assert (p.k, p.largest, p.sortOrder, p.stableSort) == (3, True, SortOrder.DESCENDING, False)
    p.stableSort, p.k = True, 5
    assert repr(p) == "{k=5, largest=true, sortOrder=descending, stableSort=true}"
    assert str(SortOrder.ASCENDING) == "ascending"
    with pytest.raises(ValueError, match="not a valid SortOrder"):
        SortOrder(7)


def test_top_k_errors_name_the_tensor(graph):
    seq = program.Sequence()
    t = mapped(graph, poplar.FLOAT, (2, 5), "scores")
    with raises_poplibs_error(r"topK: k \(6\) is more than the innermost dimension of 'scores'"):
        popops.topK(graph, seq, t, popops.TopKParams(6, True, SortOrder.NONE))
    with raises_poplibs_error("topKKeyValue: values 'v'.*and keys 'scores'.*different shapes"):
        popops.topKKeyValue(graph, seq, t, mapped(graph, poplar.INT, (2, 4), "v"),
                            popops.TopKParams(2, True, SortOrder.NONE))


# --------------------------------------------------------------------------- rows, all-true, NaN
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_select_and_update_scalar_in_rows(graph, device, dtype):
    x = wave((4, 6), dtype)
    picks = np.array([5, 0, 6, MASKED], np.uint32)  # 6 is past the row
    params, indices = tensor_from(graph, x, "params", "transposed"), tensor_from(graph, picks, "picks")
    updated = tensor_from(graph, x, "updated", "strided")
    seq = program.Sequence()
    selected = popops.selectScalarFromRows(graph, params, indices, seq)
    popops.updateScalarInRows(graph, updated, indices, seq)
    out = run(graph, device, seq, {"selected": selected, "updated": updated})
    want_selected = np.array([x[0, 5], x[1, 0], np.nan, 0.0])
    want_updated = x.astype(np.float64)
    want_updated[0, 5] -= 1
    want_updated[1, 0] -= 1
    want_updated[2] = np.nan
    rtol = 1e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(out["selected"].astype(np.float64), want_selected, rtol=rtol)
    np.testing.assert_allclose(out["updated"].astype(np.float64), want_updated, rtol=rtol, atol=rtol)


def test_row_scalar_errors_name_the_tensors(graph):
    seq = program.Sequence()
    params = mapped(graph, poplar.FLOAT, (3, 4), "params")
    with raises_poplibs_error("selectScalarFromRows: indices 'few'.*one element per row of 'params'"):
        popops.selectScalarFromRows(graph, params, mapped(graph, poplar.UNSIGNED_INT, (2,), "few"), seq)
    with raises_poplibs_error("updateScalarInRows: params 'ints'.*FLOAT or HALF"):
        popops.updateScalarInRows(graph, mapped(graph, poplar.INT, (3, 4), "ints"),
                                  mapped(graph, poplar.UNSIGNED_INT, (3,), "i"), seq)


def test_all_true_and_the_nan_checks(graph, device):
    flags = np.array([[True, True], [False, True]])
    b = tensor_from(graph, flags, "flags")
    x = np.array([1.0, np.nan, np.inf, -2.0], np.float32)
    f = tensor_from(graph, x, "x")
    h = tensor_from(graph, x.astype(np.float16), "h")
    seq = program.Sequence()
    results = {"all": popops.allTrue(graph, b, seq), "allRow0": popops.allTrue(graph, b[0], seq),
               "nan": popops.hasNaN(graph, f, seq), "nanHalf": popops.hasNaN(graph, h.slice(2, 4), seq),
               "inf": popops.hasNaNOrInf(graph, h.slice(2, 4), seq),
               "finite": popops.hasNaNOrInf(graph, f.slice(3, 4), seq),
               "nanFinite": popops.hasNaN(graph, f.slice(0, 1), seq)}
    out = run(graph, device, seq, results)
    assert results["all"].shape() == [] and results["all"].elementType() == poplar.BOOL
    assert {k: bool(v) for k, v in out.items()} == {"all": False, "allRow0": True, "nan": True, "nanHalf": False,
                                                    "inf": True, "finite": False, "nanFinite": False}
    with raises_poplibs_error("allTrue: A 'x'.*BOOL"):
        popops.allTrue(graph, f, seq)
    with raises_poplibs_error("hasNaN: src 'flags'.*FLOAT or HALF"):
        popops.hasNaN(graph, b, seq)


# --------------------------------------------------------------------------- Gather
def xla_gather_reference(x, idx, index_vector_dim, offset_dims, slice_sizes, collapsed, start_index_map):
    """XLA's gather, element by element in float64 (clamped starts)."""
    batch_shape = [n for d, n in enumerate(idx.shape) if d != index_vector_dim]
    kept = [d for d in range(x.ndim) if d not in collapsed]
    rank = len(batch_shape) + len(kept)
    out_shape, b, k = [], iter(batch_shape), iter(kept)
    for d in range(rank):
        out_shape.append(slice_sizes[next(k)] if d in offset_dims else next(b))
    out = np.zeros(out_shape)
    for pos in np.ndindex(*out_shape):
        batch = [p for d, p in enumerate(pos) if d not in offset_dims]
        start = [0] * x.ndim
        for j, dim in enumerate(start_index_map):
            where = list(batch)
            if index_vector_dim < idx.ndim:
                where.insert(index_vector_dim, j)
            start[dim] = int(np.clip(idx[tuple(where)], 0, x.shape[dim] - slice_sizes[dim]))
        at = list(start)
        for j, dim in enumerate(kept):
            at[dim] += pos[offset_dims[j]]
        out[pos] = x[tuple(at)]
    return out


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_gather_on_one_axis_is_numpys_take_with_clamped_indices(graph, device, axis):
    x = wave((4, 5, 3))
    picks = np.array([[2, 0, 1], [1, 9, -1]], np.int32)  # 9 and -1 clamp to the ends
    params = popops.GatherParams(1000)
    assert params.maxElementsPerTile == 1000 and popops.GatherParams().maxElementsPerTile == 65535
    t = popops.createGatherInput(graph, poplar.FLOAT, [4, 5, 3], axis, params, "input")
    graph.setInitialValue(t, x)
    seq = program.Sequence()
    out = run(graph, device, seq, {"g": popops.gather(graph, t, tensor_from(graph, picks, "picks"), axis, seq, params)})
    np.testing.assert_array_equal(out["g"], np.take(x, np.clip(picks, 0, x.shape[axis] - 1), axis=axis))


@pytest.mark.parametrize("case", [
    # Points: rows of indices are (row, column) pairs; XLA's documented example.
    dict(shape=(3, 3), idx=[[1, 1], [2, 1]], ivd=1, offset=[], sizes=[1, 1], collapsed=[0, 1], start=[0, 1]),
    # Windows of 2x2 at each start, batch dimension first, starts past the edge clamped.
    dict(shape=(4, 5), idx=[[0, 3], [3, 4], [1, 0]], ivd=1, offset=[1, 2], sizes=[2, 2], collapsed=[], start=[0, 1]),
    # Index vectors along dimension 0 of indices, starting only dimension 2 of a 3-D input.
    dict(shape=(2, 3, 6), idx=[[4, 0, 5]], ivd=0, offset=[0, 1, 3], sizes=[2, 3, 2], collapsed=[], start=[2]),
    # Scalar indices (indexVectorDim == rank), a collapsed middle dimension.
    dict(shape=(3, 4, 2), idx=[[3, 1], [0, 2]], ivd=2, offset=[0, 3], sizes=[3, 1, 2], collapsed=[1], start=[1]),
])
def test_xla_gather_matches_its_definition(graph, device, case):
    x = wave(case["shape"])
    idx = np.array(case["idx"], np.uint32)
    t = popops.createGatherInput(graph, poplar.FLOAT, list(x.shape), case["sizes"], case["start"])
    graph.setInitialValue(t, x)
    seq = program.Sequence()
    g = popops.gather(graph, t, tensor_from(graph, idx, "idx", "transposed"), case["ivd"], case["offset"],
                      case["sizes"], case["collapsed"], case["start"], seq)
    out = run(graph, device, seq, {"g": g})
    want = xla_gather_reference(x.astype(np.float64), idx.astype(np.int64), case["ivd"], case["offset"],
                                case["sizes"], case["collapsed"], case["start"])
    np.testing.assert_array_equal(out["g"], want)


def test_gather_options_remap_out_of_bound_indices_or_use_padding(graph, device):
    """remapOutOfBoundIndices gathers index 0 for an index whose slice does not fit;
    paddingIndexUsed gathers zeros for an index equal to its dimension's size (and clamps
    the rest); XLA's form takes the same options."""
    x = wave((4, 3))
    picks = np.array([2, 4, -1, 9], np.int32)
    t = popops.createGatherInput(graph, poplar.FLOAT, [4, 3], 0)
    graph.setInitialValue(t, x)
    idx = tensor_from(graph, picks, "picks")
    seq = program.Sequence()
    remapped = popops.gather(graph, t, idx, 0, seq, popops.GatherParams(), "remapped",
                             {"remapOutOfBoundIndices": "true"})
    padded = popops.gather(graph, t, idx, 0, seq, popops.GatherParams(), "padded", {"paddingIndexUsed": "true"})
    windows = popops.gather(graph, t, tensor_from(graph, np.array([[1], [4], [3]], np.uint32), "starts"), 1, [1, 2],
                            [2, 3], [], [0], seq, "windows", {"paddingIndexUsed": "true"})
    out = run(graph, device, seq, {"remapped": remapped, "padded": padded, "windows": windows})
    np.testing.assert_array_equal(out["remapped"], x[[2, 0, 0, 0]])
    np.testing.assert_array_equal(out["padded"], np.stack([x[2], np.zeros(3), x[0], x[3]]))
    # Starts 1 and 3 of 2-row windows: 3 clamps to 2; 4 is padding.
    np.testing.assert_array_equal(out["windows"], np.stack([x[1:3], np.zeros((2, 3)), x[2:4]]))
    with pytest.raises(poplar.invalid_option, match="remapOutOfBound"):
        popops.gather(graph, t, idx, 0, seq, popops.GatherParams(), "bad", {"remapOutOfBoundIndex": "true"})


def test_gather_errors_name_the_parameter_that_does_not_fit(graph):
    seq = program.Sequence()
    x = mapped(graph, poplar.FLOAT, (3, 4), "x")
    idx = mapped(graph, poplar.UNSIGNED_INT, (2, 2), "idx")
    with raises_poplibs_error("gather: axis 2 is not a dimension of 'x'"):
        popops.gather(graph, x, idx, 2, seq, popops.GatherParams())
    with raises_poplibs_error("gather: indices 'fidx'.*INT or UNSIGNED_INT"):
        popops.gather(graph, x, mapped(graph, poplar.FLOAT, (2,), "fidx"), 0, seq, popops.GatherParams())
    with raises_poplibs_error("gather of 'x'.*'idx'.*collapsedSliceDims must name dimensions of input with slice size 1"):
        popops.gather(graph, x, idx, 1, [1], [2, 2], [0], [0, 1], seq)
    with raises_poplibs_error("startIndexMap must have one input dimension per element"):
        popops.gather(graph, x, idx, 1, [], [1, 1], [0, 1], [0], seq)
    with raises_poplibs_error("sliceSizes\\[1\\] is more than the input's"):
        popops.gather(graph, x, idx, 1, [0, 1, 2], [1, 5], [], [0, 1], seq)
    with raises_poplibs_error("createGatherInput: axis 3"):
        popops.createGatherInput(graph, poplar.FLOAT, [2, 2], 3)


# --------------------------------------------------------------------------- GatherStatistics
@pytest.mark.parametrize("absolute", [False, True])
def test_histogram_counts_between_levels_and_accumulates(graph, device, absolute):
    x = wave((5, 7))
    levels = np.array([-5.0, 0.0, 2.5, 7.0], np.float32)
    t, lv = tensor_from(graph, x, "x", "transposed"), tensor_from(graph, levels, "levels")
    seq = program.Sequence()
    counts = popops.histogram(graph, t, lv, absolute, seq, "counts")
    as_float = popops.histogram(graph, t, lv, absolute, seq, options={"useFloatArithmetic": "true"})
    running = mapped(graph, poplar.UNSIGNED_INT, (5,), "running")
    graph.setInitialValue(running, np.zeros(5, np.uint32))
    popops.histogram(graph, t, running, True, lv, absolute, seq, options={"useFloatArithmetic": "false"})
    out = run(graph, device, seq, {"counts": counts, "float": as_float, "running": running}, repeats=3)
    values = np.abs(x) if absolute else x
    want = np.bincount(np.searchsorted(levels, values.ravel(), side="right"), minlength=5)
    assert out["counts"].dtype == np.uint32 and out["float"].dtype == np.float32
    np.testing.assert_array_equal(out["counts"], want)
    np.testing.assert_array_equal(out["float"], want)
    np.testing.assert_array_equal(out["running"], 3 * want)  # three runs, each adding


def test_histogram_errors(graph):
    seq = program.Sequence()
    x, levels = mapped(graph, poplar.FLOAT, (4,), "x"), mapped(graph, poplar.FLOAT, (3,), "levels")
    with raises_poplibs_error("output 'short'.*one element more than levels"):
        popops.histogram(graph, x, mapped(graph, poplar.FLOAT, (3,), "short"), False, levels, False, seq)
    with raises_poplibs_error("input 'ints'.*FLOAT or HALF"):
        popops.histogram(graph, mapped(graph, poplar.INT, (4,), "ints"), levels, False, seq)
    with pytest.raises(poplar.invalid_option, match="useFloat"):
        popops.histogram(graph, x, levels, False, seq, options={"useFloat": "true"})
    with pytest.raises(poplar.invalid_option, match="useFloatArithmetic"):
        popops.histogram(graph, x, mapped(graph, poplar.FLOAT, (4,), "out"), False, levels, False, seq,
                         options={"useFloatArithmetic": "maybe"})


# --------------------------------------------------------------------------- SequenceSlice
@pytest.mark.parametrize("zero_unused", [False, True])
def test_sequence_slice_copies_runs_of_rows_at_run_time_offsets(graph, device, zero_unused):
    source = wave((6, 2, 3))
    before = np.full((5, 6), 99.0, np.float32)
    t_in, t_out = tensor_from(graph, source, "in"), tensor_from(graph, before, "out")
    runs = {"n": [2, 1, 3], "inOffset": [0, 4, 5], "outOffset": [3, 0, 1]}  # the last run has one row left
    n, in_offset, out_offset = (mapped(graph, poplar.UNSIGNED_INT, (3,), name) for name in runs)
    for name, t in zip(runs, (n, in_offset, out_offset)):
        graph.createHostWrite(name, t)
    seq = program.Sequence()
    popops.sequenceSlice(graph, t_in, t_out, n, in_offset, out_offset, zero_unused, seq)
    out = run(graph, device, seq, {"out": t_out},
              before_run=lambda engine, _: [engine.writeTensor(k, np.array(v, np.uint32)) for k, v in runs.items()])
    want = before.astype(np.float64)
    rows = source.reshape(6, 6)
    want[3:5], want[0], want[1] = rows[0:2], rows[4], rows[5]
    if zero_unused:
        want[2] = 0
    np.testing.assert_array_equal(out["out"], want)


def test_sequence_slice_errors(graph):
    seq = program.Sequence()
    idx = mapped(graph, poplar.UNSIGNED_INT, (2,), "idx")
    with raises_poplibs_error("tIn 'a'.*and tOut 'b'.*rows of one size"):
        popops.sequenceSlice(graph, mapped(graph, poplar.FLOAT, (3, 2), "a"), mapped(graph, poplar.FLOAT, (3, 4), "b"),
                             idx, idx, idx, False, seq)
    with raises_poplibs_error("'odd'.* is not"):
        popops.sequenceSlice(graph, mapped(graph, poplar.FLOAT, (3, 2), "c"), mapped(graph, poplar.FLOAT, (3, 2), "d"),
                             idx, mapped(graph, poplar.UNSIGNED_INT, (3,), "odd"), idx, False, seq)


# --------------------------------------------------------------------------- NormaliseImage
@pytest.mark.parametrize("dtype,ptype,out_dtype", [(np.uint8, poplar.UNSIGNED_CHAR, np.float16),
                                                   (np.float32, poplar.FLOAT, np.float32),
                                                   (np.float16, poplar.HALF, np.float16)])
def test_normalise_image_scales_offsets_and_pads_to_four_channels(graph, device, dtype, ptype, out_dtype):
    image = ((np.arange(2 * 3 * 3) * 37) % 256).reshape(2, 3, 3).astype(dtype)
    t = popops.createNormaliseImageInput(graph, ptype, [2, 3, 3], "image")
    graph.setInitialValue(t, image)
    out_ptype = poplar.HALF if out_dtype == np.float16 else poplar.FLOAT
    offsets, scales = np.array([0.485, 0.456, 0.406]), np.array([4.37, 4.46, 4.44])
    o, s = (tensor_from(graph, v.astype(out_dtype), n) for v, n in ((offsets, "offsets"), (scales, "scales")))
    seq = program.Sequence()
    normalised = popops.normaliseImage(graph, seq, t, 1 / 255, o, s)
    assert normalised.elementType() == out_ptype and normalised.shape() == [2, 3, 4]
    out = run(graph, device, seq, {"n": normalised})
    want = np.zeros((2, 3, 4))
    want[..., :3] = (image.astype(np.float64) / 255 - offsets.astype(out_dtype)) * scales.astype(out_dtype)
    rtol = 2e-3 if out_dtype == np.float16 else 1e-6
    np.testing.assert_allclose(out["n"].astype(np.float64), want, rtol=rtol, atol=rtol)


def test_normalise_image_errors(graph):
    seq = program.Sequence()
    with raises_poplibs_error("must have an innermost dimension of 3 channels"):
        popops.createNormaliseImageInput(graph, poplar.FLOAT, [2, 4])
    image = popops.createNormaliseImageInput(graph, poplar.UNSIGNED_CHAR, [2, 3])
    wrong = mapped(graph, poplar.FLOAT, (3,), "floatOffsets")
    with raises_poplibs_error("offsets and scales must be \\[3\\] of half; 'floatOffsets'"):
        popops.normaliseImage(graph, seq, image, 1.0, wrong, wrong)


# --------------------------------------------------------------------------- HostSliceTensor, CircBuf
def test_host_sliceable_and_transferable_tensors_are_mapped_and_carry_host_copies(graph, device):
    made = popops.createHostSliceableTensor(graph, poplar.HALF, [3, 8], True, "rows")
    transferable = popops.createHostTransferableTensor(graph, poplar.INT, [2, 5], False)
    assert made.indices.shape() == [3] and made.indices.elementType() == poplar.UNSIGNED_INT
    assert made.tensor.shape() == [3, 8] and transferable.shape() == [2, 5]
    rows, ints = wave((3, 8), np.float16), np.arange(10, dtype=np.int32).reshape(2, 5)
    for name, t in (("rows", made.tensor), ("ints", transferable), ("indices", made.indices)):
        graph.createHostWrite(name, t)
        graph.createHostRead(name + "Out", t)
    engine = poplar.Engine(graph, program.Sequence())  # every element mapped, or this raises
    engine.load(device)
    engine.writeTensor("rows", rows)
    engine.writeTensor("ints", ints)
    engine.writeTensor("indices", np.array([2, 0, 1], np.uint32))
    np.testing.assert_array_equal(engine.readTensor("rowsOut", np.zeros((3, 8), np.float16)), rows)
    np.testing.assert_array_equal(engine.readTensor("intsOut", np.zeros((2, 5), np.int32)), ints)
    np.testing.assert_array_equal(engine.readTensor("indicesOut", np.zeros(3, np.uint32)), [2, 0, 1])
    with raises_poplibs_error("shape \\[3\\] must have two dimensions"):
        popops.createHostSliceableTensor(graph, poplar.FLOAT, [3], False)


def test_circular_buffer_keeps_the_last_entries(graph, device):
    history = popops.CircBuf(graph, poplar.FLOAT, 3, [2, 2], "history")
    assert history.size() == 3
    entries = [wave((2, 2)) + k for k in range(5)]
    seq = program.Sequence()
    reads = {}
    for k, entry in enumerate(entries):
        history.add(tensor_from(graph, entry, f"entry{k}"), seq)
        if k == 1:
            reads["after2"] = history.prev(1, seq)  # the first entry, one add before the newest
    reads.update({f"prev{i}": history.prev(i, seq) for i in range(3)})
    reads["index"] = history.getIndex()
    # prev's tensors are laid out as getTileMapping says: every element of an entry once.
    layout = history.getTileMapping()
    assert layout == graph.getTileMapping(reads["prev0"]) == graph.getTileMapping(reads["after2"])
    assert sorted(i for tile in layout for interval in tile for i in range(interval.begin(), interval.end())) == \
        [0, 1, 2, 3]
    out = run(graph, device, seq, reads)
    np.testing.assert_array_equal(out["after2"], entries[0])
    for i in range(3):
        np.testing.assert_array_equal(out[f"prev{i}"], entries[4 - i])
    assert out["index"][0] == 5 % 3
    with raises_poplibs_error("entry 3 is older than the history of 3 entries"):
        history.prev(3, seq)
    with raises_poplibs_error("CircBuf::add: 'wrong'.*does not have the entries' shape \\[2,2\\]"):
        history.add(mapped(graph, poplar.FLOAT, (4,), "wrong"), seq)
