"""The Pythonic layer: graphs, tensors, operators, control flow, sessions, errors."""
import re

import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

from debug_paths import shown_path


@pytest.fixture
def graph(ipu_device):
    return pd.Graph(ipu_device)


def run_main(session_factory, graph, main, writes=(), feeds=None):
    """Runs `main` once after writing (tensor, values) pairs; returns the session's reader."""
    session = session_factory(graph, {"main": main})
    with session:
        for t, values in writes:
            session.write(t, values)
        outputs = session.run("main", feeds=feeds)
        return {"read": {id(t): session.read(t) for t in graph.variables}, "out": outputs}


def test_design_example_without_matmul(graph, session_factory):
    x = graph.variable(pd.float32, (4, 8), name="x")
    i = graph.variable(pd.uint32, (1,), name="i")
    with pd.Sequence("main") as main:
        pd.zero(i)
        y = x + 1.0
        y += 1.0
        z = pd.map(lambda a, b: pd.exp(a - b) * 2, y, x)
        with pd.Repeat(4):
            with pd.If(i == 0):
                x *= 2
            with pd.Else():
                x -= 1
            i += 1
    start = np.arange(32, dtype=np.float32).reshape(4, 8) / 10
    result = run_main(session_factory, graph, main, writes=[(x, start)])["read"]
    assert_close(result[id(y)], start + 2)
    assert_close(result[id(z)], np.exp((start + 2) - start) * 2)
    assert_close(result[id(x)], start * 2 - 3)
    assert result[id(i)][0] == 4


def test_operators_scalars_reflected_and_comparisons(graph, session_factory):
    a = graph.variable(pd.float32, (3, 4), name="a")
    b = graph.variable(pd.float32, (4,), name="b")
    with pd.Sequence() as main:
        results = [a + b, a - 2, 3 - a, a * b, 1 / (a + 1), -a, abs(a - 5), a > b, pd.where(a > b, a, b),
                   pd.max(a, 2.5), pd.sigmoid(a)]
    av = np.arange(12, dtype=np.float32).reshape(3, 4)
    bv = np.array([1, 5, 2, 8], np.float32)
    got = run_main(session_factory, graph, main, writes=[(a, av), (b, bv)])["read"]
    expected = [av + bv, av - 2, 3 - av, av * bv, 1 / (av + 1.0), -av, np.abs(av - 5), av > bv,
                np.where(av > bv, av, bv), np.maximum(av, 2.5), 1 / (1 + np.exp(-av.astype(np.float64)))]
    for t, want in zip(results, expected):
        assert_close(got[id(t)], want, err_msg=repr(t))
    assert results[7].dtype == pd.bool_


def test_integer_ops_keep_their_type(graph, session_factory):
    n = graph.variable(pd.int32, (5,), name="n")
    with pd.Sequence() as main:
        m = (n * 3 + 1) % 4
        q = n / 2
    got = run_main(session_factory, graph, main, writes=[(n, [-3, -1, 0, 5, 7])])["read"]
    nv = np.array([-3, -1, 0, 5, 7])
    assert m.dtype == pd.int32 and q.dtype == pd.int32
    np.testing.assert_array_equal(got[id(m)], np.fmod(nv * 3 + 1, 4))
    np.testing.assert_array_equal(got[id(q)], np.trunc(nv / 2))


def test_static_indexing_and_views_alias(graph, session_factory):
    t = graph.variable(pd.float32, (4, 6), name="t")
    with pd.Sequence() as main:
        t[1:3, 0] *= 10.0                 # a strided column slice
        t[::-1][0] += 100.0               # the last row, through a reversed view
        t.T[5, ::2] -= 1.0                # every other row of the last column
        t[..., 2:4].reshape(-1).flatten()[::3] += 0.5
        s = t.reshape(2, 12).T.expand(0).squeeze(0) * 1.0
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    want = base.copy()
    want[1:3, 0] *= 10
    want[::-1][0] += 100
    want.T[5, ::2] -= 1
    view = want[..., 2:4].reshape(-1)  # numpy copies here, so write back explicitly
    view[::3] += 0.5
    want[..., 2:4] = view.reshape(4, 2)
    got = run_main(session_factory, graph, main, writes=[(t, base)])["read"]
    assert_close(got[id(t)], want)
    assert_close(got[id(s)], want.reshape(2, 12).T)


def test_broadcast_cast_fill_copy_concat(graph, session_factory):
    v = graph.variable(pd.float32, (3,), name="v")
    w = graph.variable(pd.float32, (2, 3), name="w")
    with pd.Sequence() as main:
        b = v.broadcast((2, 3)) + w
        c = pd.cast(v * 2.6, pd.int32)
        pd.fill(w[0], 7.0)
        joined = pd.concat([v, w[1]])
        d = joined + 0.0
        pd.copy(v, w[1])
    vv, wv = np.array([1, 2, 3], np.float32), np.ones((2, 3), np.float32)
    got = run_main(session_factory, graph, main, writes=[(v, vv), (w, wv)])["read"]
    assert_close(got[id(b)], vv + wv)
    np.testing.assert_array_equal(got[id(c)], np.trunc(vv * np.float32(2.6)).astype(np.int32))
    assert_close(got[id(w)], np.stack([np.full(3, 7.0), vv]))
    assert_close(got[id(d)], np.concatenate([vv, wv[1]]))


def test_nonlinearity_in_place_writes_through_a_view(graph, session_factory):
    t = graph.variable(pd.float32, (3, 4), name="t")
    with pd.Sequence() as main:
        same = pd.nonlinearity_(t[::2], "softmax_stable")  # rows 0 and 2, each over its 4 elements
    assert same.shape == (2, 4)
    tv = np.arange(12, dtype=np.float32).reshape(3, 4) / 4
    got = run_main(session_factory, graph, main, writes=[(t, tv)])["read"][id(t)]
    expected = tv.astype(np.float64)
    expected[::2] = np.exp(tv[::2]) / np.exp(tv[::2]).sum(axis=1, keepdims=True)
    assert_close(got, expected)
    with pytest.raises(pd.BuildError, match="unknown non-linearity 'cosh'"):
        with pd.Sequence():
            pd.nonlinearity_(t, "cosh")


def test_while_switch_and_functions(graph, session_factory):
    counter = graph.variable(pd.int32, (1,), name="counter")
    total = graph.variable(pd.int32, (1,), name="total")
    choice = graph.variable(pd.uint32, (1,), name="choice")
    picked = graph.variable(pd.int32, (1,), name="picked")

    @graph.function
    def add_counter():
        total.__iadd__(counter)

    with pd.Sequence() as main:
        pd.zero(total)
        with pd.While(lambda: counter > 0):   # sums counter, counter-1, ..., 1
            add_counter()
            counter -= 1
        add_counter()                         # counter is 0 now: a second call adds nothing
        with pd.Switch(choice) as sw:
            with sw.case(0):
                pd.fill(picked, 10)
            with sw.case(2):
                pd.fill(picked, 20)
            with sw.default():
                pd.fill(picked, -1)
    for which, want in [(0, 10), (2, 20), (7, -1)]:
        got = run_main(session_factory, graph, main, writes=[(counter, [5]), (choice, [which])])["read"]
        assert got[id(total)][0] == 15
        assert got[id(picked)][0] == want


@pytest.mark.parametrize("copies", [0, 1, 2, 3, 4])
def test_streams_feed_a_batch_axis_and_return_outputs(graph, session_factory, copies):
    inputs = graph.host_to_device(pd.float32, (3,), name="in")
    outputs = graph.device_to_host(pd.float32, (3,), name="out")
    with pd.Sequence() as main:
        with pd.Repeat(copies):
            x = inputs.read()
            outputs.write(x * 2)
    feed = np.arange(3 * copies, dtype=np.float32).reshape(copies, 3)
    out = run_main(session_factory, graph, main, feeds={inputs: feed})["out"]
    # one row per write, stacked: the leading axis counts the writes, however many there are
    assert out[outputs].shape == (copies, 3)
    np.testing.assert_array_equal(out[outputs], feed.astype(np.float64) * 2)


def test_stream_feed_errors(graph, session_factory):
    inputs = graph.host_to_device(pd.float32, (3,), name="in")
    with pd.Sequence() as main:
        with pd.Repeat(2):
            inputs.read()
    session = session_factory(graph, main)
    with session:
        with pytest.raises(pd.SessionError, match=r"^the program read stream 'in' but run\(\) got no feed for it$"):
            session.run()
        with pytest.raises(pd.SessionError, match=r"^stream 'in' was read more than the 1 time\(s\) its feed provides$"):
            session.run(feeds={inputs: np.zeros(3)})
        with pytest.raises(pd.SessionError, match=r"^stream 'in' was read more than the 0 time\(s\) its feed provides$"):
            session.run(feeds={inputs: np.zeros((0, 3))})  # no rows at all
        with pytest.raises(pd.SessionError, match=r"^the feed for stream 'in' has shape \(2, 2\); expected \(3,\) or \(reads, \*\(3,\)\)$"):
            session.run(feeds={inputs: np.zeros((2, 2))})
        with pytest.raises(pd.SessionError, match="^the feed for stream 'in' has 3 rows but program 'main' read 2: give one row per read$"):
            session.run(feeds={inputs: np.zeros((3, 3))})
        with pytest.raises(pd.SessionError, match=r"^feeds given for unknown streams: \['inn'\]; this session's "
                                                  r"host-to-device streams are \['in'\]$"):
            session.run(feeds={"inn": np.zeros((2, 3))})
        session.run(feeds={inputs: np.zeros((2, 3))})  # exactly one row per read


@pytest.mark.parametrize("values, dtype, problem", [
    ([1.0, 2.5, 3.0], pd.int32, "2.5 is not exactly representable as int32"),
    ([1.0, float("nan"), 3.0], pd.int32, "nan is not exactly representable as int32"),
    ([1, -1, 3], pd.uint32, "-1 is not exactly representable as uint32"),
    ([1, 2 ** 40, 3], pd.int32, "1099511627776 is not exactly representable as int32"),
    ([0, 2, 1], pd.bool_, "2 is not exactly representable as bool"),
    (["a", "b", "c"], pd.int32, "<U1 values cannot be converted to int32"),
    (np.array([1, 2, 3], dtype=object), pd.float32, "object values cannot be converted to float32"),
], ids=["fraction", "nan", "negative-unsigned", "too-large", "bool", "strings", "objects"])
def test_integer_feeds_and_writes_take_only_exact_values(graph, session_factory, values, dtype, problem):
    inputs = graph.host_to_device(dtype, (3,), name="in")
    x = graph.variable(dtype, (3,), name="x")
    with pd.Sequence() as main:
        pd.copy(inputs.read(), x)
    with session_factory(graph, main) as session:
        with pytest.raises(pd.SessionError, match=f"^the feed for stream 'in': {re.escape(problem)}$"):
            session.run(feeds={inputs: values})
        with pytest.raises(pd.SessionError, match=f"^writing tensor 'x': {re.escape(problem)}$"):
            session.write(x, values)
        session.run(feeds={inputs: np.array([1.0, 0.0, 1.0])})  # integral floats are exact
        assert session.read(x).tolist() == [1, 0, 1]


@pytest.mark.parametrize("shape", [(2.7, 3), (True, 2), (-1,), ("3",), (None,)])
def test_shapes_take_only_non_negative_integers(graph, shape):
    for make in (lambda: graph.variable(pd.float32, shape, name="v"),
                 lambda: graph.host_to_device(pd.float32, shape, name="s"),
                 lambda: graph.sliceable(pd.float32, shape, name="v")):
        with pytest.raises(pd.BuildError, match=rf"test_pythonic.py:\d+: .*: shape .* has the dimension "
                                               rf"{re.escape(repr(shape[0]))}; dimensions are non-negative integers"):
            make()
    assert graph.variable(pd.float32, (np.int64(2), 3), name="ok").shape == (2, 3)


def test_session_errors(graph, session_factory, ipu_device):
    x = graph.variable(pd.float32, (2,), name="x")
    with pd.Sequence() as main:
        y = x + 1.0
    session = session_factory(graph, {"main": main})
    with pytest.raises(pd.SessionError, match="inside `with session:`"):
        session.run("main")
    with session:
        with pytest.raises(pd.SessionError, match="no program named 'other'"):
            session.run("other")
        with pytest.raises(pd.SessionError, match="cannot write an array of shape"):
            session.write(x, np.zeros(3))
        with pytest.raises(pd.SessionError, match="more than once"):
            session.write(x[0:1].broadcast((2,)), [1.0, 2.0])  # views write (test_session_views.py), once each
        with pytest.raises(pd.SessionError, match="attached to another session"):
            with session_factory(graph, {"main": main}):
                pass
    with session:
        session.write(x, [1, 2])
        session.run()
        np.testing.assert_array_equal(session.read(y), [2, 3])


def test_build_errors_name_the_users_line(graph):
    x = graph.variable(pd.float32, (2, 2), name="x")
    flags = graph.variable(pd.bool_, (2,), name="flags")
    with pytest.raises(pd.BuildError, match=r"(?s)test_pythonic.py:\d+: x \+ 1.0: no program is open.*with pd.Sequence"):
        x + 1.0
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=r"test_pythonic.py:\d+: .*If predicate.*shape \(2,\)"):
            pd.If(flags)
        with pytest.raises(pd.BuildError, match="must directly follow"):
            pd.Else()
        with pytest.raises(pd.BuildError, match="would be truncated"):
            graph.variable(pd.int32, (2,)) + 0.5
        with pytest.raises(pd.BuildError, match="cannot be broadcast"):
            x + graph.variable(pd.float32, (3,))
        with pytest.raises(pd.BuildError, match="Inferred type of lhs"):
            pd.map(lambda a, b: a + b, x, graph.variable(pd.int32, (2, 2)))
    with pytest.raises(TypeError, match="iterating would unroll"):
        iter(x)
    with pytest.raises(TypeError, match="pd.If"):
        bool(x)
    with pytest.raises(TypeError, match="session.read"):
        np.asarray(x)
    with pytest.raises(TypeError):
        np.add(x, 1)


def test_debug_names_come_from_source_lines_and_scopes():
    with pd.name_scope("encoder"):
        with pd.name_scope("layer0"):
            name = pd.debug.debug_name()
    here = shown_path(__file__)  # relative to the working directory
    assert name.startswith(f"encoder/layer0/{here}:")
    assert "name = pd.debug.debug_name()" in name
    explicit = pd.debug.debug_name("explicit")  # the name, then the line it was given on
    assert explicit.startswith(f"explicit @ {here}:") and explicit.endswith('explicit = pd.debug.debug_name("explicit")  # the name, then the line it was given on')
    assert pd.debug.debug_name("kind", op="pd.matmul").endswith("/pd.matmul")
    assert pd.debug.plain_name("w") == "w"


def test_matmul_grouped_and_accumulate(graph, session_factory):
    a = graph.variable(pd.float32, (3, 5), name="a")
    b = graph.variable(pd.float32, (5, 2), name="b")
    ga = graph.variable(pd.float32, (2, 3, 4), name="ga")
    gb = graph.variable(pd.float32, (2, 4, 5), name="gb")
    acc = graph.variable(pd.float32, (2, 3), name="acc")
    with pd.Sequence() as main:
        c = a @ b
        grouped = ga @ gb
        pd.matmul_acc(acc, b.T, a.T, scale=0.5)   # acc += 0.5 * b.T @ a.T, through transposed views
    rng = np.random.default_rng(3)
    values = {t: rng.standard_normal(t.shape) for t in (a, b, ga, gb, acc)}
    got = run_main(session_factory, graph, main, writes=values.items())["read"]
    av, bv = values[a], values[b]
    assert_close(got[id(c)], av @ bv)
    assert_close(got[id(grouped)], values[ga] @ values[gb])
    assert_close(got[id(acc)], values[acc] + 0.5 * (bv.T @ av.T))
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=r"matmul shapes do not agree: \(3, 5\) @ \(3, 5\)"):
            a @ a


def test_matmul_writes_into_a_given_output_of_any_layout(graph, session_factory):
    a = graph.variable(pd.float32, (4, 6), name="a")
    b = graph.variable(pd.float32, (6, 5), name="b")
    ga = graph.variable(pd.float32, (2, 3, 4), name="ga")
    gb = graph.variable(pd.float32, (2, 4, 5), name="gb")
    transposed = graph.variable(pd.float32, (5, 4), name="outT")      # receives a @ b as outT.T
    plain = graph.variable(pd.float32, (4, 5), name="out")
    grouped = graph.variable(pd.float32, (2, 3, 5), name="groupedOut")
    with pd.Sequence() as main:
        view = transposed.T
        assert pd.matmul(a, b, out=view) is view
        pd.matmul(a, b.T.T, out=plain)
        pd.matmul(ga, gb, out=grouped)
        with pytest.raises(pd.BuildError, match=r"matmul out= must be a float tensor of shape \(4, 5\), not .*outT"):
            pd.matmul(a, b, out=transposed)
        with pytest.raises(pd.BuildError, match="out= must be a float tensor.*half"):
            pd.matmul(a, b, out=graph.variable(pd.float16, (4, 5), name="half"))
        elsewhere = pd.Graph(graph.target).variable(pd.float32, (4, 5), name="elsewhere")
        with pytest.raises(pd.BuildError, match="matmul out= <pd.Tensor 'elsewhere'.* belongs to another pd.Graph"):
            pd.matmul(a, b, out=elsewhere)
        with pytest.raises(pd.BuildError, match="pd.matmul_acc: c <pd.Tensor 'elsewhere'.* belongs to another pd.Graph"):
            pd.matmul_acc(elsewhere, a, b)
    rng = np.random.default_rng(5)
    values = {t: rng.standard_normal(t.shape) for t in (a, b, ga, gb)}
    got = run_main(session_factory, graph, main, writes=values.items())["read"]
    assert_close(got[id(transposed)], (values[a] @ values[b]).T)
    assert_close(got[id(plain)], values[a] @ values[b])
    assert_close(got[id(grouped)], values[ga] @ values[gb])


def test_reductions_drop_the_reduced_axes(graph, session_factory):
    t = graph.variable(pd.float32, (3, 4, 2), name="t")
    flags = graph.variable(pd.bool_, (2, 3), name="flags")
    with pd.Sequence() as main:
        results = [t.sum(1), t.max(), t.min((0, 2)), pd.reduce_prod(t, -1), pd.reduce_sum_squares(t, 0),
                   pd.reduce_logsumexp(t, 2), pd.reduce_all(flags, 1), pd.reduce_any(flags, 0)]
    tv = np.random.default_rng(4).uniform(-2, 2, size=(3, 4, 2))
    fv = np.array([[True, True, True], [True, False, True]])
    got = run_main(session_factory, graph, main, writes=[(t, tv), (flags, fv)])["read"]
    expected = [tv.sum(1), tv.max(), tv.min((0, 2)), tv.prod(-1), (tv ** 2).sum(0),
                np.log(np.exp(tv).sum(2)), fv.all(1), fv.any(0)]
    for r, want in zip(results, expected):
        assert r.shape == np.shape(want)
        assert_close(got[id(r)], want, err_msg=repr(r))


def test_axes_past_the_rank_are_errors(graph):
    # a % ndim wrapped them: t.sum(5) summed axis 1, column.squeeze(3) dropped axis 1,
    # and a scalar's squeeze(0) raised ZeroDivisionError.
    column = graph.variable(pd.float32, (4, 1), name="column")
    scalar = graph.variable(pd.float32, (), name="scalar")
    with pd.Sequence():
        for wrapped in (lambda: column.sum(5), lambda: pd.reduce_max(column, (0, -3)),
                        lambda: column.squeeze(3), lambda: scalar.squeeze(0), lambda: scalar.sum(0)):
            with pytest.raises(pd.BuildError, match=r"axis -?\d is out of range for <pd.Tensor '(column|scalar)'"):
                wrapped()
        assert column.sum(-1).shape == column.squeeze(-1).shape == (4,)


def test_boolean_static_indices_are_errors(graph):
    # Python's bool is an int: x[True] silently read row 1 (numpy adds an axis instead).
    x = graph.variable(pd.float32, (3, 2), name="x")
    for key in (True, np.bool_(False), (0, True)):
        with pytest.raises(pd.BuildError, match=r"boolean index (True|False) on <pd.Tensor 'x'"):
            x[key]
    assert x[1].shape == (2,)


def test_dynamic_indexing_inside_a_repeat(graph, session_factory):
    table = graph.variable(pd.float32, (4, 3), name="table")
    i = graph.variable(pd.uint32, (1,), name="i")
    j = graph.variable(pd.int32, (1,), name="j")
    with pd.Sequence() as main:
        pd.zero(i)
        with pd.Repeat(4):                    # doubles row i, for every row in turn
            row = table.at[i].get()
            table.at[i].set(row * 2)
            i += 1
        column = table.at[:, j].get()         # an index along dimension 1
    tv = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = run_main(session_factory, graph, main, writes=[(table, tv), (j, [2])])["read"]
    assert_close(got[id(table)], tv * 2)
    assert_close(got[id(column)], tv[:, 2] * 2)
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match="one-element integer tensor"):
            table.at[table[0, 0:1]]
        with pytest.raises(pd.BuildError, match=r"set: value must be a float tensor of shape \(3,\)"):
            table.at[i].set(column)


@pytest.mark.needs_emulator("the DESIGN.md example reads Session.profile")
def test_design_md_example_runs_as_written(ipu_device):
    """DESIGN.md's example, with checks of what it prints."""
    dev = ipu_device
    g = pd.Graph(dev)
    x = g.variable(pd.float32, (4, 8), name="x")
    w = g.constant(np.ones((8, 2), np.float32), name="w")
    i = g.variable(pd.uint32, (1,), name="i")
    with pd.Sequence("main") as main:
        pd.zero(i)
        y = x @ w
        y += 1.0
        z = pd.map(lambda a, b: pd.exp(a - b) * 2, y, y)
        with pd.Repeat(4):
            row = x.at[i].get()
            with pd.If(i == 0):
                row *= 2
            with pd.Else():
                row -= 1
            x.at[i].set(row)
            i += 1
    start = np.arange(32, dtype=np.float32).reshape(4, 8)
    with pd.Session(g, {"main": main}, device=dev) as s:
        s.write(x, start)
        s.run("main")
        want_x = start.copy()
        want_x[0] *= 2
        want_x[1:] -= 1
        assert_close(s.read(x), want_x)
        assert_close(s.read(y), start @ np.ones((8, 2)) + 1)
        assert_close(s.read(z), np.full((4, 2), 2.0))
        summary = s.profile.summary()
    assert "Execution:" in summary and "Total cycles (estimated):" in summary
    (if_step,) = [step for step in s.profile.steps if step.kind == "If"]
    assert if_step.executions == 4  # once per Repeat iteration


def test_sliceable_variables_and_matrix_transposes(graph, session_factory):
    table = graph.sliceable(pd.float32, (3, 2, 4), name="table")
    i = graph.variable(pd.uint32, (1,), name="i")
    with pd.Sequence() as main:
        row = table.at[i].get()
        gram = row @ row.mT                   # [2, 4] @ [4, 2]
        batched = table @ table.mT            # [3, 2, 4] @ [3, 4, 2]
    tiles_of = lambda t: {tile for tile, intervals in enumerate(graph.raw.getTileMapping(t.raw)) if intervals}  # noqa: E731
    assert tiles_of(table[0]) == tiles_of(table[1]) == tiles_of(table[2])   # every slice spans the same tiles
    mapping = lambda t: [[(i.begin(), i.end()) for i in tile] for tile in graph.raw.getTileMapping(t.raw)]  # noqa: E731
    assert mapping(graph.clone(table)) == mapping(table)
    tv = np.random.default_rng(5).standard_normal((3, 2, 4))
    got = run_main(session_factory, graph, main, writes=[(table, tv), (i, [1])])["read"]
    assert_close(got[id(gram)], tv[1] @ tv[1].T)
    assert_close(got[id(batched)], tv @ tv.transpose(0, 2, 1))
    with pytest.raises(pd.BuildError, match="mT needs at least two dimensions"):
        table[0, 0].mT
    with pytest.raises(pd.BuildError, match=r"Graph.sliceable: axes must be an int in \[-1, 0\], got int 1"):
        graph.sliceable(pd.float32, (3,), axes=(1,))


@pytest.mark.parametrize("index", [4, 5, -1, -4])
def test_out_of_range_dynamic_indices_select_nothing(graph, session_factory, index):
    x = graph.variable(pd.float32, (4,), name="x", init=np.arange(4.0))
    i = graph.variable(pd.int32, (1,), name="i", init=2)
    with pd.Sequence() as main:
        row = x.at[i].get()
        x.at[i].set(row + 10)
    with session_factory(graph, main) as session:
        session.run()  # index 2: row is 2, x[2] becomes 12
        assert session.read(row).item() == 2 and session.read(x).tolist() == [0, 1, 12, 3]
        session.write(i, [index])
        session.run()  # past the end (negative int32 indices are 2**32 + i): nothing selected
        assert session.read(row).item() == 2  # as it was after the last run
        assert session.read(x).tolist() == [0, 1, 12, 3]
