"""popops grouped multi-slice/update and the grouped embedding::plan, against numpy."""
import numpy as np
import pytest

from popdsl import poplar, popops, poputil
from raw_runner import Runner

rng = np.random.default_rng(3)
G, D, E, N = 3, 6, 4, 5  # groups, table rows, row length, indices per group


def grouped(r):
    plan = popops.embedding.plan(r.graph, poplar.FLOAT, G, D, E, [N], {})
    table = popops.createGroupedSliceableTensor(r.graph, poplar.FLOAT, G, [D, E], [0], [1], plan, {}, "table")
    indices = popops.createGroupedIndicesTensor(r.graph, G, [0], N, plan, {}, "indices")
    return plan, table, indices


def test_plans_are_unambiguous_and_record_the_group_size():
    r = Runner()
    plain = popops.embedding.plan(r.graph, poplar.FLOAT, D, E, [N])
    plan = popops.embedding.plan(r.graph, poplar.FLOAT, G, D, E, [N], {})
    assert "groupSize" not in repr(plain) and "groupSize=3" in repr(plan) and plan != plain
    with pytest.raises(poputil.poplibs_error, match="group size must be at least 1"):
        popops.embedding.plan(r.graph, poplar.FLOAT, 0, D, E, [N], {})


def test_grouped_creation_shapes():
    r = Runner()
    plan, table, indices = grouped(r)
    assert table.shape() == [G, D, E] and indices.shape() == [G, N, 1]
    assert indices.elementType() == poplar.UNSIGNED_INT
    s = popops.createGroupedSliceTensor(r.graph, poplar.HALF, G, [D, E], [0], [1], N, plan, {})
    assert s.shape() == [G, N, 1, E] and s.elementType() == poplar.HALF
    with pytest.raises(poputil.poplibs_error, match="createGroupedIndicesTensor: the group size 2 differs from the plan's 3"):
        popops.createGroupedIndicesTensor(r.graph, 2, [0], N, plan, {})
    with pytest.raises(poputil.poplibs_error, match="createGroupedSliceableTensor needs a plan made by the grouped"):
        popops.createGroupedSliceableTensor(r.graph, poplar.FLOAT, G, [D, E], [0], [1], popops.SlicePlan(), {})


def test_grouped_multi_slice_and_updates():
    values = rng.integers(-5, 5, size=(G, D, E)).astype(np.float64)
    offsets = rng.integers(0, D, size=(G, N, 1))
    updates = rng.integers(-3, 4, size=(G, N, 1, E)).astype(np.float64)
    r = Runner()
    plan, table, indices = grouped(r)
    r.graph.setInitialValue(table, values.astype(np.float32))
    r.graph.setInitialValue(indices, offsets.astype(np.uint32))
    sliced = popops.groupedMultiSlice(r.graph, table, indices, [0], [1], r.prog, plan, {}, "slice")
    copies = {name: r.tensor(values, poplar.FLOAT, name) for name in ("set", "add", "max", "mul")}
    s = r.tensor(updates, poplar.FLOAT, "s")
    scale = r.tensor(np.array(2.0), poplar.FLOAT, "scale")
    popops.groupedMultiUpdate(r.graph, copies["set"], s, indices, [0], [1], r.prog, plan, {})
    popops.groupedMultiUpdateAdd(r.graph, copies["add"], s, indices, scale, [0], [1], r.prog, plan, {})
    popops.groupedMultiUpdateMax(r.graph, copies["max"], s, indices, [0], [1], r.prog, plan, {})
    popops.groupedMultiUpdateMul(r.graph, copies["mul"], s, indices, [0], [1], r.prog, plan, {})
    got = dict(zip(["slice", *copies], r.run(sliced, *copies.values())))

    want = {k: values.copy() for k in copies}
    for g in range(G):
        for n in range(N):
            row, u = offsets[g, n, 0], updates[g, n, 0]
            want["set"][g, row] = u
            want["add"][g, row] += 2.0 * u
            want["max"][g, row] = np.maximum(want["max"][g, row], u)
            want["mul"][g, row] *= u
    np.testing.assert_array_equal(got["slice"], np.take_along_axis(values, offsets, 1)[:, :, None, :])
    for k in copies:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def test_grouped_shape_errors():
    r = Runner()
    plan, table, indices = grouped(r)
    with pytest.raises(poputil.poplibs_error, match=r"groupedMultiSlice: offsets .* must have shape \[3, numIndices, 1\]"):
        popops.groupedMultiSlice(r.graph, table, indices[0], [0], [1], r.prog, plan, {})
    s = r.graph.addVariable(poplar.FLOAT, [2, N, 1, E], "s")
    with pytest.raises(poputil.poplibs_error, match="groupedMultiUpdate: slices 's' .* must have 3 groups"):
        popops.groupedMultiUpdate(r.graph, table, s, indices, [0], [1], r.prog, plan, {})
