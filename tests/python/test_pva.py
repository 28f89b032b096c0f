"""libpva over the emulator's reports: tests/cpp/pva_report.cpp (C++ libpva, -lpva)
checks a tiny program's report against hand-derived figures and the engine's own
summary; here `import pva` reads the profile.pop that program's engine wrote and checks
the same figures, a popdsl session's report is checked against the session's profile,
and files that are no emulator report are refused with messages that name them."""
import collections
import subprocess

import numpy as np
import pytest

import popdsl as pd
import pva
from cpp_build import ROOT, build_program

pytestmark = pytest.mark.needs_emulator("the emulator's profile.pop reports")

SQLITE_HEADER = b"SQLite format 3\x00"


def write_error_files(directory):
    (directory / "garbage.pop").write_bytes(b"\x00\x01\x02 not a report \xff")
    (directory / "sdk.pop").write_bytes(SQLITE_HEADER + bytes(200))
    (directory / "other.json").write_text('{"target": {"numTiles": 4}}')


@pytest.fixture(scope="module")
def cpp_run(tmp_path_factory):
    """(stdout, report directory) of tests/cpp/pva_report.cpp, built against the prefix."""
    work = tmp_path_factory.mktemp("pva_cpp")
    exe = build_program(work, (ROOT / "tests" / "cpp" / "pva_report.cpp").read_text(), std="c++11", strict=True)
    reports = work / "reports"
    reports.mkdir()
    write_error_files(reports)
    result = subprocess.run([str(exe), str(reports)], capture_output=True, text=True, timeout=120)
    return result, reports


def test_cpp_libpva_reads_the_hand_derived_figures(cpp_run):
    """pva_report checks Engine::getReport and pva::openReport; it prints its failures."""
    result, _ = cpp_run
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "checks: 0 failed"


def test_cpp_libpva_refuses_files_that_are_no_emulator_report(cpp_run):
    result, reports = cpp_run
    errors = {line.split(":", 1)[0]: line.split(":", 1)[1] for line in result.stdout.splitlines()
              if line.startswith("error ")}
    assert f"cannot open '{reports}/missing.pop': No such file or directory" in errors["error /missing.pop"]
    assert f"'{reports}/garbage.pop'" in errors["error /garbage.pop"]
    assert "not a report written by the popdsl emulator" in errors["error /garbage.pop"]
    assert "SQLite database" in errors["error /sdk.pop"] and "Poplar SDK" in errors["error /sdk.pop"]
    assert "JSON but not a report written by the popdsl emulator" in errors["error /other.json"]


def test_python_pva_reads_the_same_figures(cpp_run):
    _, reports = cpp_run
    report = pva.openReport(str(reports / "profile.pop"))
    c = report.compilation
    assert report.poplarVersion.major == 3 and "3.3.0" in report.poplarVersion.string
    assert (c.target.numTiles, c.target.tilesPerIpu, c.target.numIPUs) == (4, 4, 1)
    assert (c.graph.numComputeSets, c.graph.numVertices) == (1, 3)
    execute, = [p for p in c.programs if p.type == pva.Program.Type.OnTileExecute]
    assert execute.name == "addOne"  # an unnamed Execute goes by its compute set
    block, = [p for p in c.programs if p.type == pva.Program.Type.Block]
    assert block.name == "loop" and [ch.type for ch in block.children] == [pva.Program.Type.Repeat]
    assert block.children[0].children == [execute]
    assert [(v.type.name, v.count) for v in execute.computeset.vertices] == [("AddOne", 2), ("Double", 1)]
    category = [t.memory.category for t in c.tiles]
    assert [k.variable.total.excludingGaps for k in category] == [32, 40, 16, 16]
    assert [k.constant.total for k in category] == [0, 8, 0, 0]  # an int, as scripts sum them
    # the estimates (CodeMemory.hpp): code per vertex type, 2 fields of 8 B per instance, 8
    # control instructions of 64 B, the copy's exchange code, 7 stacks of 128 B
    assert [k.vertexCode.total for k in category] == [256, 512, 0, 0]
    assert [k.vertexInstanceState.total for k in category] == [16, 32, 0, 0]
    assert {(k.controlCode.total, k.internalExchangeCode.total, k.hostExchangeCode.total, k.stack.total)
            for k in category} == {(512, 64, 0, 896)}
    totals = [32 + 0 + 256 + 16, 40 + 8 + 512 + 32, 16, 16]
    totals = [n + 512 + 64 + 896 for n in totals]
    assert [t.memory.total.includingGaps for t in c.tiles] == totals
    assert [t.memory.notAlwaysLiveBytes for t in c.tiles] == [16, 24, 16, 16]
    assert [t.memory.alwaysLiveBytes for t in c.tiles] == [n - m for n, m in zip(totals, [16, 24, 16, 16])]
    assert [(v.name, v.size, v.alwaysLive) for v in c.alwaysLiveVariables] == [("x", 32, True)]
    assert [(v.name, v.size, v.alwaysLive) for v in c.notAlwaysLiveVariables] == \
        [("y", 32, False), ("z", 8, False), ("w", 32, False)]
    steps = c.livenessProgramSteps
    assert [s.program.type for s in steps] == [pva.Program.Type.Repeat, pva.Program.Type.OnTileExecute,
                                               pva.Program.Type.DoExchange]
    assert [s.notAlwaysLiveMemory.bytes for s in steps] == [0, 40, 64]
    assert [v.name for v in steps[1].notAlwaysLiveMemory.variables] == ["y", "z"]
    assert [[s.notAlwaysLiveMemoryForTile(t).bytes for t in range(4)] for s in steps] == \
        [[0, 0, 0, 0], [16, 24, 0, 0], [16, 16, 16, 16]]
    assert [(v.name, v.size) for v in steps[1].notAlwaysLiveMemoryForTile(1).variables] == [("y", 16), ("z", 8)]
    assert steps[2].notAlwaysLiveMemoryForIpu(0).bytes == 64
    # debug contexts: the Block's and the variables', with where the C++ program made them
    loop_context, = [p for p in c.programs if p.type == pva.Program.Type.Block][0].debugContexts
    assert (loop_context.name, loop_context.path, loop_context.parent) == ("loop", "loop", None)
    assert loop_context.location.fileName.endswith(".cpp") and loop_context.location.lineNumber > 0
    assert loop_context.location.functionName == "main"
    assert [ctx.name for ctx in c.debugContexts] == ["loop", "x", "y", "z", "w"]
    assert c.alwaysLiveVariables[0].debugContexts == [c.debugContexts[1]]

    x = report.execution
    assert len(x.runs) == 2 and all(len(r.steps) == 5 for r in x.runs)
    executes = [s for s in x.steps if s.program is execute]
    assert len(executes) == 6
    sync = executes[0].syncCycles
    for s in executes:
        assert s.cyclesByTile == [20, 35, 0, 0]  # AddOne 20 on tile 0; AddOne 30 + Double 5 on tile 1
        assert (s.computeCycles, s.exchangeCycles, s.cycles) == (35, 0, sync + 35)
        assert s.ipus[0].cycles == sync + 35 and s.ipus[0].cyclesByTile == [20, 35, 0, 0]
        assert (s.ipus[0].activeCycles, s.ipus[0].activeTiles) == (35, 2)
        ran, = s.computeSets
        assert ran.name == "addOne" and ran.cyclesByTile == ran.estimatedCyclesByTile == [20, 35, 0, 0]
    assert execute.computeset.estimatedCyclesByTile == [20, 35, 0, 0]
    assert all(s.computeSets == [] for s in x.steps if s.program is not execute)
    assert all(a.cyclesTo == b.cyclesFrom for a, b in zip(x.steps, x.steps[1:]))
    assert x.totalCycles == sum(s.cycles for s in x.steps) == x.steps[-1].cyclesTo

    blocks = x.blocks(0)
    assert len(blocks) == 2 and x.blocks(1) == [] and list(x.blocks) == blocks
    for b, run in zip(blocks, x.runs):
        assert b.program is block and (b.cyclesFrom, b.cyclesTo) == (run.steps[0].cyclesFrom, run.steps[3].cyclesTo)
        assert (b.isCommon, b.isStreamCopy, b.isOverflow, b.isBlockFlush) == (True, False, False, False)

    class Counter(pva.ProgramVisitor):
        def __init__(self):
            self.names = []

        def visitOnTileExecute(self, onTileExecute):
            self.names.append(onTileExecute.computeset.name)

    counter = Counter()
    for s in x.steps:
        s.program.accept(counter)
    assert counter.names == ["addOne"] * 6


def test_python_pva_refuses_files_that_are_no_emulator_report(tmp_path):
    write_error_files(tmp_path)
    cases = {"missing.pop": "cannot open '{}': No such file or directory",
             "garbage.pop": "not a report written by the popdsl emulator",
             "sdk.pop": "it is an SQLite database",
             "other.json": "it is JSON but not a report written by the popdsl emulator"}
    for name, expected in cases.items():
        path = str(tmp_path / name)
        with pytest.raises(pva.ReportError) as info:
            pva.openReport(path)
        assert f"'{path}'" in str(info.value) and expected.format(path) in str(info.value)
    with pytest.raises(pva.ReportError, match="Poplar SDK"):
        pva.openReport(tmp_path / "sdk.pop")
    (tmp_path / "broken.pop").write_text('{"format": "popdsl emulator profile", "formatVersion": 2}')
    with pytest.raises(pva.ReportError, match="the field 'poplarVersion' is missing"):
        pva.openReport(tmp_path / "broken.pop")
    (tmp_path / "old.pop").write_text('{"format": "popdsl emulator profile", "formatVersion": 1}')
    with pytest.raises(pva.ReportError, match="its format version 1 is not 2, the one this pva reads"):
        pva.openReport(tmp_path / "old.pop")


def test_a_session_report_matches_the_session_profile(tmp_path, monkeypatch):
    monkeypatch.setattr(pd.profile, "report_directories", [])  # the session writes into tmp_path itself
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    x = g.variable(pd.float32, (64,), name="x")
    with pd.Sequence() as main:
        with pd.Repeat(5):
            x += 1.0
        y = pd.exp(x)
    options = {"autoReport.all": "true", "autoReport.directory": str(tmp_path),
               "autoReport.executionProfileProgramRunCount": "1"}
    with pd.Session(g, main, device=dev, options=options) as s:
        s.write(x, np.zeros(64, np.float32))
        s.run()
        s.run()
        profile = s.profile
        assert np.allclose(s.read(y), np.exp(10.0))
    report = pva.openReport(tmp_path / "profile.pop")
    assert len(report.execution.runs) == 1  # the option's count: only the first run
    # The run's step executions: half of the profile's two runs, step by step.
    expected = collections.Counter()
    for st in profile.steps:
        expected[st.cycles_per_execution] += st.executions // 2
    assert +collections.Counter(step.cycles for step in report.execution.steps) == +expected
    assert report.execution.totalCycles * 2 == profile.total_cycles
    assert [t.memory.category.variable.total + t.memory.category.constant.total
            for t in report.compilation.tiles] == \
        [v + c for v, c in zip(profile.memory.variable_bytes, profile.memory.constant_bytes)]
    # popdsl names its ops after the user's lines: their debug contexts carry those names
    # (no C++ source location), x is always live (read first, its value kept between runs)
    named = [p for p in report.compilation.programs if "test_pva.py:" in p.name]
    assert named and all(p.debugContexts[0].path == p.name for p in named)
    assert not any(p.debugContexts[0].location.isValid for p in named)
    assert [v.name for v in report.compilation.alwaysLiveVariables if v.name == "x"] == ["x"]


def test_public_libpva_tutorial_example_runs_unchanged(cpp_run, monkeypatch):
    """The names of Poplar tutorial 4's libpva example (python_example.py), used the same way."""
    _, reports = cpp_run
    monkeypatch.chdir(reports)
    report = pva.openReport("./profile.pop")
    lines = [f"Number of compute sets: {report.compilation.graph.numComputeSets}",
             f"Number of tiles on target: {report.compilation.target.numTiles}",
             f"Version of Poplar used: {report.poplarVersion.string}"]
    assert lines == ["Number of compute sets: 1", "Number of tiles on target: 4",
                     "Version of Poplar used: 3.3.0 (popdsl emulator)"]


def device_and_graph():
    """An ipu2 model device of 4 tiles and a graph on it with popops' codelets."""
    from popdsl import poplar, popops
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    popops.addCodelets(graph)
    return device, graph


def doubling(*names):
    """A 4-tile device, its graph, and for each name a Sequence doing x += x (x: 8 floats on
    tile 0) under that debug name."""
    from popdsl import poplar, popops, program
    device, graph = device_and_graph()
    x = graph.addVariable(poplar.FLOAT, [8], "x")
    graph.setTileMapping(x, 0)
    sequences = [program.Sequence() for _ in names]
    for seq, name in zip(sequences, names):
        popops.addInPlace(graph, x, x, seq, name)
    return device, graph, sequences


def loaded(device, graph, prog, options):
    from popdsl import poplar
    engine = poplar.Engine(graph, prog, options)
    engine.load(device)
    return engine


def small_engine(options):
    """An engine running Sequence{Repeat(2, Sequence "inc"{x += x}), Block "blk"{x += x}} on tile 0."""
    from popdsl import program
    device, graph, (double,) = doubling("double")
    main = program.Sequence([program.Repeat(2, program.Sequence([double], "inc")),
                             program.Block(program.Sequence([double]), "blk")])
    return loaded(device, graph, main, options)


def test_lightweight_profiling_times_blocks_and_filtered_programs_in_every_run(tmp_path):
    engine = small_engine({"profiler.programs.filter": "inc", "profiler.blocks.filter": "b.k"})
    for _ in range(3):
        engine.run(0)
    engine.writeProfileReport(str(tmp_path))
    x = pva.openReport(tmp_path / "profile.pop").execution
    assert len(x.runs) == 3  # lightweight profiling records every run
    double = [s for s in x.runs[0].steps if s.program.type == pva.Program.Type.OnTileExecute]
    assert len(double) == 3 and len({s.cycles for s in double}) == 1
    assert [b.program.name for b in x.blocks(0)] == ["inc", "inc", "blk"] * 3
    assert all(b.cyclesTo - b.cyclesFrom == double[0].cycles for b in x.blocks(0))  # each holds one step
    assert x.blocks(1) == []
    for run, blocks in zip(x.runs, [x.blocks(0)[i:i + 3] for i in (0, 3, 6)]):
        assert [b.cyclesFrom for b in blocks] == [s.cyclesFrom for s in run.steps[1:]]


def test_nested_blocks_are_listed_in_the_order_they_began(tmp_path):
    # As the SDK's lightweight-profiling tutorial lists them: a stage, then its operation.
    from popdsl import program
    device, graph, (first, second) = doubling("first", "second")
    stage = program.Block(program.Sequence([first, program.Block(second, "op")]), "stage")
    engine = loaded(device, graph, program.Repeat(2, stage), {"profiler.blocks.filter": "stage|op"})
    engine.run(0)
    engine.writeProfileReport(str(tmp_path))
    blocks = pva.openReport(tmp_path / "profile.pop").execution.blocks(0)
    assert [b.program.name for b in blocks] == ["stage", "op"] * 2
    for stage_block, op_block in zip(blocks[::2], blocks[1::2]):
        assert stage_block.cyclesFrom < op_block.cyclesFrom < op_block.cyclesTo == stage_block.cyclesTo
    assert blocks[1].cyclesTo <= blocks[2].cyclesFrom


def test_an_unnamed_execute_goes_by_its_compute_sets_name(tmp_path):
    # profiler.programs.filter names the compute set of an Execute that has no name of its
    # own, as the SDK's lightweight-profiling tutorial (example 2) does.
    from popdsl import poplar, program
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    graph.addCodelets("""#include <poplar/Vertex.hpp>
class Bump : public poplar::Vertex {
public:
  poplar::InOut<unsigned> n;
  bool compute() { n = n + 1; return true; }
};
""")
    n = graph.addVariable(poplar.UNSIGNED_INT, [], "n")
    graph.setTileMapping(n, 0)
    cs = graph.addComputeSet("operation")
    graph.setTileMapping(graph.addVertex(cs, "Bump", {"n": n}), 0)
    engine = poplar.Engine(graph, program.Repeat(5, program.Execute(cs)), {"profiler.programs.filter": "operation"})
    engine.load(device)
    engine.run(0)
    engine.writeProfileReport(str(tmp_path))
    blocks = pva.openReport(tmp_path / "profile.pop").execution.blocks(0)
    assert [b.program.name for b in blocks] == ["operation"] * 5
    assert all(b.cyclesTo > b.cyclesFrom for b in blocks)


def test_the_execution_profile_records_the_first_runs_until_reset(tmp_path):
    engine = small_engine({"debug.instrument": "true"})
    for _ in range(3):
        engine.run(0)
    engine.writeProfileReport(str(tmp_path / "a"))
    assert len(pva.openReport(tmp_path / "a" / "profile.pop").execution.runs) == 2  # the default count
    engine.resetExecutionProfile()
    engine.run(0)
    engine.writeProfileReport(str(tmp_path / "b"))
    report = pva.openReport(tmp_path / "b" / "profile.pop")
    assert len(report.execution.runs) == 1 and len(report.execution.steps) == 4
    assert pva.openReport(tmp_path / "b" / "profile.pop").execution.blocks() == []


def test_without_profiling_options_the_report_has_no_runs(tmp_path):
    engine = small_engine({})
    engine.run(0)
    engine.writeProfileReport(str(tmp_path))
    report = pva.openReport(tmp_path / "profile.pop")
    assert report.execution.runs == [] and report.execution.totalCycles == 0
    assert [p.name for p in report.compilation.programs if p.type == pva.Program.Type.Block] == ["blk"]


def stream_engine():
    """Sequence{Copy(stream "in" -> x), x += x}: x is 8 floats on tile 0."""
    from popdsl import poplar, popops, program
    device, graph = device_and_graph()
    x = graph.addVariable(poplar.FLOAT, [8], "x")
    graph.setTileMapping(x, 0)
    stream = graph.addHostToDeviceFIFO("in", poplar.FLOAT, 8)
    main = program.Sequence([program.Copy(stream, x)])
    popops.addInPlace(graph, x, x, main, "double")
    engine = poplar.Engine(graph, main, {"debug.instrument": "true"})
    engine.load(device)
    engine.connectStream("in", np.arange(8, dtype=np.float32))
    return engine


def test_a_stream_copy_is_a_begin_mid_end_triplet():
    engine = stream_engine()
    engine.run(0)
    report = engine.getReport()
    T = pva.Program.Type
    main, = [p for p in report.compilation.programs if p.type == T.Sequence]
    assert [c.type for c in main.children] == [T.StreamCopyBegin, T.StreamCopyMid, T.StreamCopyEnd,
                                               T.OnTileExecute]
    assert len({c.name for c in main.children[:3]}) == 1
    steps = report.execution.steps
    assert [s.program for s in steps] == main.children
    begin, mid, end, double = steps
    # Begin: the host sync (CostModel's kHostSyncCycles); Mid: 32 bytes at 8 bytes per cycle.
    assert (begin.syncCycles, begin.exchangeCycles, begin.cycles) == (1000, 0, 1000)
    assert (mid.syncCycles, mid.exchangeCycles, mid.cycles) == (0, 4, 4)
    assert end.cycles == 0 and end.cyclesByTile == [] and mid.computeSets == []
    assert [cs.name for cs in double.computeSets] == ["double"]
    assert double.cyclesByTile[1:] == [0, 0, 0] and double.ipus[0].activeTiles == 1
    assert double.ipus[0].activeCycles == double.cyclesByTile[0] == double.computeCycles > 0
    assert report.execution.totalCycles == 1004 + double.cycles


def test_engine_get_report_and_session_report(tmp_path):
    engine = stream_engine()
    engine.run(0)
    engine.writeProfileReport(str(tmp_path))
    from_file, direct = pva.openReport(tmp_path / "profile.pop"), engine.getReport()
    assert [s.cycles for s in direct.execution.steps] == [s.cycles for s in from_file.execution.steps]
    assert engine.getReport(False).execution.runs == [] and len(direct.execution.runs) == 1

    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    x = g.variable(pd.float32, (64,), name="x")
    with pd.Sequence() as main:
        x += 1.0
    with pd.Session(g, main, device=dev, options={"debug.instrument": "true"}) as s:
        s.run()
        report = s.report()
    assert isinstance(report, pva.Report) and len(report.execution.runs) == 1
    assert report.compilation.target.numTiles == 4
    assert report.execution.totalCycles == s.profile.total_cycles


def test_liveness_ranges_are_widened_over_the_loops_they_cross(tmp_path):
    """Steps: 0 Copy(x, u); 1 the Repeat; 2 Copy(u, t); 3 Copy(t, x), the loop body being 2-3.
    x is read first (always live); t lives in 2-3; u from 0 to 2, widened to the loop's end."""
    from popdsl import poplar, program
    device, graph = device_and_graph()
    x, t, u = (graph.addVariable(poplar.FLOAT, [8], name) for name in "xtu")
    for tile, v in enumerate((x, t, u)):
        graph.setTileMapping(v, tile)
    body = program.Sequence([program.Copy(u, t), program.Copy(t, x)])
    main = program.Sequence([program.Copy(x, u), program.Repeat(2, body)])
    engine = poplar.Engine(graph, main, {})
    engine.load(device)
    c = engine.getReport().compilation
    assert [v.name for v in c.alwaysLiveVariables] == ["x"]
    assert [v.name for v in c.notAlwaysLiveVariables] == ["t", "u"]
    steps = c.livenessProgramSteps
    assert [s.notAlwaysLiveMemory.bytes for s in steps] == [32, 32, 64, 64]
    assert [[v.name for v in s.notAlwaysLiveMemory.variables] for s in steps] == [["u"], ["u"], ["t", "u"],
                                                                                 ["t", "u"]]
    assert [s.notAlwaysLiveMemoryForTile(2).bytes for s in steps] == [32, 32, 32, 32]
    assert [t.memory.notAlwaysLiveBytes for t in c.tiles] == [0, 32, 32, 0]
