"""Every Engine option key Poplar documents is accepted with its documented values and
reported by getEngineOptions(); bad values and unknown keys raise invalid_option.
autoReport writes the profile files from raw engines (C++ programs) when they are
destroyed, and once only when a pd.Session wrote them first."""
import gc
import json
import os
import re
import subprocess

import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, program
from cpp_build import build_program

DOCUMENTED = {
    "target.syncMethod": ["polling", "hybrid", "default"],
    "target.syncPollPeriodUs": ["0", "100"],
    "target.exceptionPollPeriodUs": ["250000"],
    "target.hostSyncTimeout": ["300.00", "0"],
    "streamCallbacks.multiThreadMode": ["singleThread", "collaborative", "dedicated"],
    "streamCallbacks.numaAware": ["true", "false"],
    "streamCallbacks.numWorkerThreads": ["0", "4", "auto"],
    "debug.instrument": ["true", "false"],
    "debug.instrumentCompute": ["true"],
    "debug.instrumentControlFlow": ["true"],
    "debug.instrumentExternalExchange": ["true"],
    "debug.computeInstrumentationLevel": ["vertex", "tile", "ipu", "device"],
    "debug.retainDebugInformation": ["true"],
    "debug.allowOutOfMemory": ["true"],
    "debug.outputAllSymbols": ["true"],
    "debug.floatPointOpException": ["false"],
    "debug.nanOverflowMode": ["true"],
    "debug.trace": ["false"],
    "debug.runtimeVerify": ["true", "false"],
    "debug.executionProfile": ["compute_sets"],
    "debug.branchRecordTile": ["3"],
    "debug.loweredVarDumpFile": ["vars.txt"],
    "opt.maxCompilationThreads": ["0", "8"],
    "opt.maxCopyMergeSize": ["0x10000", "4096"],
    "opt.enableInlining": ["true"],
    "opt.useAutoloader": ["false"],
    "opt.internalExchangeOptimisationTarget": ["balanced", "cycles", "memory"],
    "opt.enableMultiAccessCopies": ["true"],
    "exchange.streamBufferOverlap": ["none", "hostRearrangeOnly", "any"],
    "exchange.enablePrefetch": ["true"],
    "exchange.multicastPolicy": ["balanced"],
    "target.deterministicWorkers": ["true", "false", "portable"],
    "target.syncReplicasIndependently": ["true"],
    "target.saveArchive": ["archive.a"],
    "target.workerStackSizeInBytes": ["0x400"],
    "target.firstRuntimeReplica": ["0"],
    "target.numberRuntimeReplica": ["1"],  # all of the test graph's one replica
    "autoReport.all": ["false"],
    "autoReport.directory": ["reports"],
    "autoReport.outputGraphProfile": ["false"],
    "autoReport.outputExecutionProfile": ["false"],
    "autoReport.outputLoweredVars": ["true"],
    "autoReport.outputSerializedGraph": ["true"],
    "autoReport.outputDebugInfo": ["true"],
    "autoReport.executionProfileProgramRunCount": ["2"],
    "profiler.format": ["v3"],
    "profiler.includeFlopEstimates": ["true"],
    "profiler.includeCycleEstimates": ["true"],
    "profiler.perExecutionStreamCopyCycles": ["true"],
    "profiler.blocks.filter": ["attention.*"],
    "profiler.programs.filter": ["main|step[0-9]+"],
    "profiler.blocks.tile": ["0"],
    "profiler.blocks.implicitFlush": ["true"],
    "profiler.blocks.bufferSize": ["1000"],
    "prng.enableStochasticRounding": ["true"],
    "prng.seed": ["42"],
}


def test_every_documented_key_and_value_is_accepted_and_reported(graph):
    for round_ in range(3):  # each value of each key appears in one of three engines
        options = {k: v[round_ % len(v)] for k, v in DOCUMENTED.items()}
        engine = poplar.Engine(graph, program.Sequence(), options)
        assert dict(engine.getEngineOptions()) == options


@pytest.mark.parametrize("key,value,expected", [
    ("exchange.streamBufferOverlap", "true", "one of none, hostRearrangeOnly, any"),
    ("opt.maxCopyMergeSize", "-1", "an unsigned integer"),
    ("streamCallbacks.numWorkerThreads", "many", "an unsigned integer or auto"),
    ("debug.runtimeVerify", "yes", "true or false"),
    ("target.hostSyncTimeout", "-5", "a non-negative number"),
    ("profiler.programs.filter", "([", "a regular expression"),
    ("target.deterministicWorkers", "sometimes", "one of true, false, portable"),
])
def test_bad_values_name_the_key_and_value(graph, key, value, expected):
    message = f"Invalid value '{value}' for option '{key}': expected {expected}"
    with pytest.raises(poplar.invalid_option, match=re.escape(message)):
        poplar.Engine(graph, program.Sequence(), {key: value})


def test_unknown_keys_are_still_refused(graph):
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'opt.noSuchThing'"):
        poplar.Engine(graph, program.Sequence(), {"opt.noSuchThing": "1"})


def run_doubling(graph, device, options):
    x = graph.addVariable(poplar.FLOAT, [4], "x")
    graph.setTileMapping(x, 0)
    graph.setInitialValue(x, np.ones(4, np.float32))
    seq = program.Sequence()
    from popdsl import popops
    popops.mulInPlace(graph, x, 2.0, seq, "double")
    engine = poplar.Engine(graph, seq, options)
    engine.load(device)
    engine.run(0)
    return engine


def test_raw_engine_writes_the_report_when_destroyed(device, graph, tmp_path):
    out = tmp_path / "report"
    engine = run_doubling(graph, device, {"autoReport.all": "true", "autoReport.directory": str(out)})
    import io
    summary = io.StringIO()
    engine.printProfileSummary(summary)
    assert not out.exists()  # nothing before the engine goes
    del engine
    gc.collect()
    assert sorted(os.listdir(out)) == ["profile.json", "profile.pop", "profile_summary.txt"]
    assert (out / "profile_summary.txt").read_text() == summary.getvalue()
    profile = pd.Profile.from_json((out / "profile.json").read_text())
    assert profile.runs == 1 and profile.summary() == summary.getvalue()
    assert any(step.name == "double" and step.executions == 1 for step in profile.steps)


def test_a_report_without_profiled_runs_is_still_written(device, graph, tmp_path, capfd):
    # As SDK programs do: autoReport.all, then profiling disabled right after load.
    out = tmp_path / "report"
    x = graph.addVariable(poplar.FLOAT, [4], "x")
    graph.setTileMapping(x, 0)
    seq = program.Sequence()
    from popdsl import popops
    popops.mulInPlace(graph, x, 2.0, seq, "double")
    engine = poplar.Engine(graph, seq, {"autoReport.all": "true", "autoReport.directory": str(out)})
    engine.load(device)
    engine.disableExecutionProfiling()
    engine.run(0)
    del engine
    gc.collect()
    assert sorted(os.listdir(out)) == ["profile.json", "profile.pop", "profile_summary.txt"]
    assert "no run was profiled" in (out / "profile_summary.txt").read_text()
    import pva
    report = pva.openReport(out / "profile.pop")
    assert report.execution.runs == [] and report.compilation.target.numTiles == 4
    assert "poplar:" not in capfd.readouterr().err


def test_engine_without_report_options_writes_nothing(device, graph, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    engine = run_doubling(graph, device, {"autoReport.all": "false"})
    del engine
    gc.collect()
    assert os.listdir(tmp_path) == []


@pytest.mark.needs_emulator("popdsl's own report files (the SDK writes its profile.pop itself)")
def test_session_report_is_written_once(tmp_path, monkeypatch):
    # As the process's first report: earlier tests' reports would send this one into session<k>/.
    monkeypatch.setattr(pd.profile, "report_directories", [])
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    x = g.variable(pd.float32, (4,), name="x")
    with pd.Sequence("main") as main:
        x *= 2.0
    options = {"autoReport.all": "true", "autoReport.directory": str(tmp_path)}
    with pd.Session(g, {"main": main}, device=dev, options=options) as s:
        s.run("main")
    written = {p: (tmp_path / p).read_text() for p in ("profile_summary.txt", "profile.json")}
    stamps = {p: os.stat(tmp_path / p).st_mtime_ns for p in written}
    assert pd.Profile.from_json(written["profile.json"]).runs == 1
    del s
    gc.collect()
    assert {p: os.stat(tmp_path / p).st_mtime_ns for p in written} == stamps
    assert not [p for p in os.listdir(tmp_path) if p.startswith("session")]


CPP_PROGRAM = r'''
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <fstream>
#include <iostream>
int main() {
  poplar::IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::Tensor x = graph.addVariable(poplar::FLOAT, {4}, "x");
  graph.setTileMapping(x, 0);
  graph.setInitialValue(x, poplar::ArrayRef<float>({1, 2, 3, 4}));
  poplar::program::Sequence prog;
  popops::addInPlace(graph, x, 1.0f, prog, "increment");
  {
    poplar::Engine engine(graph, prog, {{"autoReport.all", "true"}});
    engine.load(device);
    engine.run(0);
    std::cout << "ran" << std::endl;
    // Replacing the engine ends the first one: its report (one run) is written now, and
    // the replacement's (no runs, as it is never loaded) overwrites it when destroyed.
    poplar::Engine second(graph, prog, {{"autoReport.all", "true"}});
    engine = std::move(second);
    std::ifstream report("reports/profile.json");
    std::cout << (report ? "written" : "missing") << std::endl;
  }
  return 0;
}
'''


def test_cpp_program_writes_the_report_when_its_engine_is_destroyed(tmp_path):
    exe = build_program(tmp_path, CPP_PROGRAM)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "POPLAR_ENGINE_OPTIONS"}
    env["POPLAR_ENGINE_OPTIONS"] = json.dumps({"autoReport.directory": str(run_dir / "reports")})
    result = subprocess.run([str(exe)], cwd=run_dir, env=env, capture_output=True, text=True, check=True)
    assert result.stdout == "ran\nwritten\n"
    assert sorted(os.listdir(run_dir / "reports")) == ["profile.json", "profile.pop", "profile_summary.txt"]
    profile = pd.Profile.from_json((run_dir / "reports" / "profile.json").read_text())
    assert profile.runs == 0 and "Memory Usage:" in profile.summary()
    assert any(step.name == "increment" for step in profile.steps)
