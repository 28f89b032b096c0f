"""The emulator compiles each library's KERNELS sources at -O3 and the rest at -Og
(emulator/CMakeLists.txt): a source whose code runs while programs run must be on its
library's list, or its loops run unvectorized without any test failing. The signs of such
code: a kernel kind (its compile step makes the closure that runs), work cut over the
thread pool, a program step's run() (the engine's steps, inline in Steps.hpp, compile where
it is included), the engine's step loop."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EMULATOR = ROOT / "emulator"
RUNTIME_CODE = re.compile(r"KernelKind \w+\(|parallelFor\(|parallelBlocks\(|void run\(\) override|"
                          r'#include "Steps\.hpp"|EngineState::execute\(\)')
# Sources with those signs whose run-time part is too small to matter, and why.
NOT_KERNELS = {
    "popops/ElementWise.cpp": "the map's kind only hands the expression to ExprEval.cpp, whose code runs",
    "poplar/FunctionBuffer.cpp": "its steps' run() marks a buffer loaded: one store a call",
}


def kernel_lists():
    """{library: [its KERNELS sources, as 'library/Name.cpp']} from emulator/CMakeLists.txt."""
    text = (EMULATOR / "CMakeLists.txt").read_text()
    lists = {}
    for name, arguments in re.findall(r"^emulator_library\((\w+)([^)]*)\)", text, re.MULTILINE):
        words = arguments.split()
        kernels = words[words.index("KERNELS") + 1:] if "KERNELS" in words else []
        kernels = kernels[:kernels.index("USES")] if "USES" in kernels else kernels
        lists[name] = [f"{name}/{kernel}.cpp" for kernel in kernels]
    return lists


def test_every_library_is_listed():
    libraries = {path.name for path in (EMULATOR / "src").iterdir() if list(path.glob("*.cpp"))}
    assert set(kernel_lists()) == libraries


def test_every_kernel_named_exists():
    for kernels in kernel_lists().values():
        for kernel in kernels:
            assert (EMULATOR / "src" / kernel).is_file(), f"KERNELS names {kernel}, which is not a source"


SOURCES = sorted(str(path.relative_to(EMULATOR / "src")) for path in (EMULATOR / "src").glob("*/*.cpp"))
RUNTIME_SOURCES = [source for source in SOURCES
                   if RUNTIME_CODE.search((EMULATOR / "src" / source).read_text()) and source not in NOT_KERNELS]


def test_the_signs_find_the_kernels():
    assert {"popops/ExprEval.cpp", "poplin/FewRowsGemm.cpp", "poplar/EngineState.cpp",
            "poplar/ProgramCompiler.cpp"} <= set(RUNTIME_SOURCES)


@pytest.mark.parametrize("source", RUNTIME_SOURCES)
def test_code_that_runs_with_programs_compiles_at_O3(source):
    library = source.split("/")[0]
    assert source in kernel_lists()[library], (
        f"{source} has code that runs while programs run; add it to emulator_library({library} KERNELS ...) "
        "in emulator/CMakeLists.txt, or to NOT_KERNELS here with the reason")


def test_the_exceptions_still_have_run_time_code():
    for source in NOT_KERNELS:
        assert RUNTIME_CODE.search((EMULATOR / "src" / source).read_text()), f"{source} needs no exception now"
