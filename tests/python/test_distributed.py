"""pd.distributed: instances from the launcher's environment, host collectives, sessions of
a slice of the replicas (as threads: no launcher), and an MPI tier under mpiexec -n 2 on the
loopback interface (skipped only when there is no mpiexec), also run under Open MPI's mpirun
where one is installed."""
import os
import pathlib
import runpy
import subprocess
import sys
import time

import numpy as np
import pytest

import mpi_launchers
import popdsl as pd
from popdsl import executable_cache

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
MPIEXEC, OPEN_MPI = mpi_launchers.MPICH, mpi_launchers.OPEN_MPI
mpich = pytest.mark.skipif(MPIEXEC is None, reason=mpi_launchers.MPICH_MISSING)
open_mpi = pytest.mark.skipif(OPEN_MPI is None, reason=mpi_launchers.OPEN_MPI_MISSING)
# How each launcher starts 2 instances of a script: the popdsl launcher over MPICH's mpiexec or
# Open MPI's mpirun, and each launcher by hand.
LAUNCHERS = {
    "popdsl": [sys.executable, "-m", "popdsl", "run", "--instances", "2"],
    "mpiexec": [MPIEXEC, "-n", "2", sys.executable],
    "popdsl over Open MPI": [sys.executable, "-m", "popdsl", "run", "--mpiexec", str(OPEN_MPI), "--instances", "2"],
    "Open MPI's mpirun": [OPEN_MPI, "-n", "2", sys.executable],
}
launchers = pytest.mark.parametrize("launcher", [
    pytest.param("popdsl", marks=mpich), pytest.param("mpiexec", marks=mpich),
    pytest.param("popdsl over Open MPI", marks=open_mpi), pytest.param("Open MPI's mpirun", marks=open_mpi)])


def launch(args, timeout=120):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               **mpi_launchers.OPEN_MPI_ENVIRONMENT)
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


@launchers
def test_two_mpi_instances_train_to_the_bits_of_one_process(tmp_path, launcher):
    single = tmp_path / "one.npz"
    both = tmp_path / "two.npz"
    assert launch([sys.executable, "examples/data_parallel_mlp.py", str(single)]).returncode == 0
    done = launch(LAUNCHERS[launcher] + ["examples/data_parallel_mlp.py", str(both)])
    assert done.returncode == 0, done.stdout + done.stderr
    if launcher == "popdsl":
        assert "[instance 0] Program complete" in done.stdout
    one, two = np.load(single), np.load(both)
    for name in one.files:
        assert one[name].tobytes() == two[name].tobytes(), name


@pytest.mark.slow
@pytest.mark.parametrize("launcher", [pytest.param("popdsl", marks=mpich)])
def test_the_lstm_example_as_two_mpi_instances_ends_with_the_bits_of_one_process(tmp_path, launcher):
    single, both = tmp_path / "one.npz", tmp_path / "two.npz"
    assert launch([sys.executable, "examples/data_parallel_lstm.py", str(single)]).returncode == 0
    done = launch(LAUNCHERS[launcher] + ["examples/data_parallel_lstm.py", str(both)])
    assert done.returncode == 0, done.stdout + done.stderr
    one, two = np.load(single), np.load(both)
    assert one.files == ["w0", "w1", "w2"]
    for name in one.files:  # [instances, local replicas, ...]: the same replicas in the same order
        assert two[name].shape[:2] == (2, 2) and one[name].tobytes() == two[name].tobytes(), name


COLLECTIVES = "tests/python/mpi_scripts/collectives.py"


@pytest.fixture(scope="module")
def collectives_of_one_process(tmp_path_factory):
    path = tmp_path_factory.mktemp("collectives") / "one.npz"
    assert launch([sys.executable, COLLECTIVES, str(path)]).returncode == 0
    return np.load(path)


@launchers
def test_every_collective_over_mpi_gives_the_bits_of_one_process(tmp_path, launcher, collectives_of_one_process):
    done = launch(LAUNCHERS[launcher] + [COLLECTIVES, str(tmp_path / "two.npz")])
    assert done.returncode == 0, done.stdout + done.stderr
    one, two = collectives_of_one_process, np.load(tmp_path / "two.npz")
    device = [name for name in one.files if not name.startswith("host")]
    # Per type: 3 groups x (3 or 4 all-reduce operators + reduce-scatter, all-gather, all-to-all)
    # + 8 broadcast roots + cross-replica copy + replica index.
    assert len(device) == 2 * (3 * 7 + 10) + (3 * 6 + 10) and two["int32 replica index"].ravel().tolist() == [0, 1, 2, 3]
    for name in device:  # test_instances.py checks the one-process results against numpy
        assert one[name].tobytes() == two[name].tobytes(), name
    # The host collectives of 2 instances, each with its own array.
    mine = np.stack([np.random.default_rng(k).uniform(-1, 1, 5).astype(np.float32) for k in range(2)])
    np.testing.assert_array_equal(two["host gather"], mine)
    np.testing.assert_array_equal(two["host sum"], mine[0] + mine[1])
    np.testing.assert_allclose(two["host mean"], mine.astype(np.float64).mean(0), rtol=1e-6)
    np.testing.assert_array_equal(two["host max"], np.maximum(mine[0], mine[1]))
    np.testing.assert_array_equal(two["host min"], np.minimum(mine[0], mine[1]))
    np.testing.assert_array_equal(two["host broadcast"], mine[1])


@pytest.mark.parametrize("launcher", [pytest.param("popdsl", marks=mpich),
                                      pytest.param("popdsl over Open MPI", marks=open_mpi)])
def test_the_launcher_passes_the_global_replica_count_to_every_instance(launcher):
    done = launch(LAUNCHERS[launcher] + ["--replicas", "4", "tests/python/mpi_scripts/launch_info.py"])
    assert done.returncode == 0, done.stdout + done.stderr
    for k in range(2):
        assert f"replicas 4: range({2 * k}, {2 * k + 2}) of instance {k} of 2" in done.stdout
    done = launch(LAUNCHERS[launcher] + ["--replicas", "3", "tests/python/mpi_scripts/launch_info.py"])
    assert done.returncode == 2 and "3 replicas cannot be shared equally by 2 instances" in done.stderr


LEFT_WHILE_DEVICE_WAITS = ("instance 0 waits in a device collective (Engine::run), but instance(s) 1 of 2 ended "
                           "before reaching it")


@launchers
@pytest.mark.parametrize("mode, message", [
    ("fail", "instance 1 failed on purpose"),
    ("exit", "[instance 1] exiting with status 1: MPI_Abort ends every instance"),
    ("exit-early", "[instance 1] exiting with status 1: MPI_Abort ends every instance"),
    # The launcher sees the bare SystemExit; without it, instance 0 learns that 1 has gone.
    ("raise-exit", {"popdsl": "[instance 1] exiting with status 3: MPI_Abort ends every instance",
                    "mpiexec": LEFT_WHILE_DEVICE_WAITS}),
    ("leave", LEFT_WHILE_DEVICE_WAITS),
    ("leave-host", "instance 0 waits in a host collective (pd.distributed), but instance(s) 1 of 2 ended"),
    ("diverge", "the instances took different paths"),
])
def test_a_failing_leaving_or_diverging_mpi_instance_ends_the_run_with_its_error(launcher, mode, message):
    if isinstance(message, dict):
        message = message["popdsl" if launcher.startswith("popdsl") else "mpiexec"]
    start = time.monotonic()  # instance 0 waits in a collective that instance 1 never reaches
    done = launch(LAUNCHERS[launcher] + ["tests/python/mpi_scripts/diverge_or_fail.py", mode], timeout=60)
    assert done.returncode != 0
    assert message in done.stdout + done.stderr
    assert time.monotonic() - start < 30


@launchers
def test_a_bare_system_exit_after_the_last_collective_ends_the_run_with_its_status(launcher):
    done = launch(LAUNCHERS[launcher] + ["tests/python/mpi_scripts/diverge_or_fail.py", "raise-exit-after"],
                  timeout=60)
    assert done.returncode == 3, done.stdout + done.stderr


@pytest.mark.parametrize("launcher", [pytest.param("popdsl", marks=mpich),
                                      pytest.param("popdsl over Open MPI", marks=open_mpi)])
@pytest.mark.parametrize("mode, message", [
    ("raise", "RuntimeError: instance 1 failed before importing popdsl"),
    ("exit", "instance 0 waits in a host collective (pd.distributed), but instance(s) 1 of 2 ended")])
def test_the_launcher_ends_the_run_when_a_script_ends_before_it_imports_popdsl(launcher, mode, message):
    # Under plain `mpiexec python script.py` this hangs (MPICH's hydra waits for the process
    # that never initialised MPI): the launcher's instances join the run before the script.
    start = time.monotonic()
    done = launch(LAUNCHERS[launcher] + ["tests/python/mpi_scripts/fail_before_import.py", mode], timeout=60)
    assert done.returncode != 0
    assert message in done.stderr
    assert time.monotonic() - start < 30


def test_a_session_of_two_instances_compiles_on_instance_0_only(monkeypatch):
    compiled_by = []
    compile_graph = executable_cache.poplar.compileGraph

    def recording(*args):
        compiled_by.append(dist.instance_index())
        return compile_graph(*args)

    monkeypatch.setattr(executable_cache.poplar, "compileGraph", recording)
    dist.run_in_threads(lambda: summed(2), 2)
    assert compiled_by == [0]


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
