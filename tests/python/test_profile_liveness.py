"""Liveness in pd.Profile's memory figures and the profile summary: a tile needs its
constants, its always-live variables and the peak of the others (Poplar overlaps
variables never live at once); host handles keep variables live, and the figures say what
a program that reads back only its weights would need. Expected bytes are counted by hand
from each program's structure."""
import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, program

pytestmark = pytest.mark.needs_emulator("the emulator's profile")

F32 = 4


def chain_session(layers, size=64):
    """x (with initial values) then `layers` times h = relu(h @ x) * 0.01, on one tile."""
    dev = pd.ipu_model(tiles=1)
    g = pd.Graph(dev)
    x = g.variable(pd.float32, (size, size), name="x", init=np.ones((size, size)))
    with pd.Sequence("main") as prog:
        h = x
        for _ in range(layers):
            h = pd.relu(h @ x) * 0.01
    with pd.Session(g, prog, device=dev) as s:
        s.run()
        return s.profile


def test_session_handles_keep_every_tensor_live_and_the_figures_say_what_they_cost():
    layers, size = 30, 64
    memory = chain_session(layers, size).memory
    matrix = size * size * F32
    # Three new tensors a layer (the product, the relu, the scaled), all kept by handles.
    assert memory.tile_bytes == [(1 + 3 * layers) * matrix]
    assert memory.live_tile_bytes() == memory.tile_bytes
    assert memory.kept_by_host_handles_bytes == [3 * layers * matrix]
    # Without them: x, plus a layer's input and output live at once.
    assert memory.live_tile_bytes(host_handles=False) == [matrix + 2 * matrix]
    assert memory.bytes_per_tile < memory.tile_bytes[0]
    assert not memory.fits() and memory.out_of_memory_tiles() == [0]
    assert memory.fits(host_handles=False)


def test_summary_reports_liveness_and_the_figure_without_handles():
    text = chain_session(4).summary_text
    matrix = 64 * 64 * F32
    lines = [line.split() for line in text.splitlines()]
    assert ["Host", "handles", "only:", f"{3 * 4 * matrix:,}", "B"] in lines
    block = text[text.index("Without host-handle-only variables"):].splitlines()
    assert block[1].split() == ["Total:", f"{3 * matrix:,}", "B"]
    assert block[2].split() == ["Tiles", "out", "of", "memory:", "0"]


def raw_engine(graph, prog):
    device = poplar.Device.createSimulatorDevice(graph.getTarget())
    engine = poplar.Engine(graph, prog, {})
    engine.load(device)
    engine.run(0)
    return engine


def test_raw_program_variables_overlap_when_never_live_at_once():
    """Steps: Copy(x, a), Copy(a, b), Copy(b, c), Copy(c, x), each 8 floats on tile 0: x is read
    first (always live); a, b, c each live over two steps, so at most two at once."""
    target = pd.ipu_model(tiles=2).getTarget()
    graph = poplar.Graph(target)
    x, a, b, c = (graph.addVariable(poplar.FLOAT, [8], name) for name in "xabc")
    for v in (x, a, b, c):
        graph.setTileMapping(v, 0)
    prog = program.Sequence([program.Copy(x, a), program.Copy(a, b), program.Copy(b, c), program.Copy(c, x)])
    profile = pd.Profile.from_engine(raw_engine(graph, prog))
    m = profile.memory
    assert m.tile_bytes == [4 * 32, 0]
    assert m.always_live_bytes == [32, 0] and m.peak_not_always_live_bytes == [64, 0]
    assert m.kept_by_host_handles_bytes == [0, 0]
    assert m.live_tile_bytes() == m.live_tile_bytes(host_handles=False) == [96, 0]
    assert ["Not-always-live:", "64", "B"] in [line.split() for line in profile.summary_text.splitlines()]
    assert "Host handles only" not in profile.summary_text


def test_a_host_read_handle_keeps_a_variable_live():
    target = pd.ipu_model(tiles=1).getTarget()
    graph = poplar.Graph(target)
    x, a, b = (graph.addVariable(poplar.FLOAT, [8], name) for name in "xab")
    for v in (x, a, b):
        graph.setTileMapping(v, 0)
    graph.createHostRead("a", a)
    prog = program.Sequence([program.Copy(x, a), program.Copy(a, b), program.Copy(b, x)])
    m = pd.Profile.from_engine(raw_engine(graph, prog)).memory
    assert m.always_live_bytes == [64] and m.kept_by_host_handles_bytes == [32]
    assert m.peak_not_always_live_bytes == [32]  # b
    assert m.peak_without_handles_bytes == [64]  # a and b, live together at step 1


def test_profile_json_round_trip_keeps_liveness_and_old_files_still_load():
    profile = chain_session(2)
    again = pd.Profile.from_json(profile.to_json())
    assert again.memory.live_tile_bytes(False) == profile.memory.live_tile_bytes(False)
    old = pd.Profile.from_json(profile.to_json())
    old.memory.always_live_bytes = []
    assert old.memory.live_tile_bytes() == old.memory.tile_bytes


def test_a_variable_live_across_a_loop_and_a_temporary_of_the_loop_body():
    """Steps: 0 Copy(x, u); 1 the Repeat; 2 Copy(u, t); 3 Copy(t, x), the body being 2-3, all on
    tile 0. u is written before the loop and read in it, so it lives 0-3 (the whole loop); t,
    the body's temporary, 2-3; both are live at step 2 first: the peak, 64 bytes."""
    target = pd.ipu_model(tiles=1).getTarget()
    graph = poplar.Graph(target)
    x, t, u = (graph.addVariable(poplar.FLOAT, [8], name) for name in "xtu")
    for v in (x, t, u):
        graph.setTileMapping(v, 0)
    body = program.Sequence([program.Copy(u, t), program.Copy(t, x)])
    profile = pd.Profile.from_engine(raw_engine(graph, program.Sequence([program.Copy(x, u),
                                                                         program.Repeat(2, body)])))
    m = profile.memory
    assert m.always_live_bytes == [32] and m.peak_not_always_live_bytes == [64]
    assert m.peak_step == [2] and m.peak_step_without_handles == [2]
    assert profile.steps[2].kind == "Copy"
    assert "peak at step 2 (Copy" in profile.summary_text


def test_the_memory_png_draws_what_the_tiles_need(tmp_path):
    pytest.importorskip("matplotlib")
    from popdsl import _plots
    figure = _plots.memory_figure(chain_session(30))
    labels = figure.axes[0].get_legend_handles_labels()[1]
    assert "needed without host-handle-only variables" in labels
    assert "needed with liveness" not in labels  # equal to the bars: every tensor has a handle
