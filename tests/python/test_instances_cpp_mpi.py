"""A pure C++ program (tests/cpp/instances_mpi.cpp, built against the SDK-shaped prefix, no
Python, no MPI at build or link time) started as `mpiexec -n 2 ./prog`: the emulator finds
the launcher's MPI at run time and the 2 ranks of 2 replicas give the bits of one process
of 4 replicas; a missing MPI, a missing launcher and a rank that exits non-zero end with
clear errors, never a hang, and a rank that ends early makes the others fail naming it. Needs
the MPI tier's mpiexec (MPICH's, from the test extra); runs under Open MPI's mpirun (its ABI)
too where one is installed."""
import ctypes.util
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

import cpp_build
import mpi_launchers

pytestmark = pytest.mark.needs_emulator("the emulator's engines find MPI themselves")

MPIEXEC, OPEN_MPI = mpi_launchers.MPICH, mpi_launchers.OPEN_MPI
if MPIEXEC is None and OPEN_MPI is None:
    pytest.skip(mpi_launchers.MPICH_MISSING, allow_module_level=True)
mpich = pytest.mark.skipif(MPIEXEC is None, reason=mpi_launchers.MPICH_MISSING)
launchers = pytest.mark.parametrize("launcher", [pytest.param("MPICH", marks=mpich), pytest.param(
    "Open MPI", marks=pytest.mark.skipif(OPEN_MPI is None, reason=mpi_launchers.OPEN_MPI_MISSING))])

REPLICAS, ROWS = 4, 4
LAUNCH_VARIABLES = ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "POPDSL_MPI_LIBRARY")


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    source = (cpp_build.ROOT / "tests" / "cpp" / "instances_mpi.cpp").read_text()
    return str(cpp_build.build_program(tmp_path_factory.mktemp("instances_mpi"), source, std="c++14", strict=True))


def run(command, out_dir=None, timeout=60, launcher="MPICH", **env):
    """Runs `command` (under `launcher` with 2 ranks when out_dir is given; MPICH writes each
    rank's stdout to its own file there) in a clean launch environment plus `env`; returns
    (completed process, stdout of every rank)."""
    environment = {k: v for k, v in os.environ.items() if k not in LAUNCH_VARIABLES}
    environment.update(env)
    if out_dir is not None and launcher == "MPICH":
        command = [MPIEXEC, "-n", "2", "-outfile-pattern", str(out_dir / "out.%r"), *command]
    elif out_dir is not None:  # Open MPI tags each line with its rank
        environment.update(mpi_launchers.OPEN_MPI_ENVIRONMENT)
        command = [OPEN_MPI, "-n", "2", "--tag-output", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment)
    if launcher == "Open MPI" and out_dir is not None:
        return done, mpi_launchers.open_mpi_untagged(done.stdout)
    ranks = sorted(out_dir.glob("out.*")) if out_dir is not None else []
    return done, done.stdout + "".join(p.read_text() for p in ranks)


def parse(text):
    """{(replica, name): [float32 bits as hex floats]} of the "replica R NAME: v ..." lines."""
    result = {}
    for line in text.splitlines():
        head, values = line.split(": ", 1)
        _, replica, name = head.split(" ", 2)
        result[int(replica), name] = values.split()
    return result


def as_floats(hex_values):
    return np.array([float.fromhex(v) for v in hex_values], np.float32)


@pytest.mark.parametrize("library", [pytest.param("found", marks=mpich), pytest.param("standard ABI", marks=mpich),
                                     pytest.param("Open MPI", marks=pytest.mark.skipif(
                                         OPEN_MPI is None, reason=mpi_launchers.OPEN_MPI_MISSING))])
def test_two_mpi_ranks_give_the_bits_of_one_process_of_four_replicas(program, tmp_path, library):
    env = {}
    if library == "standard ABI":  # the mpich wheel's libmpi_abi.so.1, named explicitly
        abi = pathlib.Path(MPIEXEC).resolve().parent.parent / "lib" / "libmpi_abi.so.1"
        if not abi.exists():
            pytest.skip("this MPI has no libmpi_abi.so.1")
        env["POPDSL_MPI_LIBRARY"] = str(abi)
    done, _ = run([program])
    assert done.returncode == 0, done.stdout + done.stderr
    one = parse(done.stdout)
    done, text = run([program], out_dir=tmp_path, launcher="Open MPI" if library == "Open MPI" else "MPICH", **env)
    assert done.returncode == 0, text + done.stderr
    two = parse(text)
    assert sorted(two) == sorted(one) and {r for r, _ in two} == set(range(REPLICAS))
    assert two == one  # the bits of one process, replica by replica

    # The one-process results are right (float64 numpy references).
    x32 = np.arange(REPLICAS * ROWS, dtype=np.float32).reshape(REPLICAS, ROWS) * np.float32(0.1) - np.float32(0.7)
    x = x32.astype(np.float64)
    for r in range(REPLICAS):
        np.testing.assert_array_equal(as_floats(two[r, "all gather"]), x32.ravel())
        np.testing.assert_allclose(as_floats(two[r, "sum"]), x.sum(0), atol=1e-6)
        np.testing.assert_array_equal(as_floats(two[r, "max pairs"]), x32[r // 2 * 2:r // 2 * 2 + 2].max(0))
        np.testing.assert_allclose(as_floats(two[r, "mean across"]), x[[r % 2, r % 2 + 2]].mean(0), atol=1e-6)
        np.testing.assert_allclose(as_floats(two[r, "reduce scatter"]), x.sum(0)[r:r + 1], atol=1e-6)
        np.testing.assert_array_equal(as_floats(two[r, "all to all"]), x32[:, r])
        np.testing.assert_array_equal(as_floats(two[r, "copied"]), x32[(r + 1) % REPLICAS])
        assert two[r, "index"] == [str(r)]


def test_a_slice_without_a_launcher_names_what_is_missing(program):
    done, text = run([program, "alone"])
    assert done.returncode == 1
    assert "no exchange between instances was set up for this engine: start the program's instances with an MPI " \
           "launcher (mpiexec -n I)" in text


@pytest.mark.skipif(bool(ctypes.util.find_library("mpi") or ctypes.util.find_library("mpi_abi")  # a str is code
                         or list((pathlib.Path(os.path.realpath(sys.executable)).parent.parent / "lib").glob("libmpi*"))),
                    reason="an MPI on the loader's path or beside this Python (the program's parent) would be found")
def test_a_launch_without_any_mpi_library_says_what_was_tried(program):
    done, text = run([program], PATH="/usr/bin:/bin", PMI_SIZE="2", PMI_RANK="0", LD_LIBRARY_PATH="")
    assert done.returncode == 1
    assert "this process is rank 0 of 2 (PMI_SIZE/PMI_RANK) and its engine runs a slice of the replicas" in text
    assert "no MPI library could be loaded" in text and "libmpi.so.12: " in text
    assert "Set POPDSL_MPI_LIBRARY to the libmpi of the mpiexec that started the program." in text


@launchers
def test_an_mpi_library_that_cannot_be_loaded_is_named_on_every_rank(program, tmp_path, launcher):
    start = time.monotonic()
    done, text = run([program], out_dir=tmp_path, launcher=launcher, POPDSL_MPI_LIBRARY="/nonexistent/libmpi.so.12")
    assert done.returncode != 0
    for rank in range(2):
        assert f"error on rank {rank}: poplar: POPDSL_MPI_LIBRARY=/nonexistent/libmpi.so.12 cannot be loaded" in text
    assert time.monotonic() - start < 30


@launchers
def test_a_rank_that_exits_non_zero_ends_every_rank_at_once(program, tmp_path, launcher):
    start = time.monotonic()  # rank 0 waits in a collective that rank 1 never reaches
    done, _ = run([program, "fail"], out_dir=tmp_path, timeout=60, launcher=launcher)
    assert done.returncode == 3
    assert "[instance 1] exiting with status 3: MPI_Abort ends every instance" in done.stderr
    assert time.monotonic() - start < 30


@launchers
def test_a_rank_that_ends_early_makes_the_waiting_rank_fail_naming_it(program, tmp_path, launcher):
    start = time.monotonic()  # rank 1 returns 0 while rank 0 waits in a collective
    done, text = run([program, "leave"], out_dir=tmp_path, timeout=60, launcher=launcher)
    assert done.returncode != 0
    assert ("error on rank 0: poplar: instance 0 waits in an exchange between instances, but instance(s) 1 of 2 "
            "ended before reaching it (the program returned or exited)") in text
    assert "[instance 1] ended while instance(s) 0 wait in an exchange: they stop with an error" in done.stderr
    assert time.monotonic() - start < 30
