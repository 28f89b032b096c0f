"""The bindings built as for a real Poplar SDK (POPDSL_BACKEND=sdk) against the SDK-shaped
prefix of the popdsl under test, with only the prefix's include directory (no emulator
internals), then a part of the test suite run on that build in a subprocess.

Slow (a build of bindings/ at -O0, a few minutes on two cores): `pytest -m "not slow"`
deselects it; plain `pytest` (CI) runs it."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import background_builds
import popdsl
from test_python_functions import table as python_functions
from test_sdk_api import declarations

REPO = Path(__file__).resolve().parents[2]

# The tests run on the sdk build. What differs from the emulator build is how bindings/ is
# compiled (the prefix's headers only) and the seam (backend_sdk.cpp), not the Python layer
# or the emulator underneath, so the whole suite would run the same Python and C++ again
# (about 4,300 tests): the subset runs each binding once and the seam everywhere it acts.
# - Every test the SDK manifests (tests/sdk_api) name: each declaration the bindings ship,
#   through its behavioural test, so each binding file's functions run on the sdk build.
# - Every test tests/python_functions.api names: each function bound in popops, popnn,
#   poplin, poputil and gcl, and each the Pythonic layer exports.
# - The whole modules about what backend.hpp declares: engines and their host tensors,
#   streams, host functions and remote buffers (executableInterface, hostTensor), Ctrl-C
#   (runsPauseForSignals), sessions' caches and saved files (executableSections),
#   profiles and seeds (skipped there as needs_emulator), vertex fields (fieldElementType)
#   and replication (broadcastCrossReplica).
# Not run here are the builders' numerics, autodiff and the misuse messages of the Python
# layer, which call the same bindings. Left out entirely: the tests of this build itself,
# of the emulator's prefix and package layout, and scripts run in subprocesses (which
# import the installed popdsl).
NOT_ON_THE_SDK_BUILD = {"test_sdk_backend_build.py", "test_sdk_prefix.py", "test_sdk_api.py",
                        "test_package_import.py", "test_examples.py", "test_readme.py"}
SEAM_MODULES = ["test_engine_controls.py", "test_engine_errors.py", "test_executable.py", "test_interrupts.py",
                "test_profile.py", "test_remote_buffers.py", "test_replication.py", "test_session_lifecycle.py",
                "test_session_weights.py", "test_vertices.py"]


def chosen_tests() -> list:
    """The sdk build's tests, as pytest node ids under tests/python."""
    named = {test for declaration in declarations() for test in declaration.tests}
    named |= {test for tests in python_functions().values() for test in tests}
    named = {t for t in named if t.partition("::")[0] not in NOT_ON_THE_SDK_BUILD | set(SEAM_MODULES)}
    return sorted(named) + SEAM_MODULES


pytestmark = pytest.mark.slow


def _tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def background_build(directory):
    """(the package directory holding popdsl with the sdk-mode _core, the prefix, the build's compile
    commands, build seconds), built under `directory` while the fast tests run (background_builds.py)."""
    if popdsl.backend() != "emulator":
        pytest.skip("builds against the emulator's prefix; this popdsl is itself an sdk build")
    prefix = Path(popdsl.__file__).parent / "sdk"
    assert (prefix / "lib" / "cmake" / "poplar").is_dir(), f"no SDK-shaped prefix at {prefix}"
    import pybind11

    build = Path(directory) / "sdk_build"
    configure = [
        _tool("cmake"), "-S", str(REPO), "-B", str(build), "-DPOPDSL_BACKEND=sdk",
        f"-DCMAKE_PREFIX_PATH={prefix}", f"-Dpybind11_DIR={pybind11.get_cmake_dir()}",
        f"-DPython_EXECUTABLE={sys.executable}",
        # -O0: this build proves the bindings compile, link and behave; it is not timed.
        "-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_CXX_FLAGS_DEBUG=-O0", "-DPOPDSL_BINDINGS_OPTIMIZATION=-O0",
        "-DPOPDSL_BINDINGS_UNITY_BATCH=8",  # a clean build: unity batches (CMakeLists.txt)
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
    ]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    start = time.perf_counter()
    # cwd: a test running meanwhile may change the process's directory (monkeypatch.chdir).
    background_builds.run(configure, check=True, capture_output=True, text=True, cwd=directory)
    result = background_builds.run([_tool("cmake"), "--build", str(build), "--parallel", str(os.cpu_count() or 2)],
                            capture_output=True, text=True, cwd=directory)
    seconds = time.perf_counter() - start
    assert result.returncode == 0, f"the sdk-mode build failed:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"

    package = Path(directory) / "sdk_package"
    package.mkdir()
    shutil.copytree(Path(popdsl.__file__).parent, package / "popdsl",
                    ignore=shutil.ignore_patterns("_core*.so", "sdk", "__pycache__"))
    # The prefix itself, where the installed package has it (tests compile C++ against it).
    (package / "popdsl" / "sdk").symlink_to(prefix, target_is_directory=True)
    (core,) = build.glob("_core*.so")
    shutil.copy2(core, package / "popdsl" / core.name)
    commands = json.loads((build / "compile_commands.json").read_text())
    return package, prefix, commands, seconds


@pytest.fixture(scope="module")
def sdk_build():
    """What background_build returned."""
    return background_builds.result(sys.modules[__name__])


def test_sdk_mode_includes_only_the_prefix_and_compiles_the_sdk_backend(sdk_build):
    package, prefix, commands, seconds = sdk_build
    sources = set()
    for command in commands:  # a unity batch (CMakeLists.txt) compiles the sources it includes
        source = Path(command["file"])
        sources |= {source.name} | {Path(p).name for p in re.findall(r'#include "([^"]+)"', source.read_text())}
    assert "backend_sdk.cpp" in sources and "backend_emulator.cpp" not in sources
    include_dirs = set()
    for c in commands:
        include_dirs |= set(re.findall(r"(?:-I|-isystem )\s*(\S+)", c["command"]))
    # The prefix and the Python environment (pybind11's headers; CI's venv lives in the
    # checkout) may sit inside the repository; nothing else of it may be on the path.
    allowed = (prefix.resolve(), Path(sys.prefix).resolve())
    repo_dirs = [d for d in include_dirs if Path(d).resolve().is_relative_to(REPO)
                 and not any(Path(d).resolve().is_relative_to(a) for a in allowed)]
    assert str((prefix / "include").resolve()) in {str(Path(d).resolve()) for d in include_dirs}
    assert repo_dirs == [], f"sdk mode must not see the emulator's sources or internals: {repo_dirs}"
    print(f"sdk-mode build of bindings/: {seconds:.1f} s")


def test_the_chosen_tests_pass_on_the_sdk_build(sdk_build):
    package, prefix, commands, seconds = sdk_build
    # Options and caches other tests of this process may have set do not travel.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("POPLAR_", "POPDSL_"))}
    env.update(PYTHONPATH=str(package), PYTHONDONTWRITEBYTECODE="1")
    check = subprocess.run([sys.executable, "-c", "import popdsl; print(popdsl.backend(), popdsl.__file__)"],
                           env=env, cwd=package, capture_output=True, text=True, check=True)
    assert check.stdout.split()[0] == "sdk" and check.stdout.split()[1].startswith(str(package))

    tests = [str(REPO / "tests" / "python" / test) for test in chosen_tests()]
    start = time.perf_counter()
    # From the package directory: the repository root must not be on sys.path (its popdsl
    # is the emulator build).
    result = subprocess.run([sys.executable, "-m", "pytest", "-rsf", "-p", "no:cacheprovider",
                             "--rootdir", str(REPO), *tests],
                            env=env, cwd=package, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", result.stdout).group(1))
    skipped = re.search(r"(\d+) skipped", result.stdout)
    assert passed > 1000, result.stdout[-3000:]  # 1,298 tests are chosen, some of them skip there
    # Every skip is an emulator-only feature, named, or an optional package this
    # environment lacks (torch), which the emulator build's run skips as well.
    skip_lines = [l for l in result.stdout.splitlines() if l.startswith("SKIPPED")]
    assert all("needs the emulator backend" in l or "could not import" in l for l in skip_lines), \
        "\n".join(skip_lines)
    assert any("profile data" in l for l in skip_lines)
    print(f"sdk build: {passed} passed, {skipped.group(1) if skipped else 0} skipped in {seconds:.1f} s")


def test_emulator_only_features_raise_not_implemented_on_the_sdk_build(sdk_build):
    package, prefix, commands, seconds = sdk_build
    script = r"""
import numpy as np
import popdsl as pd
from popdsl import poplar, program, poputil
dev = poplar.IPUModel("ipu2"); dev.tilesPerIPU = 4; dev = dev.createDevice()
g = poplar.Graph(dev.getTarget())
t = g.addVariable(poplar.FLOAT, [4], "t"); poputil.mapTensorLinearly(g, t)
seq = program.Sequence()
exe = poplar.compileGraph(g, [seq])
engine = poplar.Engine(exe)
for what, call in [("getProfileData", lambda: engine.getProfileData()),
                   ("setRandomSeed", lambda: engine.setRandomSeed(1)),
                   ("getRandomSeed", lambda: engine.getRandomSeed()),
                   ("_executableSections", lambda: poplar._executableSections(exe)),
                   ("writeProfileReport", lambda: engine.writeProfileReport("."))]:
    try:
        call()
        print(what, "no error")
    except NotImplementedError as e:
        print(what, "NotImplementedError:", e)
# Programs stay hashable, consistently with ==.
# Sessions: the executable cache is skipped with a warning; a saved session loads only with device=.
import logging, os, tempfile
records = []
logging.getLogger("popdsl").addHandler(type("H", (logging.Handler,), {"emit": lambda h, r: records.append(r)})())
pg = pd.Graph(pd.ipu_model(tiles=4)); x = pg.variable(pd.float32, (4,), name="x")
with pd.Sequence("main") as main:
    pd.zero(x)
with tempfile.TemporaryDirectory() as cache:
    session = pd.Session(pg, main, cache_dir=cache)
    print("cache", os.listdir(cache) == [] and any("needs the emulator backend" in r.getMessage() for r in records))
    path = os.path.join(cache, "s.popdsl")
    session.save(path)
    try:
        pd.Session.load(path)
    except pd.SessionError as e:
        print("load", e)
    with pd.Session.load(path, device=pd.ipu_model(tiles=4)) as loaded:
        loaded.run("main")
        print("loaded", loaded.read("x").tolist())
# Vertex field directions: the SDK does not say them, so a vertex's tensors count as read and written.
vg = pd.Graph(pd.ipu_model(tiles=4))
vg.add_codelets("#include <poplar/Vertex.hpp>\nclass Move : public poplar::Vertex {\npublic:\n"
                "  poplar::Input<float> a;\n  poplar::Output<float> b;\n  bool compute() { *b = *a; return true; }\n};\n")
va, vb = vg.variable(pd.float32, (), name="va"), vg.variable(pd.float32, (), name="vb")
with pd.Sequence() as vmain, pd.compute_set("move") as cs:
    cs.vertex("Move", tile=0, a=va, b=vb)
[op] = vmain.tape.records
print("directions", vg.raw._vertexFieldDirections("Move"), [t.name for t in op.inputs], [t.name for t in op.written])
a = program.Sequence(); b = a; c = program.Sequence()
print("hash", hash(a) == hash(b), a == b, a != c, len({a: 1, b: 2, c: 3}))
"""
    env = dict(os.environ, PYTHONPATH=str(package))
    result = subprocess.run([sys.executable, "-c", script], env=env, cwd=package, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    for what in ("getProfileData", "setRandomSeed", "getRandomSeed", "_executableSections", "writeProfileReport"):
        assert lines[what].startswith("NotImplementedError:"), (what, lines[what])
        assert "needs popdsl's emulator backend" in lines[what]
    assert "Engine.getProfileData" in lines["getProfileData"]
    assert "Session.seed" in lines["setRandomSeed"]
    assert lines["hash"] == "True True True 2"
    assert lines["directions"] == "None ['va', 'vb'] ['va', 'vb']"
    assert lines["cache"] == "True"
    assert "needs device= on the sdk backend" in lines["load"]
    assert lines["loaded"] == "[0.0, 0.0, 0.0, 0.0]"
