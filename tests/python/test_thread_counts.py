"""The emulator's compute sets give the same bits whatever the thread count
(POPDSL_NUM_THREADS, the engine option emulator.numThreads), and the right values:
the workload's graphs (thread_count_workload.py) are big enough for every kernel kind
to run in blocks on the thread pool."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, program
import thread_count_workload as workload

pytestmark = pytest.mark.needs_emulator("the emulator's thread pool")
HERE = Path(__file__).resolve().parent


def run_with_threads(threads, tmp_path):
    out = tmp_path / f"threads{threads}.npz"
    env = dict(os.environ, POPDSL_NUM_THREADS=str(threads),
               PYTHONPATH=os.pathsep.join([str(Path(pd.__file__).resolve().parents[1]), str(HERE)]))
    subprocess.run([sys.executable, str(HERE / "thread_count_workload.py"), str(out)], env=env, check=True,
                   timeout=120)
    with np.load(out) as saved:
        return dict(saved)


def assert_same_bits(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == b[name].dtype and a[name].shape == b[name].shape, name
        assert a[name].tobytes() == b[name].tobytes(), f"{name} differs between thread counts"


def references(values):
    x, y = values["x"].astype(np.float64), values["y"].astype(np.float64)
    offsets = values["offsets"][:, 0]
    fused = np.tanh(x) * y + np.exp(-x * x)
    a, b = x[:workload.CELL_ROWS], y[:workload.CELL_ROWS]
    cell = b / (1 + np.exp(-a)) + np.tanh(a) / (1 + np.exp(-b))
    rows = workload.ROWS
    half = rows // 2
    multi = np.where((offsets < rows)[:, None], x[np.minimum(offsets, rows - 1)], 0)[:, None, :]
    exps = np.exp(x - x.max(1, keepdims=True))
    updated = x.copy()
    updated[offsets[1]:offsets[1] + half] = y[:half]
    return {"map": fused, "map_transposed": fused.T, "map_half": fused, "map_cell": cell, "sum_rows": x.sum(1),
            "sum_columns": x.sum(0), "max_columns": y.max(0), "cast_half": y,
            "slice": x[(offsets[0] + np.arange(half)) % rows], "multi_slice": multi,
            "in_place": x * x + y, "transposed": y.T, "updated": updated, "sorted_rows": np.sort(x, 1),
            "top_8": -np.sort(-y, 1)[:, :8], "arg_max": x.argmax(1),
            "softmax": exps / exps.sum(1, keepdims=True)}


def assert_matches_references(results, values):
    for name, want in references(values).items():
        got = results[name]
        assert got.shape == want.shape, name
        if name == "cast_half":
            np.testing.assert_array_equal(got, want.astype(np.float16), err_msg=name)
        elif name in ("slice", "multi_slice", "transposed", "updated", "sorted_rows", "top_8", "arg_max"):
            np.testing.assert_array_equal(got, want.astype(np.float32), err_msg=name)  # moved, not computed
        else:
            tolerance = 2e-2 if got.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(got.astype(np.float64), want, rtol=tolerance, atol=tolerance, err_msg=name)


def assert_random_draws_look_right(results):
    """The random draws (bits compared between thread counts): in range, with their moments."""
    uniform, normal = results["uniform"].astype(np.float64), results["normal"].astype(np.float64)
    assert uniform.min() >= -1 and uniform.max() < 1 and abs(uniform.mean()) < 0.01
    assert abs(normal.mean()) < 0.01 and abs(normal.std() - 1) < 0.01


def test_one_and_four_threads_give_the_same_bits_and_the_references(tmp_path):
    one, four = run_with_threads(1, tmp_path), run_with_threads(4, tmp_path)
    assert_same_bits(one, four)
    assert_matches_references(four, workload.inputs())
    assert_random_draws_look_right(four)


def test_the_engine_option_limits_threads_without_changing_results():
    values, pooled = workload.run()
    _, single = workload.run({"emulator.numThreads": "1"})
    _, automatic = workload.run({"emulator.numThreads": "auto"})
    assert_same_bits(pooled, single)
    assert_same_bits(pooled, automatic)
    assert_matches_references(single, values)


@pytest.mark.parametrize("value", ["-1", "many", ""])
def test_a_bad_thread_count_option_is_refused(graph, value):
    with pytest.raises(poplar.invalid_option,
                       match=f"Invalid value '{value}' for option 'emulator.numThreads': "
                             "expected an unsigned integer or auto"):
        poplar.Engine(graph, program.Sequence(), {"emulator.numThreads": value})


FORKED_CHILD = """
import os, sys
import thread_count_workload as workload
workload.run()  # the pool's workers start and wait for work
pid = os.fork()
if pid == 0:
    workload.run()  # in the child, which has none of them: on the calling thread
    sys.exit(0)     # a normal exit runs the libraries' static destructors
_, status = os.waitpid(pid, 0)
print("child exit status", os.waitstatus_to_exitcode(status))
"""


def test_a_forked_child_runs_and_exits_after_the_pool_started():
    env = dict(os.environ, POPDSL_NUM_THREADS="4",
               PYTHONPATH=os.pathsep.join([str(Path(pd.__file__).resolve().parents[1]), str(HERE)]))
    result = subprocess.run([sys.executable, "-c", FORKED_CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().endswith("child exit status 0")


# Thousands of back-to-back pool calls, each a compute set of one counting vertex per tile,
# on more threads than the machine has cores (so workers are preempted in mid-call and join
# calls late) and under engine limits of 3 and 1 threads: every vertex runs exactly once a
# run. Then a vertex that fails on one tile: the error names it, and the pool still works.
POOL_CALLS = """
import numpy as np, popdsl as pd
TILES, REPEATS = 64, 2000
CODELET = '''
#include <poplar/Vertex.hpp>
class Count : public poplar::Vertex {
public:
  poplar::InOut<unsigned> count;
  unsigned failAt;
  bool compute() { *count += 1; return *count != failAt; }
};
'''

def counts(options, fail_tile=None):
    graph = pd.Graph(pd.ipu_model(tiles=TILES))
    graph.add_codelets(CODELET)
    count = graph.variable(pd.uint32, (TILES,), name="count", mapping="linear")
    with pd.Sequence() as main:
        pd.zero(count)
        with pd.Repeat(REPEATS):
            with pd.compute_set("count") as cs:
                for tile in range(TILES):
                    cs.vertex("Count", tile=tile, count=count[tile], failAt=7 if tile == fail_tile else 0)
    with pd.Session(graph, main, options=options) as session:
        session.run()
        return session.read(count)

for threads in ("auto", "3", "1"):
    got = counts({"emulator.numThreads": threads})
    assert (got == 2000).all(), (threads, got)
try:
    counts({}, fail_tile=37)
    raise AssertionError("the failing vertex was not reported")
except pd.poplar.application_runtime_error as e:
    assert "on tile 37 returned false from compute()" in str(e), str(e)
assert (counts({}) == 2000).all()
print("ok")
"""


def test_every_vertex_runs_once_a_run_through_thousands_of_pool_calls(tmp_path):
    env = dict(os.environ, POPDSL_NUM_THREADS="4", POPDSL_CACHE_DIR=str(tmp_path),
               PYTHONPATH=str(Path(pd.__file__).resolve().parents[1]))
    result = subprocess.run([sys.executable, "-c", POOL_CALLS], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


@pytest.mark.parametrize("value", ["abc", "-1", "0", "100000", str(2 ** 70), "4x"])
def test_a_bad_thread_count_is_refused_by_name(value):
    """A run under a POPDSL_NUM_THREADS that is not a whole number from 1 to 1024 raises an
    error naming the variable (once ignored, or 100000 threads started), and the process lives on.
    The pool starts with the first engine: even a program too small to use it refuses."""
    script = ("import numpy as np, popdsl as pd\n"
              "dev = pd.ipu_model(tiles=2)\n"
              "g = pd.Graph(dev)\n"
              "x = g.variable(pd.float32, (4,), name='x', init=np.ones(4))\n"
              "with pd.Sequence() as main:\n"
              "    y = x + 1.0\n"
              "for attempt in range(2):\n"
              "    try:\n"
              "        with pd.Session(g, main, device=dev) as s:\n"
              "            s.run()\n"
              "        print('ran')\n"
              "    except Exception as e:\n"
              "        print('refused:', e)\n")
    env = dict(os.environ, POPDSL_NUM_THREADS=value, PYTHONPATH=str(Path(pd.__file__).resolve().parents[1]))
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("refused:") for line in lines), result.stdout
    assert f"POPDSL_NUM_THREADS='{value}'" in lines[0] and "whole number from 1 to 1024" in lines[0]
