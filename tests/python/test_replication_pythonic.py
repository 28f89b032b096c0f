"""pd.Graph(dev, replicas=n): per-replica reads, writes, feeds and results, pd.replica_index
and the collectives (pd.all_reduce, ...) against numpy."""
import re
import warnings

import numpy as np
import pytest

import popdsl as pd

pytestmark = pytest.mark.needs_emulator("runs replicated graphs, which the SDK's IPU Model does not")


def replicated(replicas):
    dev = pd.ipu_model(tiles=4, ipus=replicas)
    return dev, pd.Graph(dev, replicas=replicas)


def test_reads_and_writes_have_a_leading_replica_axis():
    dev, g = replicated(3)
    x = g.variable(pd.float32, (2,), name="x")
    index = pd.replica_index(g)
    with pd.Sequence("main") as main:
        x += pd.cast(index, pd.float32)
    with pd.Session(g, main, device=dev) as s:
        s.write(x, [1.0, 2.0])  # the same values on every replica
        s.run()
        np.testing.assert_array_equal(s.read(x), np.array([[1, 2], [2, 3], [3, 4]], np.float32))
        per_replica = np.arange(6, dtype=np.float32).reshape(3, 2)
        s.write(x, per_replica)
        s.run()
        np.testing.assert_array_equal(s.read(x), per_replica + np.arange(3)[:, None])
        np.testing.assert_array_equal(s.read(index), [0, 1, 2])
        with pytest.raises(pd.SessionError, match=r"shape \(2, 2\).*of shape \(2,\) or \(3, 2\) \(one per replica\)"):
            s.write(x, np.zeros((2, 2)))


def test_feeds_and_results_per_replica():
    replicas = 2
    dev, g = replicated(replicas)
    inp = g.host_to_device(pd.float32, (3,), name="in")
    shared = g.host_to_device(pd.float32, (3,), name="shared", broadcast=True)
    out = g.device_to_host(pd.float32, (3,), name="out")
    with pd.Sequence("main") as main:
        with pd.Repeat(2):
            out.write(inp.read() * shared.read())
    feeds = np.arange(12, dtype=np.float32).reshape(replicas, 2, 3)  # [replica, read, ...]
    scale = np.array([[1, 2, 3], [4, 5, 6]], np.float32)  # [read, ...], the same for every replica
    with pd.Session(g, main, device=dev) as s:
        got = s.run(feeds={inp: feeds, shared: scale})[out]
        np.testing.assert_array_equal(got, feeds * scale[None])
        with pytest.raises(pd.SessionError, match=r"stream 'in' needs a leading replica axis: shape \(2, \*\(3,\)\)"):
            s.run(feeds={inp: feeds[0, 0], shared: scale})
        with pytest.raises(pd.SessionError, match="stream 'in' of replica 0 was read more than the 1 time"):
            s.run(feeds={inp: feeds[:, :1], shared: scale})


@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
def test_collectives_match_numpy(replicas):
    dev, g = replicated(replicas)
    x = g.variable(pd.float32, (5,), name="x")
    with pd.Sequence("main") as main:
        total = pd.all_reduce(x)
        mean = pd.all_reduce(x, op="mean")
        largest = pd.all_reduce(x, op="max")
        chunk = pd.reduce_scatter(x, op="sum")
        gathered = pd.all_gather(x)
        root = pd.broadcast(x, root=replicas - 1)
        squares = pd.all_reduce(x * 1.0, op="square_add", inplace=True)
    values = np.random.default_rng(replicas).uniform(-1, 1, (replicas, 5)).astype(np.float32)
    wide = values.astype(np.float64)
    with pd.Session(g, main, device=dev) as s:
        s.write(x, values if replicas > 1 else values[0])  # one replica: no replica axis
        s.run()
        one = (lambda a: a[None]) if replicas == 1 else (lambda a: a)
        for got, expected in [(total, wide.sum(0)), (mean, wide.mean(0)), (largest, wide.max(0)),
                              (squares, (wide ** 2).sum(0))]:
            np.testing.assert_allclose(one(s.read(got)), np.broadcast_to(expected, (replicas, 5)), rtol=1e-6,
                                       atol=1e-7)
        size = -(-5 // replicas)
        padded = np.zeros(replicas * size)
        padded[:5] = wide.sum(0)
        np.testing.assert_allclose(one(s.read(chunk)).reshape(replicas, size), padded.reshape(replicas, size),
                                   rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(one(s.read(gathered)).reshape(replicas, replicas, 5),
                                      np.broadcast_to(values, (replicas, replicas, 5)))
        np.testing.assert_array_equal(one(s.read(root)), np.broadcast_to(values[-1], (replicas, 5)))


@pytest.mark.parametrize("op, dtype, reference", [
    ("add", np.float32, lambda v: v.sum(0)), ("sum", np.float32, lambda v: v.sum(0)),
    ("mean", np.float32, lambda v: v.mean(0)), ("mul", np.float32, lambda v: v.prod(0)),
    ("prod", np.float32, lambda v: v.prod(0)), ("min", np.float32, lambda v: v.min(0)),
    ("max", np.float32, lambda v: v.max(0)), ("square_add", np.float32, lambda v: (v ** 2).sum(0)),
    ("and", np.bool_, lambda v: v.all(0)), ("or", np.bool_, lambda v: v.any(0)),
    ("local", np.float32, lambda v: v), (pd.gcl.CollectiveOperator.MIN, np.float32, lambda v: v.min(0)),
])
def test_every_all_reduce_operator_matches_numpy(op, dtype, reference):
    replicas = 3
    dev, g = replicated(replicas)
    x = g.variable(np.dtype(dtype), (4,), name="x")
    with pd.Sequence("main") as main:
        reduced = pd.all_reduce(x, op=op)
    if dtype is np.bool_:  # every and/or case of three replicas: all true, all false, mixed
        values = np.array([[True, False, True, False], [True, False, False, False], [True, False, True, True]])
    else:
        values = np.random.default_rng(7).uniform(-2, 2, (replicas, 4)).astype(np.float32)
    with pd.Session(g, main, device=dev) as s:
        s.write(x, values)
        s.run()
        got = s.read(reduced)
    np.testing.assert_allclose(got, np.broadcast_to(reference(values.astype(np.float64)), (replicas, 4)),
                               rtol=1e-6, atol=1e-7)


def test_groups_of_consecutive_replicas():
    dev, g = replicated(4)
    x = g.variable(pd.float32, (2,), name="x")
    with pd.Sequence("main") as main:
        pairs = pd.all_reduce(x, group=2)
    values = np.arange(8, dtype=np.float32).reshape(4, 2)
    with pd.Session(g, main, device=dev) as s:
        s.write(x, values)
        s.run()
        expected = np.repeat(values.reshape(2, 2, 2).sum(1), 2, axis=0)
        np.testing.assert_array_equal(s.read(pairs), expected)


def test_misuse_names_the_problem():
    dev = pd.ipu_model(tiles=4, ipus=4)
    with pytest.raises(pd.BuildError, match="3 replicas do not divide the device's 4 IPUs"):
        pd.Graph(dev, replicas=3)
    g = pd.Graph(dev, replicas=4)
    x = g.variable(pd.float32, (2,), name="x")
    i = g.variable(pd.int32, (2,), name="i")
    with pd.Sequence("main"):
        with pytest.raises(pd.BuildError, match="op must be one of .*got 'average'"):
            pd.all_reduce(x, op="average")
        with pytest.raises(pd.BuildError, match="group size of 3 does not divide the graph's 4 replicas"):
            pd.all_reduce(x, group=3)
        with pytest.raises(pd.BuildError, match="MEAN needs a FLOAT or HALF tensor"):
            pd.all_reduce(i, op="mean")
    with pytest.raises(ValueError, match="ipus must be a positive int"):
        pd.ipu_model(ipus=0)


OPERATOR_NAMES = "['add', 'and', 'local', 'max', 'mean', 'min', 'mul', 'or', 'prod', 'square_add', 'sum']"


@pytest.mark.parametrize("call, message", [
    (lambda x: pd.all_reduce(x, op="average"),
     f"pd.all_reduce: op must be one of {OPERATOR_NAMES} (or a gcl.CollectiveOperator), got 'average'"),
    (lambda x: pd.reduce_scatter(x, op="average"),
     f"pd.reduce_scatter: op must be one of {OPERATOR_NAMES} (or a gcl.CollectiveOperator), got 'average'"),
    (lambda x: pd.all_reduce(x, group=0), "pd.all_reduce: group (a group size) must be an int in [1, 4], got int 0"),
    (lambda x: pd.all_reduce(x, group=3), "pd.all_reduce: a group size of 3 does not divide the graph's 4 replicas"),
    (lambda x: pd.reduce_scatter(x, group=3),
     "pd.reduce_scatter: a group size of 3 does not divide the graph's 4 replicas"),
    (lambda x: pd.all_gather(x, group=3), "pd.all_gather: a group size of 3 does not divide the graph's 4 replicas"),
    (lambda x: pd.broadcast(x, group=3), "pd.broadcast: a group size of 3 does not divide the graph's 4 replicas"),
    (lambda x: pd.broadcast(x, root=4), "pd.broadcast: root must be an int in [0, 3], got int 4"),
    (lambda x: pd.all_reduce([1.0, 2.0]), "pd.all_reduce: t must be a pd.Tensor, got list [1.0, 2.0]"),
    (lambda x: pd.reduce_scatter(1.0), "pd.reduce_scatter: t must be a pd.Tensor, got float 1.0"),
    (lambda x: pd.all_gather(None), "pd.all_gather: t must be a pd.Tensor, got NoneType None"),
    (lambda x: pd.broadcast("x"), "pd.broadcast: t must be a pd.Tensor, got str 'x'"),
    (lambda x: pd.grad(pd.reduce_sum(pd.all_reduce(x, op="max")), [x]),
     "pd.grad: pd.all_reduce with op MAX has no gradient (only add and mean)"),
])
def test_each_collectives_misuse_message_names_it_and_the_problem(call, message):
    dev, g = replicated(4)
    x = g.variable(pd.float32, (2,), name="x")
    with pd.Sequence("main"):
        # the whole message, after the source location ("file:line: statement: ")
        with pytest.raises(pd.BuildError, match=rf": {re.escape(message)}$"):
            call(x)


def test_replica_index_refuses_what_is_not_a_graph():
    with pytest.raises(TypeError, match=r"^pd\.replica_index: graph must be a pd\.Graph, got int 3$"):
        pd.replica_index(3)


def test_collectives_defaults_and_groups_of_one():
    replicas = 3
    dev, g = replicated(replicas)
    x = g.variable(pd.float32, (3,), name="x")
    with pd.Sequence("main") as main:
        chunk = pd.reduce_scatter(x)  # op="add"
        first = pd.broadcast(x)  # root=0
        alone = pd.all_reduce(x, group=1)  # every replica its own group
        index = pd.replica_index()  # the graph created last
        rank = pd.replica_index(g, name="rank")
    values = np.arange(9, dtype=np.float32).reshape(replicas, 3) ** 2
    with pd.Session(g, main, device=dev) as s:
        s.write(x, values)
        s.run()
        np.testing.assert_array_equal(s.read(chunk), values.sum(0)[:, None])  # one element per replica
        np.testing.assert_array_equal(s.read(first), np.broadcast_to(values[0], (replicas, 3)))
        np.testing.assert_array_equal(s.read(alone), values)
        np.testing.assert_array_equal(s.read(index), [0, 1, 2])
    assert (index.name, rank.name) == ("replica_index", "rank")
    assert [len(intervals) for intervals in g.raw.getTileMapping(index.raw)] == [1, 0, 0, 0]  # on tile 0


def test_a_collective_in_a_loop_body_of_what_the_loop_does_not_change_warns():
    dev, g = replicated(2)
    x = g.variable(pd.float32, (2,), name="x")
    with pd.Sequence("main"):
        with pd.Repeat(3):
            total = pd.all_reduce(x)  # the same sum every iteration
        with pytest.warns(pd.LoopCarryWarning):
            total + 1.0
        with pd.Repeat(3):
            pd.all_reduce(x, inplace=True)  # x changes each iteration: carried, no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.LoopCarryWarning)
            x + 1.0


def test_grad_through_all_reduce_reduces_the_gradients():
    replicas = 3
    dev, g = replicated(replicas)
    x = g.variable(pd.float32, (4,), name="x")
    c = g.variable(pd.float32, (4,), name="c")
    with pd.Sequence("main") as main:
        total = pd.reduce_sum(pd.all_reduce(x, op="mean") * c)  # replica r's loss: sum(mean_q x_q * c_r)
        (dx,) = pd.grad(total, [x])
    cs = np.random.default_rng(5).uniform(-1, 1, (replicas, 4)).astype(np.float32)
    with pd.Session(g, main, device=dev) as s:
        s.write(x, np.ones(4, np.float32))
        s.write(c, cs)
        s.run()
        # d(sum over replicas of their losses)/dx_r = mean over replicas of c
        np.testing.assert_allclose(s.read(dx), np.broadcast_to(cs.astype(np.float64).mean(0), (replicas, 4)),
                                   rtol=1e-6)
    with pd.Sequence("other"):
        with pytest.raises(pd.BuildError, match="op MAX has no gradient"):
            pd.grad(pd.reduce_sum(pd.all_reduce(x, op="max")), [x])


def test_a_saved_replicated_session_loads_with_its_replicas(tmp_path):
    dev, g = replicated(2)
    x = g.variable(pd.float32, (2,), name="x")
    inp = g.host_to_device(pd.float32, (2,), name="in")
    with pd.Sequence("main") as main:
        x += inp.read() + pd.cast(pd.replica_index(g), pd.float32)
    pd.Session(g, main, device=dev).save(tmp_path / "replicated")
    with pd.Session.load(tmp_path / "replicated") as s:  # a simulator device of both replicas' IPUs
        assert s.replicas == 2
        s.write("x", [[1, 2], [3, 4]])
        s.run(feeds={"in": np.array([[10, 20], [30, 40]], np.float32)})
        np.testing.assert_array_equal(s.read("x"), [[11, 22], [34, 45]])


@pytest.mark.parametrize("replicas, replica_map", [
    (4, {0: 1, 1: 2, 2: 3, 3: 0}),   # a ring shift
    (3, {2: 0, 0: 2}),               # a swap; replica 1 keeps its dst
    (5, {1: 1, 4: 0}),               # to itself, and odd replica counts
])
def test_cross_replica_copy_moves_each_source_to_its_destination(replicas, replica_map):
    dev, g = replicated(replicas)
    src = g.variable(pd.int32, (3,), name="src")
    dst = g.variable(pd.int32, (3,), name="dst")
    with pd.Sequence("main") as main:
        pd.cross_replica_copy(src, dst, replica_map)
    values = np.arange(3 * replicas, dtype=np.int32).reshape(replicas, 3) + 2 ** 30  # exact past float's 24 bits
    before = -np.ones((replicas, 3), np.int32)
    expected = before.copy()
    for k, m in replica_map.items():
        expected[m] = values[k]
    with pd.Session(g, main, device=dev) as s:
        s.write(src, values)
        s.write(dst, before)
        s.run()
        np.testing.assert_array_equal(s.read(dst), expected)
        moved = sum(k != m for k, m in replica_map.items()) > 0
        [step] = [st for st in s.profile.steps if st.kind == "CrossReplica"]
        assert step.ipu_link_bytes == (12 if moved else 0)


def test_cross_replica_copy_misuse_is_refused():
    dev, g = replicated(2)
    a = g.variable(pd.float32, (3,), name="a")
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match="sends two replicas' src to one replica"):
            pd.cross_replica_copy(a, a, {0: 1, 1: 1})
        with pytest.raises(pd.BuildError, match=r"a destination replica must be an int in \[0, 1\]"):
            pd.cross_replica_copy(a, a, {0: 2})
        with pytest.raises(pd.BuildError, match="dtypes and element counts must match"):
            pd.cross_replica_copy(a, g.variable(pd.float32, (4,)), {0: 1})
        with pytest.raises(pd.BuildError, match="must be a dict"):
            pd.cross_replica_copy(a, a, [(0, 1)])


def test_replicated_feeds_as_lists_and_missing_feeds():
    dev, g = replicated(2)
    inp = g.host_to_device(pd.float32, (3,), name="in")
    x = g.variable(pd.float32, (3,), name="x")
    with pd.Sequence("main") as main:
        pd.copy(inp.read(), x)
    with pd.Session(g, main, device=dev) as s:
        s.run(feeds={inp: [[1, 2, 3], [4, 5, 6]]})  # nested lists: one row per replica
        np.testing.assert_array_equal(s.read(x), [[1, 2, 3], [4, 5, 6]])
        with pytest.raises(pd.SessionError, match=r"^the program read stream 'in' of replica 0 but run\(\) got no "
                                                  r"feed for it$"):
            s.run()


@pytest.mark.parametrize("feed, got", [
    (np.float32(1.0), r"\(\)"),  # no axis at all
    (np.zeros((3, 2), np.float32), r"\(3, 2\)"),  # 3 rows for 2 replicas, though each row fits the stream
])
def test_a_replicated_feed_without_its_replica_axis_is_refused(feed, got):
    dev, g = replicated(2)
    inp = g.host_to_device(pd.float32, (2,), name="in")
    with pd.Sequence("main") as main:
        inp.read()
    with pd.Session(g, main, device=dev) as s:
        with pytest.raises(pd.SessionError, match=rf"^the feed for stream 'in' needs a leading replica axis: shape "
                                                  rf"\(2, \*\(2,\)\) or \(2, reads, \*\(2,\)\), got {got}$"):
            s.run(feeds={inp: feed})


def test_a_replicated_scalar_stream_takes_one_value_per_replica():
    dev, g = replicated(2)
    inp = g.host_to_device(pd.float32, (), name="in")
    x = g.variable(pd.float32, (), name="x")
    with pd.Sequence("main") as main:
        pd.copy(inp.read(), x)
    with pd.Session(g, main, device=dev) as s:
        s.run(feeds={inp: np.array([1.5, -2.0], np.float32)})
        np.testing.assert_array_equal(s.read(x), [1.5, -2.0])
