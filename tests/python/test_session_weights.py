"""A session's weights outside its `with` block and in checkpoints: reading a weight after
the block returns its host copy, and `save(path, weights=True)` makes a file whose loaded
session continues from the saved weights. Checked against a float64 numpy SGD run."""
import struct

import numpy as np
import pytest

import popdsl as pd
from test_session_lifecycle import saved_with_manifest

FEATURES = np.linspace(-1, 1, 24).reshape(8, 3).astype(np.float32)
TARGETS = (FEATURES.astype(np.float64) @ [[0.5], [-1.0], [2.0]] + 0.25).astype(np.float32)
START = np.array([[0.1], [0.2], [-0.3]], np.float32)
LEARNING_RATE = 0.1


def sgd_graph(device):
    """One step of least-squares SGD on w per run of "train"."""
    g = pd.Graph(device)
    x = g.constant(FEATURES, name="features")
    y = g.constant(TARGETS, name="targets")
    w = g.variable(pd.float32, (3, 1), name="w", init=START)
    steps = g.variable(pd.int32, (1,), name="steps", init=0)
    with pd.Sequence("train") as train:
        error = x @ w - y
        w -= (x.T @ error) * (2 * LEARNING_RATE / len(FEATURES))
        steps += 1
    return g, train, w


def numpy_sgd(steps: int) -> np.ndarray:
    x, y, w = FEATURES.astype(np.float64), TARGETS.astype(np.float64), START.astype(np.float64)
    for _ in range(steps):
        w = w - LEARNING_RATE * 2 / len(x) * x.T @ (x @ w - y)
    return w


def test_a_weight_reads_as_its_host_copy_after_the_with_block(device):
    g, train, w = sgd_graph(device)
    session = pd.Session(g, train, device=device)
    with session:
        for _ in range(3):
            session.run()
    after = session.read(w)
    np.testing.assert_allclose(after, numpy_sgd(3), rtol=1e-5)
    np.testing.assert_array_equal(session.read("steps"), [3])
    after[:] = 0  # a copy: the session's host copy is untouched
    np.testing.assert_allclose(session.read(w), numpy_sgd(3), rtol=1e-5)
    with session:  # re-attaching starts from the host copies
        session.run()
    np.testing.assert_allclose(session.read(w), numpy_sgd(4), rtol=1e-5)


def test_a_tensor_that_is_not_a_weight_cannot_be_read_after_the_with_block(device):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (2,), name="x", init=1.0)
    with pd.Sequence() as main:
        doubled = x * 2
    session = pd.Session(g, main, device=device)
    with session:
        session.run()
        np.testing.assert_array_equal(session.read(doubled), [2, 2])
    np.testing.assert_array_equal(session.read(x), [1, 1])
    with pytest.raises(pd.SessionError, match=r"Session.read needs an attached session: .*outside it only weights, "
                                              r"variables made with init= or written, read as their host copies"):
        session.read(doubled)


@pytest.mark.parametrize("attached", [True, False], ids=["saved-inside-the-block", "saved-after-it"])
def test_a_checkpoint_with_weights_continues_training_where_it_stopped(device, tmp_path, attached):
    g, train, w = sgd_graph(device)
    session = pd.Session(g, train, device=device)
    with session:
        for _ in range(4):
            session.run()
        if attached:
            session.save(tmp_path / "checkpoint", weights=True)
    if not attached:
        session.save(tmp_path / "checkpoint", weights=True)
    loaded = pd.Session.load(tmp_path / "checkpoint", device=device)
    np.testing.assert_allclose(loaded.read("w"), numpy_sgd(4), rtol=1e-5)  # before attaching: the saved copy
    with loaded:
        np.testing.assert_allclose(loaded.read("w"), numpy_sgd(4), rtol=1e-5)
        for _ in range(3):
            loaded.run()
        np.testing.assert_allclose(loaded.read("w"), numpy_sgd(7), rtol=1e-5)
        np.testing.assert_array_equal(loaded.read("steps"), [7])


def test_a_checkpoint_without_weights_starts_from_the_initial_values(device, tmp_path):
    g, train, w = sgd_graph(device)
    session = pd.Session(g, train, device=device)
    with session:
        session.run()
        session.save(tmp_path / "plain")
    with pd.Session.load(tmp_path / "plain", device=device) as loaded:
        np.testing.assert_array_equal(loaded.read("w"), START)
        loaded.run()
        np.testing.assert_allclose(loaded.read("w"), numpy_sgd(1), rtol=1e-5)


@pytest.mark.parametrize("damage, problem", [
    (lambda path: saved_with_manifest(path, lambda m: m.update(weights=["99"])),
     r"'weights' is not a list of its variables' handles: \['99'\]"),
    (lambda path: saved_with_manifest(path, lambda m: m.update(weights=[t["handle"] for t in m["tensors"]
                                                                       if t["name"] == "features"])),
     "'weights' is not a list of its variables' handles"),  # a constant
    (lambda path: path.write_bytes(path.read_bytes()[:_weights_start(path) + 5]),
     r"is truncated: the saved values of tensor 'w' need 12 bytes, 5 follow"),
], ids=["unknown-handle", "a-constant", "truncated"])
def test_a_damaged_checkpoint_names_its_weights_problem(device, tmp_path, damage, problem):
    g, train, w = sgd_graph(device)
    with pd.Session(g, train, device=device) as session:
        session.save(tmp_path / "checkpoint", weights=True)
    damage(tmp_path / "checkpoint")
    with pytest.raises(pd.SessionError, match=problem):
        pd.Session.load(tmp_path / "checkpoint", device=device)


def _weights_start(path) -> int:
    """Where the saved weights begin: after the magic line, the length and the manifest."""
    data = path.read_bytes()
    start = len(b"POPDSL-SESSION\n") + 8
    return start + struct.unpack_from("<Q", data, start - 8)[0]
