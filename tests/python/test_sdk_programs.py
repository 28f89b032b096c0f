"""tests/cpp/sdk_programs.cpp: what the public SDK-era programs of docs/sdk.rst's list reach
for, in a program of our own that uses it their way, against values worked out by hand."""
import json
import subprocess

import pytest

from cpp_build import ROOT, build_program, check_syntax
from test_sdk_headers import CODELET  # the Doubler vertex


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    work = tmp_path_factory.mktemp("sdk_programs")
    (work / "codelets.cpp").write_text(CODELET)
    # C++17, as the programs build: std::optional comes with the Poplar headers.
    exe = build_program(work, (ROOT / "tests" / "cpp" / "sdk_programs.cpp").read_text(), std="c++17", strict=True)
    result = subprocess.run([str(exe), str(work / "codelets.cpp")], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(line.split(": ", 1) for line in result.stdout.splitlines())


def test_the_graph_serializes_as_one_json_document_in_both_formats(out):
    assert json.loads(out["serialized"]) == {
        "format": "popdsl emulator graph", "version": 1,
        "target": {"arch": "ipu2", "ipus": 1, "tilesPerIpu": 4, "replicationFactor": 1},
        "variables": [
            {"name": "x", "type": "float", "constant": False, "shape": [6], "mapping": [[0, 4, 1], [4, 6, 3]]},
            {"name": "c", "type": "int", "constant": True, "shape": [2], "mapping": [[0, 2, 0]]},
        ],
        "computeSets": [{"name": "double", "vertices": 2}],
        "vertices": [{"type": "Doubler", "computeSet": 0, "tile": 1}, {"type": "Doubler", "computeSet": 0, "tile": 3}],
    }
    assert out["binary same"] == "yes"


def test_output_vertex_graph_writes_what_output_compute_graph_writes(out):
    assert out["vertex graph same"] == "yes"


def test_a_profile_of_one_run_prints_after_profiling_is_disabled_again(out):
    assert out["x"] == "16 32 48 64 80 96"  # four runs, each doubling
    assert out["profiled runs"] == "1"


def test_libpva_header_brings_the_stream_headers_the_lightweight_profiling_examples_use(tmp_path):
    check_syntax(tmp_path, """#include <poplar/Engine.hpp>
#include <pva/pva.hpp>
void show(const pva::Report &report) {
  for (const auto &block : report.execution().blocks(0))
    std::cout << std::setw(10) << block.program()->name() << ": " << block.isCommon() << block.isOverflow()
              << block.isBlockFlush() << block.isStreamCopy() << "\\n";
}
""")
