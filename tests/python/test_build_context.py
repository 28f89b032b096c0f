"""Each thread builds in its own context (popdsl.build_context): two threads with blocks,
name scopes and IPU placements open at the same time never put ops into each other's."""
import threading

import numpy as np

import popdsl as pd


def build_and_run(scale: float, results: dict, both_open: threading.Barrier) -> None:
    dev = pd.ipu_model(tiles=4, ipus=2)
    g = pd.Graph(dev)
    x = g.variable(pd.float32, (4,), name="x")
    with pd.Sequence() as main:
        with pd.name_scope(f"thread{scale:g}"), pd.ipu(int(scale) % 2):
            both_open.wait()  # the other thread's blocks are open now too
            x *= scale
            both_open.wait()
            x += scale
    with pd.Session(g, main, device=dev) as s:
        s.write(x, np.ones(4, np.float32))
        s.run()
        results[scale] = s.read(x)


def test_two_threads_build_and_run_two_graphs_at_once():
    results: dict = {}
    both_open = threading.Barrier(2, timeout=30)
    threads = [threading.Thread(target=build_and_run, args=(scale, results, both_open)) for scale in (2.0, 3.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [2.0, 3.0]
    for scale, got in results.items():
        np.testing.assert_array_equal(got, np.full(4, 1 * scale + scale, np.float32))
