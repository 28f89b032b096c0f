"""Profiles: exact execution counts, estimated cycles that follow the documented cost
model (docs/emulator.rst), memory per tile from the mapping, reports, counters, CLI."""
import json
import math
import os
import sys

import numpy as np
import pytest

import popdsl as pd
import popdsl.profile
from popdsl import __main__ as cli
from popdsl import poplar, program

# The cost model's constants, as docs/emulator.rst documents them.
SYNC, VERTEX, TRANSCENDENTAL = 100, 50, 10
WORKERS, EXCHANGE_BYTES_PER_CYCLE, FLOAT_AMP_FLOPS = 6, 4, 32
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def elementwise_cycles(elements, per_vector, cycles_per_vector=1):
    """Compute cycles of an element-wise kernel on its busiest tile."""
    return VERTEX + math.ceil(math.ceil(elements / per_vector) / WORKERS) * WORKERS * cycles_per_vector


def steps_named(profile, prefix, kind=None):
    return [s for s in profile.steps if s.name.startswith(prefix) and (kind is None or s.kind == kind)]


def only_step(profile, prefix, kind=None):
    found = steps_named(profile, prefix, kind)
    assert len(found) == 1, [(s.kind, s.name) for s in profile.steps]
    return found[0]


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_execution_counts_of_nested_control_flow(device):
    g = pd.Graph(device)
    k, then, other, w = (g.variable(pd.int32, (1,), name=n) for n in ("k", "then", "other", "w"))
    s, cases = g.variable(pd.int32, (1,), name="s"), g.variable(pd.int32, (3,), name="cases")
    bump = g.function(lambda: k.__iadd__(0), name="noop_call")
    with pd.Sequence() as main:
        for t in (k, then, other, w, s, cases):
            pd.zero(t)
        with pd.Repeat(3, name="outer"):
            with pd.Repeat(4, name="inner"):
                with pd.name_scope("body"):
                    k += 1
                with pd.If(k % 3 == 0, name="if"):
                    with pd.name_scope("then"):
                        then += 1
                with pd.Else():
                    with pd.name_scope("else"):
                        other += 1
            with pd.Switch(s, name="switch") as sw:
                for value in (0, 1):
                    with sw.case(value), pd.name_scope(f"case{value}"):
                        cases[value:value + 1] += 1
                with sw.default(), pd.name_scope("default"):
                    cases[2:3] += 1
            s += 1
        with pd.While(lambda: w < 5, name="while"):
            with pd.name_scope("while_body"):
                w += 1
        bump()
        bump()
    with pd.Session(g, main, device=device) as sess:
        sess.run()
        assert [int(sess.read(t)[0]) for t in (k, then, other, w)] == [12, 4, 8, 5]
        profile = sess.profile
    assert profile.runs == 1
    counts = {(kind, name): only_step(profile, name, kind).executions for kind, name in [
        ("Repeat", "outer"), ("Repeat", "inner"), ("If", "if"), ("Switch", "switch"),
        ("RepeatWhileTrue", "while")]}
    counts[("Call", "noop_call")] = sum(st.executions for st in steps_named(profile, "noop_call", "Call"))
    assert counts == {("Repeat", "outer"): 1, ("Repeat", "inner"): 3, ("If", "if"): 12, ("Switch", "switch"): 3,
                      ("RepeatWhileTrue", "while"): 6, ("Call", "noop_call"): 2}  # While: predicate evaluations
    body = {scope: sum(st.executions for st in steps_named(profile, scope + "/", "Execute"))
            for scope in ("body", "then", "else", "case0", "case1", "default", "while_body")}
    assert body == {"body": 12, "then": 4, "else": 8, "case0": 1, "case1": 1, "default": 1, "while_body": 5}
    # control decisions cost a sync and a branch each time; a Repeat costs a branch per iteration
    assert only_step(profile, "if", "If").cycles_per_execution == SYNC + 10
    assert only_step(profile, "inner", "Repeat").cycles_per_execution == 4 * 10


def run_profile(device, build, options=None):
    """Builds a program with build(graph) inside a Sequence, runs it once, returns the profile."""
    g = pd.Graph(device)
    with pd.Sequence() as main:
        build(g)
    with pd.Session(g, main, device=device, options=options) as s:
        s.run()
        return s.profile


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
@pytest.mark.parametrize("dtype, per_vector", [(pd.float32, 2), (pd.float16, 4)])
def test_compute_cycles_follow_elements_per_tile(device, dtype, per_vector):
    def inc(n, mapping):
        def build(g):
            x = g.variable(dtype, (n,), name="x", mapping=mapping)
            with pd.name_scope("op"):
                x += 1.0
        return only_step(run_profile(device, build), "op/", "Execute")

    one_tile, twice, spread = inc(1200, 0), inc(2400, 0), inc(2400, pd.graph.LINEAR)
    assert one_tile.compute_cycles == elementwise_cycles(1200, per_vector)
    assert twice.compute_cycles - VERTEX == 2 * (one_tile.compute_cycles - VERTEX)  # 2x the work per tile
    assert spread.compute_cycles == elementwise_cycles(600, per_vector)  # 4 tiles share 2400 elements
    assert one_tile.sync_cycles == SYNC and one_tile.exchange_cycles == 0


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
@pytest.mark.parametrize("dtype, elements, cycles", [
    # 14 floats are 7 vectors of 2: two rounds of the 6 workers' turns, 12 cycles, + 50
    (pd.float32, 14, 62),
    # 14 halves are 4 vectors of 4: one round, 6 cycles, + 50
    (pd.float16, 14, 56),
    # one element still waits for a whole round
    (pd.float32, 1, 56),
])
def test_a_kernel_pays_for_whole_rounds_of_the_workers_turns(device, dtype, elements, cycles):
    def build(g):
        x = g.variable(dtype, (elements,), name="x", mapping=0)
        with pd.name_scope("op"):
            x += 1.0
    assert only_step(run_profile(device, build), "op/", "Execute").compute_cycles == cycles


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_transcendental_ops_cost_more_per_vector(device):
    def build(g):
        x = g.variable(pd.float32, (600,), name="x", mapping=0)
        with pd.name_scope("add"):
            pd.map(lambda a: a + 1.0, x)
        with pd.name_scope("exp"):
            pd.exp(x)
    profile = run_profile(device, build)
    assert only_step(profile, "add/").compute_cycles == elementwise_cycles(600, 2)
    assert only_step(profile, "exp/").compute_cycles == elementwise_cycles(600, 2, TRANSCENDENTAL)


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_copy_between_tiles_is_exchange(device):
    def build(g):
        a = g.variable(pd.float32, (1000,), name="a", mapping=0)
        b = g.variable(pd.float32, (1000,), name="b", mapping=1)
        c = g.variable(pd.float32, (1000,), name="c", mapping=0)
        pd.copy(a, b, name="across")
        pd.copy(a, c, name="on_tile")
    profile = run_profile(device, build)
    across, local = only_step(profile, "across"), only_step(profile, "on_tile")
    assert (across.exchange_bytes, across.exchange_cycles) == (4000, 4000 // EXCHANGE_BYTES_PER_CYCLE)
    assert (local.exchange_bytes, local.exchange_cycles, local.compute_cycles) == (0, 0, 4000 // 8)


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_matmul_cycles_are_flops_per_tile_over_amp_rate(device):
    m, k, n = 8, 64, 16
    found = {}

    def build(g):
        a = g.variable(pd.float32, (m, k), name="a")
        b = g.variable(pd.float32, (k, n), name="b")
        found["y"] = pd.matmul(a, b, name="mm")
        found["graph"] = g
    profile = run_profile(device, build)
    mapping = found["graph"].raw.getTileMapping(found["y"].raw)
    busiest = max(sum(i.size() for i in tile) for tile in mapping)
    assert only_step(profile, "mm", "Execute").compute_cycles == VERTEX + math.ceil(2 * k * busiest / FLOAT_AMP_FLOPS)


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_memory_per_tile_is_what_the_mapping_implies(device):
    g = pd.Graph(device)
    g.variable(pd.float32, (10,), name="a", mapping=1)
    g.variable(pd.int32, (6,), name="b", mapping=[[(0, 2)], [], [(2, 6)]])
    g.constant(np.ones(8, np.float16), name="c", mapping=3)
    g.variable(pd.float32, (12,), name="d", mapping=[[(3 * t, 3 * t + 3)] for t in range(4)])
    with pd.Sequence() as main:
        pass
    with pd.Session(g, main, device=device) as s:
        memory, summary = s.profile.memory, s.profile.summary()
    assert memory.variable_bytes == [2 * 4 + 3 * 4, 10 * 4 + 3 * 4, 4 * 4 + 3 * 4, 3 * 4]
    assert memory.constant_bytes == [0, 0, 0, 8 * 2]
    assert memory.tile_bytes == [20, 52, 28, 28] and memory.total_bytes == 112 + 16
    assert memory.largest_tiles(2) == [(1, 52), (2, 28)]
    assert memory.bytes_per_tile == 638976 and memory.out_of_memory_tiles() == []
    lines = [" ".join(line.split()) for line in summary.splitlines()]
    for expected in ("Including Gaps: 128 B", "Variables: 112 B", "Constants: 16 B", "Always-live: 128 B",
                     "Maximum (Excluding Gaps): 52 (0.1 K) on tile 1", "0 tile(s) out of memory",
                     "Tile # 1 52 B (variables 52 B, constants 0 B, 0.0% of the tile)",
                     "Tile # 3 28 B (variables 12 B, constants 16 B, 0.0% of the tile)"):
        assert expected in lines, (expected, summary)


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_out_of_memory_tiles_are_those_over_the_limit(device):
    tile_bytes = 638976
    g = pd.Graph(device)
    g.variable(pd.uint8, (tile_bytes,), name="full", mapping=0)  # exactly the limit: fits
    g.variable(pd.uint8, (tile_bytes + 1,), name="over", mapping=1)
    with pd.Sequence() as main:
        pass
    with pd.Session(g, main, device=device) as s:
        memory, summary = s.profile.memory, s.profile.summary()
    assert memory.total_bytes == 2 * tile_bytes + 1 and memory.out_of_memory_tiles() == [1]
    assert "1 tile(s) out of memory" in [" ".join(line.split()) for line in summary.splitlines()]


@pytest.fixture
def small_profile(device):
    def build(g):
        x = g.variable(pd.float32, (64,), name="x")
        with pd.Repeat(3):
            x += 1.0
            pd.exp(x)
    return run_profile(device, build, options={"debug.instrument": "true"})


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_summary_has_poplars_sections_and_labels_cycles_estimated(small_profile):
    text = small_profile.summary()
    for section in ("Target:", "Graph:", "Memory Usage:", "Execution:", "By Tile (Excluding Gaps):",
                    "Total cycles (estimated):", "Costliest steps (cycles estimated):"):
        assert section in text
    labels = [line.split(":")[0] for line in text.splitlines()
              if "cycles" in line.lower() and ":" in line and not line.strip().startswith("#")]  # not table headers
    assert labels and all("estimated" in label for label in labels), labels
    assert f"{small_profile.total_cycles:,}" in text
    assert "not measured" not in text  # debug.instrument times the steps on the host


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_host_time_only_with_instrumentation(small_profile, device):
    assert small_profile.host_timed and all(s.host_seconds > 0 for s in small_profile.steps if s.executions)
    plain = run_profile(device, lambda g: pd.zero(g.variable(pd.float32, (4,))))
    assert not plain.host_timed and all(s.host_seconds == 0 for s in plain.steps)


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_json_round_trip_and_breakdowns(small_profile):
    again = pd.Profile.from_json(small_profile.to_json())
    assert again == small_profile
    lines = again.by_line()
    assert lines[0].total_cycles >= lines[-1].total_cycles
    assert sum(line.total_cycles for line in lines) == again.total_cycles == sum(again.by_name().values())
    assert any("pd.exp(x)" in line.label for line in lines)


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_plots_write_pngs(small_profile, tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.image
    for plot, name in ((small_profile.plot_memory, "m.png"), (small_profile.plot_execution, "e.png")):
        plot(tmp_path / name)
        assert (tmp_path / name).read_bytes()[:8] == PNG_MAGIC
        height, width = matplotlib.image.imread(tmp_path / name).shape[:2]
        assert width > 600 and height > 300


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_write_report_writes_the_summary_the_json_and_the_plots(small_profile, tmp_path):
    directory = tmp_path / "new" / "report"  # made when missing
    paths = small_profile.write_report(directory)
    names = [os.path.basename(p) for p in paths]
    assert names[:2] == ["profile_summary.txt", "profile.json"] and all(os.path.isfile(p) for p in paths)
    assert (directory / "profile_summary.txt").read_text() == small_profile.summary()
    assert pd.Profile.from_json((directory / "profile.json").read_text()) == small_profile
    try:
        import matplotlib  # noqa: F401
        assert names[2:] == ["memory.png", "execution.png"]
        assert all((directory / n).read_bytes()[:8] == PNG_MAGIC for n in names[2:])
    except ImportError:
        assert names[2:] == []


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_write_plots_without_matplotlib_writes_nothing(small_profile, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    assert small_profile.write_plots(tmp_path / "plots") == []
    assert os.listdir(tmp_path / "plots") == []


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_auto_report_from_environment(device, tmp_path, monkeypatch):
    monkeypatch.setattr(popdsl.profile, "report_directories", [])
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", f'{{"autoReport.all": "true", "autoReport.directory": "{tmp_path}"}}')
    run_profile(device, lambda g: pd.zero(g.variable(pd.float32, (4,))))
    run_profile(device, lambda g: pd.zero(g.variable(pd.float32, (4,))))  # a second session: a subdirectory
    expected = {"profile_summary.txt", "profile.json"}
    try:
        import matplotlib  # noqa: F401
        expected |= {"memory.png", "execution.png"}
    except ImportError:
        pass
    assert expected <= set(os.listdir(tmp_path)) and expected <= set(os.listdir(tmp_path / "session2"))
    assert "Memory Usage:" in (tmp_path / "profile_summary.txt").read_text()


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_no_report_files_without_auto_report(device, tmp_path, monkeypatch):
    monkeypatch.delenv("POPLAR_ENGINE_OPTIONS", raising=False)
    monkeypatch.chdir(tmp_path)
    run_profile(device, lambda g: pd.zero(g.variable(pd.float32, (4,))))
    assert os.listdir(tmp_path) == []


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_cycle_count_is_the_estimated_cycles_of_its_block(device):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (120,), name="x", mapping=0)
    with pd.Sequence() as main:
        with pd.cycle_count(tile=2) as counted:
            with pd.name_scope("timed"), pd.Repeat(2):
                x += 1.0
                pd.map_(lambda a: pd.exp(a), x)
        first = pd.cycle_stamp()
        with pd.name_scope("between"):
            x *= 2.0
        second = pd.cycle_stamp()
    # By the cost model's table (docs/emulator.rst): 120 floats on one tile are 60 vectors, 10 per worker.
    add = SYNC + VERTEX + 10 * WORKERS * 1
    exp = SYNC + VERTEX + 10 * WORKERS * TRANSCENDENTAL
    timed = 2 * 10 + 2 * (add + exp)  # the Repeat's branches and two iterations
    with pd.Session(g, main, device=device) as s:
        s.run()
        assert s.read(counted) == timed + SYNC == 2040  # plus the sync that closes the window
        assert s.read(second) - s.read(first) == add + SYNC == 310
        assert sum(st.total_cycles for st in steps_named(s.profile, "timed")) == timed
        assert s.read(counted.tensor).dtype == np.uint32 and s.read(counted.tensor).shape == (2,)
    assert pd.cycle_count.value(None, [5, 2]) == 5 + (2 << 32)


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_raw_cycle_count_and_bad_tile(graph, device):
    x = graph.addVariable(poplar.FLOAT, [8], "x")
    graph.setTileMapping(x, 0)
    seq = program.Sequence([program.Copy(x, x)])
    count = poplar.cycleCount(graph, seq, 1, poplar.SyncType.INTERNAL, "count")
    assert count.shape() == [2] and count.elementType() == poplar.UNSIGNED_INT
    graph.createHostRead("count", count)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    engine.run()
    out = engine.readTensor("count", np.zeros(2, np.uint32))
    copy = engine.getProfileData()["steps"][1]
    assert copy["kind"] == "Copy" and (copy["sync_cycles"], copy["compute_cycles"]) == (SYNC, 8 * 4 // 8)
    assert list(out) == [SYNC + 8 * 4 // 8 + SYNC, 0]  # the copy, then the sync closing the window
    with pytest.raises(poplar.poplar_error, match="tile 9 does not exist"):
        poplar.cycleStamp(graph, seq, 9, poplar.SyncType.INTERNAL)



@pytest.mark.needs_emulator("estimated cycle counters")
def test_cycle_stamps_snapshot_the_counter_after_a_sync(graph, device):
    x = graph.addVariable(poplar.FLOAT, [8], "x")
    graph.setTileMapping(x, 0)
    seq = program.Sequence()
    before = poplar.cycleStamp(graph, seq, 0, poplar.SyncType.INTERNAL, "before")
    seq.add(program.Copy(x, x))
    after = poplar.cycleStamp(graph, seq, [0, 1], poplar.SyncType.INTERNAL, "after")
    assert len(after) == 2 and all(t.shape() == [2] and t.elementType() == poplar.UNSIGNED_INT for t in after)
    stamps = [before, *after]
    for i, t in enumerate(stamps):
        graph.createHostRead(f"stamp{i}", t)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    engine.run()
    got = [list(engine.readTensor(f"stamp{i}", np.zeros(2, np.uint32))) for i in range(len(stamps))]
    # The counter starts at 0; each stamp syncs first; the copy of 8 floats is a sync and
    # 8 * 4 bytes at 8 a cycle; the stamp on the second tile syncs again.
    copy = SYNC + 8 * 4 // 8
    assert got == [[SYNC, 0], [SYNC + copy + SYNC, 0], [SYNC + copy + 2 * SYNC, 0]]

SCRIPT = """
import popdsl as pd
dev = pd.ipu_model(tiles=4)
g = pd.Graph(dev)
x = g.variable(pd.float32, (16,), name="x")
with pd.Sequence() as main:
    x += 1.0
with pd.Session(g, main, device=dev) as s:
    s.run()
print("script ran")
"""


@pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")
def test_cli_profile_runs_the_script_and_writes_its_reports(tmp_path, monkeypatch, capsys):
    # In this process (so coverage sees the CLI); what it changes is put back afterwards.
    # test_package_import runs `python -m popdsl` itself.
    monkeypatch.setattr(popdsl.profile, "report_directories", [])
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", '{"debug.instrument": "true"}')
    script = tmp_path / "tiny.py"
    script.write_text(SCRIPT)
    out = tmp_path / "report"
    assert cli.main(["profile", "--out", str(out), str(script)]) == 0
    printed = capsys.readouterr().out
    assert "script ran" in printed and "Memory Usage:" in printed and f"=== profile of {script}" in printed
    assert {"profile_summary.txt", "profile.json"} <= set(os.listdir(out))
    # The options the script's engine saw: the user's, with the report switched on.
    options = json.loads(os.environ["POPLAR_ENGINE_OPTIONS"])
    assert options == {"debug.instrument": "true", "autoReport.all": "true", "autoReport.directory": str(out)}


def test_cli_profile_of_a_script_without_a_session_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(popdsl.profile, "report_directories", [])
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    # setenv, not delenv: delenv of an unset variable records nothing to restore, and
    # the CLI sets it for the script it runs.
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", "{}")
    script = tmp_path / "nothing.py"
    script.write_text("import sys\nprint('args', sys.argv[1:])\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["profile", str(script), "--", "-v", "3"]) == 1
    captured = capsys.readouterr()
    assert "args ['-v', '3']" in captured.out
    # Everything after the script is the script's, popdsl's own option names included.
    assert cli.main(["profile", str(script), "--out", "x", "--", "-v"]) == 1
    assert "args ['--out', 'x', '--', '-v']" in capsys.readouterr().out
    assert not (tmp_path / "x").exists()
    assert f"popdsl profile: {script} closed no pd.Session, so there is no profile to write" in captured.err


def test_cli_info_prints_the_targets_figures(capsys):
    assert cli.main(["info"]) == 0
    printed = capsys.readouterr().out
    assert f"backend: {pd.backend()}" in printed
    rows = {line.split()[0]: line.split() for line in printed.splitlines() if line.strip().startswith("ipu")}
    # The IPU models' published figures: tiles, bytes per tile, workers, exchange bytes per cycle.
    assert rows["ipu1"][1:3] == ["1,216", "262,144"]
    assert rows["ipu2"][1:3] == ["1,472", "638,976"] and rows["ipu2"][7:9] == ["6", "4"]
    assert rows["ipu21"][1:3] == ["1,472", "638,976"]
