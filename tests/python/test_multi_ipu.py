"""Several IPUs in one replica: `with pd.ipu(k):`, pd.ipu_copy, copies between IPUs as
IPU-Link traffic in the profile, per-IPU memory, and examples/pipeline_two_ipus.py."""
import math
import re
import pathlib
import runpy

import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, program

from mlp_reference import numpy_sgd

TILES = 4
EXAMPLE = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "pipeline_two_ipus.py"))


def ipus_holding(g, t):
    return sorted({tile // TILES for tile, intervals in enumerate(g.top.getTileMapping(t.raw)) if intervals})


def test_tensors_and_ops_go_to_the_ipu_of_their_block():
    g = pd.Graph(pd.ipu_model(tiles=TILES, ipus=3))
    a = g.variable(pd.float32, (1024,), name="a")  # 4 KiB: spread over every tile
    with pd.ipu(2):
        b = g.variable(pd.float32, (64,), name="b")
        c = g.constant(np.ones(64, np.float32), name="c")
        assert g.target.getNumTiles() == TILES
        with pd.Sequence():
            d = pd.exp(b) + c
        with pd.ipu(1):  # the innermost block wins
            e = g.variable(pd.float32, (8,), name="e", mapping=3)
    assert ipus_holding(g, a) == [0, 1, 2]
    assert ipus_holding(g, b) == ipus_holding(g, c) == ipus_holding(g, d) == [2]
    assert [tile for tile, iv in enumerate(g.top.getTileMapping(e.raw)) if iv] == [1 * TILES + 3]
    assert g.target.getNumTiles() == 3 * TILES


def test_an_ipu_the_graph_lacks_is_refused():
    g = pd.Graph(pd.ipu_model(tiles=TILES, ipus=2))
    with pd.ipu(2):
        with pytest.raises(pd.BuildError, match=r"pd.ipu\(2\): the graph has 2 IPU\(s\) per replica"):
            g.variable(pd.float32, (4,))
    with pytest.raises(pd.BuildError, match="pd.ipu: the IPU index must be an int"):
        with pd.ipu(-1):
            pass
    x = g.variable(pd.float32, (4,))
    with pd.Sequence(), pytest.raises(pd.BuildError, match=r"pd.ipu_copy: ipu .* must be an int in \[0, 1\]"):
        pd.ipu_copy(x, 2)


needs_profiles = pytest.mark.needs_emulator("profile data")


def one_copy_profile(src_tile, dst_tile, elements=1000):
    """The profile of one Copy of `elements` floats between two tiles (2 IPUs of TILES)."""
    dev = pd.ipu_model(tiles=TILES, ipus=2)
    g = pd.Graph(dev)
    src = g.variable(pd.float32, (elements,), name="src", mapping=src_tile)
    dst = g.variable(pd.float32, (elements,), name="dst", mapping=dst_tile)
    with pd.Sequence("main") as main:
        pd.copy(src, dst, name="the copy")
    with pd.Session(g, {"main": main}, device=dev) as s:
        s.run("main")
        profile = s.profile
    [step] = [st for st in profile.steps if st.kind == "Copy"]
    return step, profile


@needs_profiles
def test_a_copy_between_ipus_is_ipu_link_traffic():
    # 4000 bytes from IPU 0 to IPU 1 cross the links at 64e9 B/s (docs/emulator.rst's cost model), and
    # nothing crosses the on-chip exchange.
    step, profile = one_copy_profile(0, TILES)
    clock = profile.target.clock_hz
    assert step.ipu_link_bytes == step.exchange_bytes == 4000
    assert step.exchange_cycles == math.ceil(4000 / (64e9 / clock))
    assert step.compute_cycles == 0
    assert profile.ipu_link_bytes == 4000
    assert "IPU-Link traffic" in profile.summary() and "4,000 B" in profile.summary()
    # On one IPU the same copy crosses the exchange at 4 bytes per cycle instead.
    same_ipu, _ = one_copy_profile(0, 1)
    assert (same_ipu.ipu_link_bytes, same_ipu.exchange_bytes, same_ipu.exchange_cycles) == (0, 4000, 1000)


@needs_profiles
def test_memory_is_reported_per_ipu():
    _, profile = one_copy_profile(1, TILES + 2, elements=300)
    assert profile.memory.by_ipu() == [1200, 1200]
    summary = profile.summary()
    assert "By IPU (Excluding Gaps):" in summary
    assert re.search(r"IPU 0 +1,200 B", summary) and re.search(r"IPU 1 +1,200 B", summary)


@needs_profiles
def test_the_memory_plot_marks_each_ipu(tmp_path):
    pytest.importorskip("matplotlib")
    from popdsl import _plots
    _, profile = one_copy_profile(1, TILES + 2, elements=300)
    texts = [t.get_text() for t in _plots.memory_figure(profile).axes[0].texts]
    assert texts == ["IPU 0: 1.2 kB", "IPU 1: 1.2 kB"]
    profile.plot_memory(tmp_path / "memory.png")
    assert (tmp_path / "memory.png").stat().st_size > 0


def test_ipu_copy_moves_values_and_gradients():
    dev = pd.ipu_model(tiles=TILES, ipus=2)
    g = pd.Graph(dev)
    rng = np.random.default_rng(3)
    x0, w0 = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    with pd.ipu(0):
        x = g.variable(pd.float32, x0.shape, name="x", init=x0)
    with pd.ipu(1):
        w = g.variable(pd.float32, w0.shape, name="w", init=w0)
    with pd.Sequence("main") as main:
        moved = pd.ipu_copy(pd.tanh(x), 1)
        with pd.ipu(1):
            loss = pd.reduce_sum(pd.square(moved @ w).reshape(-1), axis=0)
        dx, dw = pd.grad(loss, [x, w])
    assert ipus_holding(g, moved) == [1] and ipus_holding(g, dx) == [0]
    with pd.Session(g, {"main": main}, device=dev) as s:
        s.run("main")
        got_moved, got_dx, got_dw = s.read(moved), s.read(dx), s.read(dw)
    h = np.tanh(x0.astype(np.float64))
    y = h @ w0
    np.testing.assert_allclose(got_moved, h, rtol=1e-6)
    np.testing.assert_allclose(got_dw, h.T @ (2 * y), rtol=1e-5)
    np.testing.assert_allclose(got_dx, (2 * y) @ w0.T * (1 - h ** 2), rtol=1e-5, atol=1e-6)


@needs_profiles
def test_ipu_copy_and_its_gradient_cross_the_links():
    dev = pd.ipu_model(tiles=TILES, ipus=2)
    g = pd.Graph(dev)
    with pd.ipu(0):
        x = g.variable(pd.float32, (5, 3), name="x")
    with pd.ipu(1):
        w = g.variable(pd.float32, (3, 4), name="w")
    with pd.Sequence("main") as main:
        moved = pd.ipu_copy(pd.tanh(x), 1)
        with pd.ipu(1):
            loss = pd.reduce_sum(pd.square(moved @ w).reshape(-1), axis=0)
        pd.grad(loss, [x, w])
    with pd.Session(g, {"main": main}, device=dev) as s:
        s.run("main")
        # The activations go to IPU 1, their gradient (built on IPU 1, with the matmul's) comes back.
        assert s.profile.ipu_link_bytes == 2 * 15 * 4


@pytest.mark.needs_emulator("a replicated graph, which the SDK's IPU Model does not run")
def test_replicas_of_two_ipus_each():
    dev = pd.ipu_model(tiles=TILES, ipus=4)
    g = pd.Graph(dev, replicas=2)
    with pd.ipu(1):
        v = g.variable(pd.float32, (8,), name="v")
    with pd.Sequence("main") as main:
        moved = pd.ipu_copy(v, 0)
        total = pd.all_reduce(moved * 1.0)
    assert ipus_holding(g, v) == [1] and ipus_holding(g, moved) == [0]
    with pd.Session(g, {"main": main}, device=dev) as s:
        s.write(v, np.stack([np.arange(8), 10 * np.arange(8)]).astype(np.float32))
        s.run("main")
        np.testing.assert_array_equal(s.read(total), np.tile(11.0 * np.arange(8), (2, 1)))


def test_the_raw_graph_of_a_block_is_its_virtual_graph():
    g = pd.Graph(pd.ipu_model(tiles=TILES, ipus=2))
    with pd.ipu(1):
        assert g.raw.convertVirtualTileToPhysicalTile(0) == TILES
        assert g.raw is g.raw  # one virtual graph per IPU
    assert g.raw is g.top
    t = g.top.addVariable(poplar.FLOAT, [2], "t")
    assert isinstance(program.Copy(t, t), program.Program)


def test_pipeline_example_trains_like_float64_numpy():
    steps, lr = 8, 0.5
    curve, weights, _ = EXAMPLE["train"](steps=steps, lr=lr)
    x, labels = EXAMPLE["synthetic_data"]()
    expected_losses, expected = numpy_sgd(x, labels, EXAMPLE["initial_weights"](), steps, lr)
    np.testing.assert_allclose(curve, expected_losses, rtol=1e-4, atol=1e-6)
    for name, value in expected.items():
        np.testing.assert_allclose(weights[name], value, rtol=1e-4, atol=1e-5)


@needs_profiles
def test_pipeline_example_moves_activations_and_keeps_each_stage_on_its_ipu():
    steps = 3
    _, weights, session = EXAMPLE["train"](steps=steps)
    profile = session.profile
    # Each step moves the hidden activations to IPU 1 and their gradient back.
    hidden = EXAMPLE["POINTS"] * value_count(weights["b1"])
    assert profile.ipu_link_bytes == steps * 2 * hidden * 4
    ipu0, ipu1 = profile.memory.by_ipu()
    assert ipu0 >= (weights["w1"].size + weights["b1"].size) * 4
    assert ipu1 >= (weights["w2"].size + weights["b2"].size) * 4


def value_count(array):
    return int(np.asarray(array).size)


def test_optimizer_state_and_update_live_on_the_weights_ipu():
    """A stage's Adam moments and float32 master copy go where its weight is, so a pipeline's
    optimizer step does not cross the IPU-Links; a weight spread over both IPUs keeps its
    state spread. The update still matches float64 Adam."""
    dev = pd.ipu_model(tiles=4, ipus=2)
    g = pd.Graph(dev)
    with pd.ipu(1):
        w = g.variable(pd.float16, (8,), name="w", init=np.ones(8))
    spread = g.variable(pd.float32, (4096,), name="spread", init=np.ones(4096))
    opt = pd.optim.Adam(lr=0.1)
    with pd.Sequence("step") as step:
        opt.step([w, spread], [w * 0.5, spread * 0.5])

    def tiles_of(t):
        return {tile for tile, intervals in enumerate(g.top.getTileMapping(t.raw)) if intervals}

    for name, t in opt.state_tensors().items():
        if name.startswith("w/"):
            assert tiles_of(t) <= {4, 5, 6, 7}, name
        elif name.startswith("spread/"):
            assert tiles_of(t) == tiles_of(spread) == set(range(8)), name
    with pd.Session(g, step, device=dev) as s:
        s.run()
        # Adam's first step moves each element by lr (the gradient's sign): 1 - 0.1.
        np.testing.assert_allclose(s.read(w), np.full(8, 0.9), rtol=1e-3)
        np.testing.assert_allclose(s.read(spread), np.full(4096, 0.9), rtol=1e-6)
