"""pd.distributed: instances from the launcher's environment, host collectives, sessions of
a slice of the replicas (as threads: no launcher), and an MPI tier under mpiexec -n 2 on the
loopback interface (skipped only when there is no mpiexec)."""
import os
import pathlib
import runpy
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import popdsl as pd

pytestmark = pytest.mark.needs_emulator("instances as threads use the emulator's exchange")

ROOT = pathlib.Path(__file__).resolve().parents[2]
dist = pd.distributed


def test_one_instance_without_a_launcher():
    assert (dist.num_instances(), dist.instance_index()) == (1, 0)
    assert dist.replica_range(4) == range(0, 4)
    assert dist.engine_options(4) == {}
    np.testing.assert_array_equal(dist.all_gather(np.arange(3)), [[0, 1, 2]])
    assert "mpi4py" not in sys.modules or os.environ.get("PMI_SIZE")


def test_host_collectives_across_three_instances_match_numpy():
    data = np.random.default_rng(1).uniform(-1, 1, (3, 5)).astype(np.float32)

    def instance():
        k = dist.instance_index()
        return (dist.all_gather(data[k]), dist.all_reduce(data[k], "sum"), dist.all_reduce(data[k], "mean"),
                dist.all_reduce(data[k], "max"), dist.all_reduce(data[k], "min"),
                dist.broadcast(data[k] if k == 2 else None, root=2), dist.shard(np.arange(6)),
                dist.shared_seed(), dist.replica_range(6))

    results = dist.run_in_threads(instance, 3)
    for k, (gathered, total, mean, high, low, root, part, seed, mine) in enumerate(results):
        np.testing.assert_array_equal(gathered, data)
        np.testing.assert_allclose(total, data.astype(np.float64).sum(0), rtol=1e-6)
        np.testing.assert_allclose(mean, data.astype(np.float64).mean(0), rtol=1e-6)
        np.testing.assert_array_equal(high, data.max(0))
        np.testing.assert_array_equal(low, data.min(0))
        np.testing.assert_array_equal(root, data[2])
        np.testing.assert_array_equal(part, [2 * k, 2 * k + 1])
        assert seed == results[0][7]
        assert mine == range(2 * k, 2 * k + 2)
        assert total.tobytes() == results[0][1].tobytes()  # the same bits everywhere


def test_bad_input_is_named():
    def instance():
        return dist.replica_range(3)

    with pytest.raises(dist.InstancesFailed, match="3 replicas cannot be shared equally by 2 instances"):
        dist.run_in_threads(instance, 2)
    with pytest.raises(ValueError, match="op must be one of"):
        dist.all_reduce(np.ones(2), op="prod")
    with pytest.raises(dist.InstancesFailed, match=r"different shapes or dtypes \(instance 0: \(1,\)"):
        dist.run_in_threads(lambda: dist.all_gather(np.ones(dist.instance_index() + 1)), 2)


MLP = runpy.run_path(str(ROOT / "examples" / "data_parallel_mlp.py"))


def train_mlp():
    return MLP["train"](replicas=4, steps=4)


def test_sessions_as_two_instances_train_to_the_bits_of_one_process():
    curve, weights = train_mlp()
    halves = dist.run_in_threads(train_mlp, 2)
    for k, (curve_k, weights_k) in enumerate(halves):
        assert curve_k == curve
        for name, w in weights.items():
            assert weights_k[name].shape == (2, *w.shape[1:])
            assert weights_k[name].tobytes() == w[2 * k:2 * k + 2].tobytes(), name


LSTM = runpy.run_path(str(ROOT / "examples" / "data_parallel_lstm.py"))


def test_the_lstm_example_as_two_instances_ends_with_the_bits_of_one_process():
    curve, weights = LSTM["train"](replicas=4, iterations=6)
    halves = dist.run_in_threads(lambda: LSTM["train"](replicas=4, iterations=6), 2)
    for k, (curve_k, weights_k) in enumerate(halves):
        assert curve_k.tobytes() == curve.tobytes()
        for w, w_k in zip(weights, weights_k):
            assert w_k.tobytes() == w[2 * k:2 * k + 2].tobytes()


# --- MPI tier ---------------------------------------------------------------------------------
MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
mpi = pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec: pip install 'popdsl[test]' installs MPICH's")


def launch(args, timeout=120):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


@mpi
@pytest.mark.parametrize("launcher", ["popdsl", "mpiexec"])
def test_two_mpi_instances_train_to_the_bits_of_one_process(tmp_path, launcher):
    single = tmp_path / "one.npz"
    both = tmp_path / "two.npz"
    assert launch([sys.executable, "examples/data_parallel_mlp.py", str(single)]).returncode == 0
    command = ([sys.executable, "-m", "popdsl", "run", "--instances", "2"] if launcher == "popdsl"
               else [MPIEXEC, "-n", "2", sys.executable])
    done = launch(command + ["examples/data_parallel_mlp.py", str(both)])
    assert done.returncode == 0, done.stderr
    if launcher == "popdsl":
        assert "[instance 0] Program complete" in done.stdout
    one, two = np.load(single), np.load(both)
    for name in one.files:
        assert one[name].tobytes() == two[name].tobytes(), name


@mpi
@pytest.mark.parametrize("launcher", ["popdsl", "mpiexec"])
@pytest.mark.parametrize("mode, message", [
    ("fail", "instance 1 failed on purpose"),
    ("exit", "[instance 1] exiting with status 1: MPI_Abort ends every instance"),
    ("exit-early", "[instance 1] exiting with status 1: MPI_Abort ends every instance"),
    ("diverge", "the instances took different paths"),
])
def test_a_failing_or_diverging_mpi_instance_ends_the_run_with_its_error(launcher, mode, message):
    command = ([sys.executable, "-m", "popdsl", "run", "--instances", "2"] if launcher == "popdsl"
               else [MPIEXEC, "-n", "2", sys.executable])
    start = time.monotonic()  # instance 0 waits in a collective that instance 1 never reaches
    done = launch(command + ["tests/python/mpi_scripts/diverge_or_fail.py", mode], timeout=60)
    assert done.returncode != 0
    if launcher == "mpiexec" or not mode.startswith("exit"):  # python -m mpi4py aborts by itself
        assert message in done.stdout + done.stderr
    assert time.monotonic() - start < 30


def summed(replicas, options=None):
    """Runs an all-reduce of a [3] variable on `replicas` replicas; returns the profile summary
    as lists of words."""
    dev = pd.ipu_model(tiles=4, ipus=replicas)
    g = pd.Graph(dev, replicas=replicas)
    x = g.variable(pd.float32, (3,), name="x", init=np.ones(3, np.float32))
    with pd.Sequence() as step:
        pd.all_reduce(x, op="sum")
    with pd.Session(g, step, device=dev, options=options) as s:
        s.run()
        return [line.split() for line in s.profile.summary().splitlines()]


def test_each_instance_writes_its_profile_in_its_own_directory(tmp_path):
    dist.run_in_threads(lambda: summed(2, {"autoReport.all": "true", "autoReport.directory": str(tmp_path)}), 2)
    for k in range(2):
        (summary,) = (tmp_path / f"instance{k}").rglob("profile_summary.txt")
        lines = [line.split() for line in summary.read_text().splitlines()]
        assert ["Replication", "factor", "(global):", "2"] in lines
        assert ["Replicas", "run", "here:", str(k), "to", str(k)] in lines
        assert ["Instance:", str(k), "of", "2"] in lines


def test_the_profile_summary_of_one_process_names_its_replicas():
    lines = summed(4)
    assert ["Replicas", "run", "here:", "0", "to", "3"] in lines and ["Instance:", "0", "of", "1"] in lines
