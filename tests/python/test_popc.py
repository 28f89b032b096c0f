"""popc and codelet objects (.gp): a Makefile-style project runs the prefix's popc with
popc's options, then a C++ program built against the prefix and Python (raw and Pythonic)
load the .gp and run its vertices; what popc and addCodelets refuse, they name."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import popdsl
import popdsl as pd
from popdsl import poplar, program

PREFIX = Path(popdsl.__file__).resolve().parent / "sdk"
POPC = PREFIX / "bin" / "popc"

pytestmark = [pytest.mark.skipif(shutil.which("g++") is None or shutil.which("make") is None,
                                 reason="needs g++ and make"),
              pytest.mark.usefixtures("codelet_cache")]

# out = in * FACTOR (inc/factor.hpp) + X (-DX=1) + bias (a plain field).
CODELETS = r"""
#include <poplar/Vertex.hpp>
#include "factor.hpp"

using namespace poplar;

class Affine : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  float bias;
  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] * FACTOR + X + bias;
    return true;
  }
};
"""

# A second source: out = -in, and a scale given as a constant Input edge.
NEGATE = r"""
#include <poplar/Vertex.hpp>
class Negate : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<float>> data;
  poplar::Input<float> scale;
  bool compute() {
    for (auto &x : data) x = -x * *scale;
    return true;
  }
};
"""

MAIN = r"""
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <iostream>
#include <vector>

int main() {
  poplar::IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  poplar::Device device = ipuModel.createDevice();
  poplar::Graph graph(device.getTarget());
  graph.addCodelets("codelets.gp");
  poplar::Tensor x = graph.addVariable(poplar::FLOAT, {4}, "x");
  poplar::Tensor y = graph.addVariable(poplar::FLOAT, {4}, "y");
  graph.setTileMapping(x, 0);
  graph.setTileMapping(y, 0);
  graph.setInitialValue(x, poplar::ArrayRef<float>({1.0f, 2.0f, -0.5f, 4.0f}));
  poplar::ComputeSet cs = graph.addComputeSet("affine");
  poplar::VertexRef v = graph.addVertex(cs, "Affine", {{"in", x}, {"out", y}, {"bias", 0.25f}});
  graph.setTileMapping(v, 0);
  graph.createHostRead("y", y);
  poplar::Engine engine(graph, poplar::program::Execute(cs));
  engine.load(device);
  engine.run(0);
  std::vector<float> out(4);
  engine.readTensor("y", out.data(), out.data() + out.size());
  std::cout << "y:";
  for (float value : out) std::cout << ' ' << value;
  std::cout << '\n';
  return 0;
}
"""

MAKEFILE = """\
all: codelets.gp main

codelets.gp: codelets.cpp inc/factor.hpp
\tpopc -O2 -I inc -DX=1 codelets.cpp -o codelets.gp

main: main.cpp
\t$(CXX) -std=c++14 main.cpp -o main -lpoplar
"""

X = np.array([1.0, 2.0, -0.5, 4.0])
AFFINE = X * 3 + 1 + 0.25


def enabled_shell(command, cwd):
    """Runs `command` after `eval "$(python -m popdsl sdk --enable)"`, in a subprocess that
    imports the popdsl under test."""
    env = {k: v for k, v in os.environ.items() if k not in ("CPATH", "LIBRARY_PATH", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(Path(popdsl.__file__).resolve().parent.parent)
    enable = f'eval "$({sys.executable} -m popdsl sdk --enable)"'
    return subprocess.run(["bash", "-c", f"{enable} && {command}"], cwd=cwd, env=env, capture_output=True,
                          text=True)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The project, built with make: codelets.gp by popc, main by g++ (its run printed)."""
    work = tmp_path_factory.mktemp("popc_project")
    (work / "inc").mkdir()
    (work / "inc" / "factor.hpp").write_text("#define FACTOR 3\n")
    (work / "codelets.cpp").write_text(CODELETS)
    (work / "negate.cpp").write_text(NEGATE)
    (work / "main.cpp").write_text(MAIN)
    (work / "Makefile").write_text(MAKEFILE)
    built = enabled_shell("make -s && ./main", work)
    assert built.returncode == 0, built.stdout + built.stderr
    return work, built.stdout


def ipu2_graph(tiles=4):
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = tiles
    device = model.createDevice()
    return device, poplar.Graph(device.getTarget())


def run_raw(device, graph, cs, tensor):
    graph.createHostRead("out", tensor)
    engine = poplar.Engine(graph, program.Execute(cs))
    engine.load(device)
    engine.run(0)
    return engine.readTensor("out", np.empty(tensor.shape(), np.float32))


def test_a_makefile_runs_popc_and_a_cpp_program_loads_the_gp(project):
    work, out = project
    assert (work / "codelets.gp").read_bytes().startswith(b"POPDSLGP")
    np.testing.assert_allclose([float(v) for v in out.split(":")[1].split()], AFFINE)


def test_python_loads_the_gp_raw_and_pythonic(project):
    work, _ = project
    device, graph = ipu2_graph()
    assert graph.addCodelets(str(work / "codelets.gp"))
    assert not graph.addCodelets(work / "codelets.gp")  # added already
    x = graph.addVariable(poplar.FLOAT, [4], "x")
    y = graph.addVariable(poplar.FLOAT, [4], "y")
    for t in (x, y):
        graph.setTileMapping(t, 0)
    graph.setInitialValue(x, X.astype(np.float32))
    cs = graph.addComputeSet("affine")
    graph.setTileMapping(graph.addVertex(cs, "Affine", {"in": x, "out": y, "bias": 0.25}), 0)
    np.testing.assert_allclose(run_raw(device, graph, cs, y), AFFINE)

    g = pd.Graph(pd.ipu_model(tiles=4))
    g.add_codelets(work / "codelets.gp")
    px = g.variable(pd.float32, (4,), name="x", mapping=0)
    py = g.variable(pd.float32, (4,), name="y", mapping=0)
    with pd.Sequence("main") as main:
        with pd.compute_set("affine") as cs:
            cs.vertex("Affine", tile=0, in_=px, out=py, bias=-2)
    with pd.Session(g, main, device=pd.ipu_model(tiles=4)) as s:
        s.write(px, X.astype(np.float32))
        s.run()
        np.testing.assert_allclose(s.read(py), X * 3 + 1 - 2)


def test_several_sources_targets_and_linked_objects(project):
    work, _ = project
    popc = enabled_shell("popc --target=ipu1,ipu21 -O3 -g -Wall -I inc -X -DX=2 codelets.cpp negate.cpp -o both.gp && "
                         "popc negate.cpp && popc -o linked.gp -target=ipu2 negate.gp", work)
    assert popc.returncode == 0, popc.stderr
    assert (work / "negate.gp").is_file()  # the default output: the input's name

    device, graph = ipu2_graph()
    with pytest.raises(poplar.graph_program_compilation_error,
                       match=r"compiled for target\(s\) ipu1,ipu21, not for this graph's target ipu2"):
        graph.addCodelets(str(work / "both.gp"))
    assert graph.addCodelets(str(work / "linked.gp"))
    data = graph.addVariable(poplar.FLOAT, [3], "data")
    graph.setTileMapping(data, 1)
    graph.setInitialValue(data, np.array([1, -2, 3], np.float32))
    cs = graph.addComputeSet("negate")
    graph.setTileMapping(graph.addVertex(cs, "Negate", {"data": data, "scale": 2}), 1)
    np.testing.assert_allclose(run_raw(device, graph, cs, data), [-2, 4, -6])

    model = poplar.IPUModel("ipu21")
    model.tilesPerIPU = 4
    device21 = model.createDevice()
    graph21 = poplar.Graph(device21.getTarget())
    assert graph21.addCodelets(str(work / "both.gp"))
    assert graph21.hasCodelet("Negate")
    x = graph21.addConstant(poplar.FLOAT, [4], X.astype(np.float32), "x")
    y = graph21.addVariable(poplar.FLOAT, [4], "y")
    for t in (x, y):
        graph21.setTileMapping(t, 2)
    cs = graph21.addComputeSet("affine")
    graph21.setTileMapping(graph21.addVertex(cs, "Affine", {"in": x, "out": y, "bias": 0}), 2)
    np.testing.assert_allclose(run_raw(device21, graph21, cs, y), X * 3 + 2)  # X=2 through -X


def test_popc_help_version_targets_and_the_python_entry_point(project):
    work, _ = project
    helped = subprocess.run([str(POPC), "--help"], capture_output=True, text=True)
    assert helped.returncode == 0
    for option in ("-O0", "-I <dir>", "-D <macro>", "-X <option>", "--target", "-g", "-o, --output"):
        assert option in helped.stdout
    version = subprocess.run([sys.executable, "-m", "popdsl", "popc", "--version"], capture_output=True, text=True,
                             cwd=work, env={**os.environ, "PYTHONPATH": str(Path(popdsl.__file__).parent.parent)})
    assert version.returncode == 0 and version.stdout.startswith("popc (popdsl emulator)")
    listed = subprocess.run([str(POPC), "--list-targets"], capture_output=True, text=True)
    assert listed.stdout.split() == ["ipu1", "ipu2", "ipu21", "cpu"]


@pytest.mark.parametrize("args, message", [
    ("--target=ipu9 codelets.cpp", "unknown target 'ipu9'"),
    ("--frobnicate codelets.cpp", "unknown option '--frobnicate'"),
    ("codelets.cpp negate.cpp", "several inputs: name the output with -o"),
    ("-S codelets.cpp", "IPU assembly"),
    ("", "no input files"),
])
def test_popc_refuses_what_it_cannot_do(project, args, message):
    work, _ = project
    result = subprocess.run([str(POPC)] + args.split(), cwd=work, capture_output=True, text=True)
    assert result.returncode == 1
    assert message in result.stderr


def test_popc_reports_compile_errors_with_file_and_line_and_skips_assembly(project):
    work, _ = project
    (work / "bad.cpp").write_text("#include <poplar/Vertex.hpp>\n\nint f() { return undeclared; }\n")
    (work / "kernel.S").write_text("nop\n")
    result = subprocess.run([str(POPC), "bad.cpp", "kernel.S", "-o", "bad.gp"], cwd=work, capture_output=True,
                            text=True)
    assert result.returncode == 1
    assert "skipping IPU assembly 'kernel.S'" in result.stderr
    assert "bad.cpp:3:" in result.stderr and "undeclared" in result.stderr
    assert not (work / "bad.gp").exists()


def test_add_codelets_refuses_broken_foreign_and_mislabelled_objects(project, tmp_path):
    work, _ = project
    good = (work / "codelets.gp").read_bytes()
    _, graph = ipu2_graph()
    cases = {
        "truncated.gp": (good[: len(good) // 2], "is truncated"),
        "flipped.gp": (good[:-100] + bytes([good[-100] ^ 1]) + good[-99:], "checksum does not match"),
        "garbage.gp": (b"not an object at all", "is not a codelet object written by popc"),
        "sdk.gp": (b"\x7fELF\x01\x01\x01" + bytes(64), "is an ELF object, as the Poplar SDK's popc writes"),
        "future.gp": (good[:8] + (99).to_bytes(4, "little") + good[12:], "format version 99"),
    }
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(poplar.graph_program_compilation_error, match=message):
            graph.addCodelets(str(tmp_path / name))
    # An object under another extension is still an object; as C++ it is refused.
    (tmp_path / "codelets.ppo").write_bytes(good)
    assert graph.addCodelets(str(tmp_path / "codelets.ppo"))
    with pytest.raises(poplar.graph_program_compilation_error, match="is a codelet object"):
        graph.addCodelets(str(tmp_path / "codelets.ppo"), poplar.CodeletFileType.CppSource)


def test_an_executable_carries_gp_codelets(project, tmp_path):
    work, _ = project
    device, graph = ipu2_graph()
    graph.addCodelets(str(work / "codelets.gp"))
    x = graph.addConstant(poplar.FLOAT, [4], X.astype(np.float32), "x")
    y = graph.addVariable(poplar.FLOAT, [4], "y")
    for t in (x, y):
        graph.setTileMapping(t, 0)
    cs = graph.addComputeSet("affine")
    graph.setTileMapping(graph.addVertex(cs, "Affine", {"in": x, "out": y, "bias": 0.5}), 0)
    graph.createHostRead("y", y)
    serialized = poplar.compileGraph(graph, [program.Execute(cs)]).serialize()
    (work / "codelets.gp").rename(work / "moved.gp")  # the executable holds the object itself
    try:
        engine = poplar.Engine(poplar.Executable.deserialize(serialized))
        engine.load(device)
        engine.run(0)
        np.testing.assert_allclose(engine.readTensor("y", np.empty(4, np.float32)), X * 3 + 1 + 0.5)
    finally:
        (work / "moved.gp").rename(work / "codelets.gp")
