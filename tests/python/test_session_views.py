"""Session.read of views (slices, transposes, broadcasts, concats, the results of pd.argmax and
pd.gather): the current values of the storage they alias, made before or after the session;
outside the `with` block, from the weights' host copies. Session.write of views: their elements
of the tensors they alias, the others kept. Values against numpy."""
import numpy as np
import pytest

import popdsl as pd

X = np.random.default_rng(7).standard_normal((4, 5)).astype(np.float32)


@pytest.fixture
def graph(device):
    return pd.Graph(device)


def test_views_read_as_numpy_computes_them(graph, device):
    x = graph.variable(pd.float32, (4, 5), name="x", init=X)
    rows = graph.variable(pd.int32, (3,), name="rows", init=[3, 0, 3])
    with pd.Sequence() as main:
        y = x * 2  # a result the session reads whole
        views = {
            "argmax": (pd.argmax(x, axis=1), np.argmax(X, axis=1)),
            "concat": (pd.concat([x, y], axis=1), np.concatenate([X, X * 2], axis=1)),
            "slice": (x[1:3, 2:], X[1:3, 2:]),
            "transpose": (y.transpose(), (X * 2).T),
            "broadcast": (x[2].broadcast((3, 5)), np.broadcast_to(X[2], (3, 5))),
            "gather": (pd.gather(x, rows), X[[3, 0, 3]]),
        }
    with pd.Session(graph, main, device=device) as s:
        s.run()
        for kind, (view, expected) in views.items():
            assert view.view_of is not None, kind  # what the session has no host read for
            got = s.read(view)
            assert got.shape == expected.shape and got.dtype == (np.uint32 if kind == "argmax" else np.float32), kind
            np.testing.assert_array_equal(got, expected, err_msg=kind)


def test_a_view_reads_its_bases_current_values_even_made_after_the_session(graph, device):
    x = graph.variable(pd.float32, (4, 5), name="x", init=X)
    first_row = x[0]
    with pd.Sequence() as main:
        x += 1  # writes through every view of x
    with pd.Session(graph, main, device=device) as s:
        np.testing.assert_array_equal(s.read(first_row), X[0])  # before the run: the initial values
        s.run()
        np.testing.assert_array_equal(s.read(first_row), X[0] + 1)
        np.testing.assert_array_equal(s.read(x.transpose()[::-1]), (X + 1).T[::-1])  # made after compiling
        s.write(x, np.zeros((4, 5)))
        np.testing.assert_array_equal(s.read(first_row), np.zeros(5))


def test_after_the_with_block_a_view_of_a_weight_reads_its_host_copy(graph, device):
    x = graph.variable(pd.float32, (4, 5), name="x", init=X)
    with pd.Sequence() as main:
        x *= 3
        y = x + 1  # not a weight: no host copy
    with pd.Session(graph, main, device=device) as s:
        s.run()
    np.testing.assert_array_equal(s.read(x[1:, 0]), X[1:, 0] * 3)
    np.testing.assert_array_equal(s.read(pd.concat([x[0], x[3]])), np.concatenate([X[0], X[3]]) * 3)
    with pytest.raises(pd.SessionError, match=r"Session\.read needs an attached session.*only weights"):
        s.read(y.transpose())


def test_a_view_of_a_tensor_made_after_the_session_is_refused_with_the_reason(graph, device):
    x = graph.variable(pd.float32, (4, 5), name="x", init=X)
    with pd.Sequence() as main:
        x += 1
    s = pd.Session(graph, main, device=device)
    later = graph.variable(pd.float32, (2, 3), name="later")
    with s:
        with pytest.raises(pd.SessionError, match=r"Session\.read: <pd\.Tensor 'later' shape=\(3, 2\).*made after "
                                                  r"the session was compiled"):
            s.read(later.transpose())
    other = pd.Graph(device).variable(pd.float32, (2,), name="elsewhere")
    with s, pytest.raises(pd.SessionError, match=r"'elsewhere'.* another graph"):
        s.read(other[0])
    with s, pytest.raises(pd.SessionError, match=r"Session\.write: <pd\.Tensor 'later' shape=\(3, 2\).*made after "
                                                 r"the session was compiled"):
        s.write(later.transpose(), np.zeros((3, 2)))


def test_a_view_writes_its_elements_of_the_tensors_it_aliases_and_keeps_the_others(graph, device):
    x = graph.variable(pd.float32, (4, 5), name="x", init=X)
    y = graph.variable(pd.float32, (2, 5), name="y", init=X[:2] * 10)
    with pd.Sequence() as main:
        x += 1
    written = np.arange(9, dtype=np.float32).reshape(3, 3)
    across = np.arange(100, 110, dtype=np.float32).reshape(2, 5)  # x's last row, then y's first
    expected_x, expected_y = X.copy(), X[:2] * 10
    expected_x[1:, ::2] = written.T
    expected_x[3], expected_y[0] = across
    with pd.Session(graph, main, device=device) as s:
        s.write(x[1:, ::2].transpose(), written)  # strided and transposed
        s.write(pd.concat([x[3], y[0]]).reshape(2, 5), across)  # across two variables
        np.testing.assert_array_equal(s.read(x), expected_x)
        np.testing.assert_array_equal(s.read(y), expected_y)
        s.run()  # the engine computes from what was written
        expected_x += 1
        np.testing.assert_array_equal(s.read(x), expected_x)
        s.write(x[0], 7)  # one value fills the view
        expected_x[0] = 7
        np.testing.assert_array_equal(s.read(x), expected_x)
    np.testing.assert_array_equal(s.read(x), expected_x)  # outside the block: the host copy


def test_a_view_write_names_what_cannot_be_written(graph, device):
    x = graph.variable(pd.float32, (4, 5), name="x", init=X)
    c = graph.constant(np.ones(5, np.float32), name="c")
    with pd.Sequence() as main:
        x += c
    with pd.Session(graph, main, device=device) as s:
        with pytest.raises(pd.SessionError, match=r"'x' shape=\(2, 5\).* more than once"):
            s.write(x[1].broadcast((2, 5)), np.zeros((2, 5)))
        with pytest.raises(pd.SessionError, match=r"holds elements of a constant"):
            s.write(pd.concat([x[0], c]), np.zeros(10))
        with pytest.raises(pd.SessionError, match=r"cannot write an array of shape \(4,\).*of shape \(5,\)"):
            s.write(x[0], np.zeros(4))
        np.testing.assert_array_equal(s.read(x), X)  # nothing was written


def test_a_replicated_graphs_view_writes_per_replica():
    device = pd.ipu_model(tiles=4, ipus=2)
    g = pd.Graph(device, replicas=2)
    x = g.variable(pd.float32, (4, 5), name="x", init=X)
    with pd.Sequence() as main:
        x += pd.cast(pd.replica_index(g), pd.float32)
    per_replica = np.arange(20, dtype=np.float32).reshape(2, 5, 2)
    with pd.Session(g, main, device=device) as s:
        s.write(x[1:3].transpose(), per_replica)
        expected = np.stack([X, X])
        expected[:, 1:3] = np.swapaxes(per_replica, 1, 2)
        np.testing.assert_array_equal(s.read(x), expected)
        s.run()
        np.testing.assert_array_equal(s.read(x), expected + np.array([0, 1], np.float32)[:, None, None])


def test_a_replicated_graphs_view_reads_per_replica():
    device = pd.ipu_model(tiles=4, ipus=2)
    g = pd.Graph(device, replicas=2)
    x = g.variable(pd.float32, (4, 5), name="x", init=X)
    with pd.Sequence() as main:
        x += pd.cast(pd.replica_index(g), pd.float32)  # the replicas' values differ
    with pd.Session(g, main, device=device) as s:
        s.run()
        whole = s.read(x)
        np.testing.assert_array_equal(whole, [X, X + 1])
        np.testing.assert_array_equal(s.read(x[1:3].transpose()), np.swapaxes(whole[:, 1:3], 1, 2))
    np.testing.assert_array_equal(s.read(x[0]), whole[:, 0])
