"""Each thread builds in its own context (popdsl.build_context): two threads with blocks,
name scopes, IPU placements and current graphs open at the same time never put ops into
each other's, and each runs its graph while the other runs its own."""
import threading

import numpy as np

import popdsl as pd
from popdsl.build_context import context


def build_and_run(scale: float, results: dict, step: threading.Barrier) -> None:
    dev = pd.ipu_model(tiles=4, ipus=2)
    g = pd.Graph(dev)
    step.wait()  # both graphs exist: each thread's current graph is still its own
    assert pd.Graph.latest() is g
    rows = np.arange(12, dtype=np.float64).reshape(3, 4) * scale
    x = g.variable(pd.float32, (4,), name="x")
    w = g.constant(rows, name="w")
    with pd.Sequence() as main:
        with pd.name_scope(f"thread{scale:g}"), pd.ipu(int(scale) % 2), pd.cycle_count() as cycles:
            step.wait()  # the other thread's blocks, scope and placement are open now too
            x *= scale
            step.wait()
            x += scale
            y = pd.matmul(w, x.reshape(4, 1)) + pd.matmul(w, x.reshape(4, 1))  # one line, two matmuls
    step.wait()
    with pd.Session(g, main, device=dev) as s:
        assert dev.session is s
        step.wait()  # both devices attached: the two engines run at the same time
        s.write(x, np.ones(4, np.float32))
        s.run()
        results[scale] = (s.read(x), s.read(y), s.read(cycles), [(r.kind, r.ipu) for r in cycles.body.tape.records])
    assert dev.session is None


def test_two_threads_build_and_run_two_graphs_at_once():
    results: dict = {}
    step = threading.Barrier(2, timeout=60)
    errors = []

    def thread(scale):
        try:
            build_and_run(scale, results, step)
        except BaseException as e:  # noqa: BLE001  (reported by the test below)
            errors.append(e)
            step.abort()

    threads = [threading.Thread(target=thread, args=(scale,)) for scale in (2.0, 3.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(results) == [2.0, 3.0]
    for scale, (x, y, cycles, records) in results.items():
        expected_x = np.ones(4) * scale + scale
        np.testing.assert_array_equal(x, expected_x.astype(np.float32))
        rows = np.arange(12, dtype=np.float64).reshape(3, 4) * scale
        np.testing.assert_allclose(y, 2 * rows @ expected_x.reshape(4, 1), rtol=1e-6)
        assert cycles > 0
        # the thread's ops, and only they, were recorded in its block, placed on its IPU
        assert [kind for kind, _ in records].count("pd.matmul") == 2
        assert {ipu for _, ipu in records} == {int(scale) % 2}


def test_each_thread_starts_with_an_empty_context():
    g = pd.Graph(pd.ipu_model(tiles=4))
    seen = {}

    def look():
        seen.update(blocks=list(context.blocks), scopes=list(context.scopes), placement=list(context.placement),
                    graph=context.graph)

    with pd.Sequence(), pd.name_scope("outer"), pd.ipu(0):
        t = threading.Thread(target=look)
        t.start()
        t.join()
        assert len(context.blocks) == 1 and context.scopes == ["outer"] and context.placement == [0]
    assert seen == {"blocks": [], "scopes": [], "placement": [], "graph": None}
    assert context.graph is g
