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
    assert [t.memory.category.variable.total.excludingGaps for t in c.tiles] == [32, 40, 16, 16]
    assert [t.memory.category.constant.total.excludingGaps for t in c.tiles] == [0, 8, 0, 0]
    assert [t.memory.total.includingGaps for t in c.tiles] == [32, 48, 16, 16]
    assert sorted((v.name, v.size) for v in c.alwaysLiveVariables) == [("w", 32), ("x", 32), ("y", 32), ("z", 8)]
    assert all(s.notAlwaysLiveMemory.bytes == 0 for s in c.livenessProgramSteps)

    x = report.execution
    assert len(x.runs) == 2 and all(len(r.steps) == 5 for r in x.runs)
    executes = [s for s in x.steps if s.program is execute]
    assert len(executes) == 6
    sync = executes[0].syncCycles
    for s in executes:
        assert s.cyclesByTile == [20, 35, 0, 0]  # AddOne 20 on tile 0; AddOne 30 + Double 5 on tile 1
        assert (s.computeCycles, s.exchangeCycles, s.cycles) == (35, 0, sync + 35)
        assert s.ipus[0].cycles == sync + 35 and s.ipus[0].cyclesByTile == [20, 35, 0, 0]
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
    (tmp_path / "broken.pop").write_text('{"format": "popdsl emulator profile", "formatVersion": 1}')
    with pytest.raises(pva.ReportError, match="the field 'poplarVersion' is missing"):
        pva.openReport(tmp_path / "broken.pop")


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
    assert [t.memory.total.excludingGaps for t in report.compilation.tiles] == \
        [v + c for v, c in zip(profile.memory.variable_bytes, profile.memory.constant_bytes)]


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


def doubling(*names):
    """A 4-tile device, its graph, and for each name a Sequence doing x += x (x: 8 floats on
    tile 0) under that debug name."""
    from popdsl import poplar, popops, program
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    popops.addCodelets(graph)
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
