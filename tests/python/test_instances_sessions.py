"""Sessions per instance: Session.save/load, remote buffers and host callbacks of a 4-replica
graph run as 2 instances of 2 replicas (threads of one process over the in-memory exchange)
give each instance its replicas' bits of one process running all 4; float64 numpy checks
the one-process results."""
import numpy as np
import pytest

import popdsl as pd
from test_session_lifecycle import saved_with_manifest

pytestmark = pytest.mark.needs_emulator("instances as threads use the emulator's exchange")

REPLICAS = 4
VALUES = np.random.default_rng(3).uniform(-1, 1, (REPLICAS, 3)).astype(np.float32)
dist = pd.distributed


def graph():
    dev = pd.ipu_model(tiles=4, ipus=REPLICAS)
    return dev, pd.Graph(dev, replicas=REPLICAS)


def mine():
    """This instance's replicas (all 4 in one process)."""
    return dist.replica_range(REPLICAS)


def one_and_two_instances(fn):
    """fn() in one process, and each of 2 instances' fn() (threads)."""
    return fn(), dist.run_in_threads(fn, 2)


def assert_instances_hold_their_slices(one, halves):
    for k, half in enumerate(halves):
        for whole, part in zip(one, half):
            assert part.tobytes() == whole[2 * k:2 * k + 2].tobytes(), k


def test_each_instance_saves_and_loads_its_session(tmp_path):
    def save_run_load_run(directory):
        dev, g = graph()
        w = g.variable(pd.float32, (3,), name="w")
        with pd.Sequence("step") as step:  # mixes this replica's w with every replica's
            pd.copy(w * (pd.cast(pd.replica_index(g), pd.float32) + 1.0) + pd.all_reduce(w, op="sum"), w)
        path = directory / f"instance{dist.instance_index()}.popdsl"
        with pd.Session(g, {"step": step}, device=dev) as s:
            s.write(w, VALUES[mine().start:mine().stop])
            s.run("step")
            s.save(path, weights=True)
            first = s.read(w)
        loaded = pd.Session.load(path)
        assert loaded.replica_range == mine()
        with loaded:
            loaded.run("step")
            second = loaded.read("w")
        return first, second

    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one = save_run_load_run(tmp_path / "one")
    halves = dist.run_in_threads(lambda: save_run_load_run(tmp_path / "two"), 2)
    assert_instances_hold_their_slices(one, halves)
    scale = np.arange(1, REPLICAS + 1, dtype=np.float64)[:, None]
    first = VALUES * scale + VALUES.astype(np.float64).sum(0)
    np.testing.assert_allclose(one[0], first, rtol=1e-6)
    np.testing.assert_allclose(one[1], first * scale + first.sum(0), rtol=1e-6)


def test_weights_saved_by_one_process_are_refused_by_an_instance(tmp_path):
    dev, g = graph()
    w = g.variable(pd.float32, (3,), name="w", init=np.ones(3, np.float32))
    with pd.Sequence("step") as step:
        pd.copy(pd.all_reduce(w, op="sum"), w)
    with pd.Session(g, {"step": step}, device=dev) as s:
        s.save(tmp_path / "all.popdsl", weights=True)
    with pytest.raises(dist.InstancesFailed, match=r"instance 1: SessionError: .*holds the weights of replicas 0 "
                                                    r"to 3, but this instance runs replicas 2 to 3"):
        dist.run_in_threads(lambda: pd.Session.load(tmp_path / "all.popdsl"), 2)


def test_a_file_of_format_3_loads_with_every_replicas_weights(tmp_path):
    dev, g = graph()
    w = g.variable(pd.float32, (3,), name="w")
    with pd.Sequence("step") as step:
        pd.copy(pd.all_reduce(w, op="sum"), w)
    with pd.Session(g, {"step": step}, device=dev) as s:
        s.write(w, VALUES)
        s.save(tmp_path / "old.popdsl", weights=True)
    saved_with_manifest(tmp_path / "old.popdsl", lambda m: (m.update(version=3), m.pop("weight_replicas")))
    with pd.Session.load(tmp_path / "old.popdsl") as loaded:
        assert loaded.read("w").tobytes() == VALUES.tobytes()


def test_each_instance_reaches_its_replicas_remote_rows():
    def remote_rows():
        dev, g = graph()
        table = g.remote_buffer(pd.float32, (3,), rows=2, name="table")
        with pd.Sequence("mix") as mix:
            row = table.load(row=0)
            table.store(pd.all_reduce(row, op="max") + row, row=1)
        with pd.Session(g, {"mix": mix}, device=dev) as s:
            for k, r in enumerate(mine()):
                s.write_remote(table, 0, VALUES[r], replica=k)
            s.run("mix")
            return s.read_remote(table, 1), s.read_remote(table, 0)

    one, halves = one_and_two_instances(remote_rows)
    assert_instances_hold_their_slices(one, halves)
    np.testing.assert_allclose(one[0], VALUES.astype(np.float64).max(0) + VALUES, rtol=1e-6)
    np.testing.assert_array_equal(one[1], VALUES)


def test_each_instance_calls_back_for_its_replicas_only():
    def called_back():
        seen = []

        def double(values):  # once per replica of this instance, on its thread
            seen.append(values.copy())
            return values * 2

        dev, g = graph()
        x = g.variable(pd.float32, (3,), name="x")
        y = g.variable(pd.float32, (3,), name="y")
        with pd.Sequence("call") as call:
            pd.host_callback(double, x, outputs=y, name="double")
            pd.copy(pd.all_reduce(y, op="sum"), y)
        with pd.Session(g, {"call": call}, device=dev) as s:
            s.write(x, VALUES[mine().start:mine().stop])
            s.run("call")
            return s.read(y), np.stack(sorted(seen, key=lambda v: v.tobytes()))

    one, halves = one_and_two_instances(called_back)
    for k, (y, seen) in enumerate(halves):
        assert y.tobytes() == one[0][2 * k:2 * k + 2].tobytes()
        np.testing.assert_array_equal(seen, sorted(VALUES[2 * k:2 * k + 2], key=lambda v: v.tobytes()))
    np.testing.assert_allclose(one[0], np.broadcast_to(2 * VALUES.astype(np.float64).sum(0), (REPLICAS, 3)),
                               rtol=1e-6)
    assert len(one[1]) == REPLICAS
