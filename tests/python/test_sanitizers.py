"""The emulator's most exposed code under AddressSanitizer and UndefinedBehaviorSanitizer,
sized for every run of the suite: libpopops (expression evaluation, the popops kernels'
parameter decoding and operand checks, dynamic slices, reductions, casts, fills) is
built again with the sanitizers, and the test modules that drive it at its edges run
against it in a child interpreter: integer arithmetic at the wrapping edges, float to
integer casts out of range, dynamic slices at out-of-range offsets, mutated executables.
Any sanitizer report aborts that child, which fails this test.

Marked slow: building libpopops with the sanitizers in unity batches took 209 CPU-seconds on
the busy 2-core machine (266 one source at a time), no ccache, and the workload about a
minute; CI's plain `pytest` runs it.

The whole emulator and the bindings under the sanitizers, over the whole suite:
tests/sanitize.sh (docs/developing.rst, Sanitizers)."""
import concurrent.futures
import os
import subprocess
import sys
from pathlib import Path

import pytest

import background_builds
import popdsl
from cpp_build import PREFIX, ROOT, compiler

pytestmark = [pytest.mark.slow, pytest.mark.needs_emulator("builds the emulator's libpopops from its sources")]

HERE = Path(__file__).resolve().parent
WORKLOAD = ["test_popops_map.py", "test_popops_expr_tree.py", "test_popops_data.py", "test_executable_fuzz.py"]
# float-cast-overflow is not part of GCC's "undefined"; nothing recovers, so the first
# report ends the process. -O1: a fraction of -O0's run time for a few seconds more build.
SANITIZE = ["-fsanitize=address,undefined", "-fsanitize=float-cast-overflow", "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer"]
COMPILE = ["-std=c++17", "-O1", "-fPIC", *SANITIZE, f"-I{ROOT / 'emulator' / 'include'}",
           f"-I{ROOT / 'emulator' / 'internal'}", f"-I{ROOT / 'emulator' / 'src'}"]
# Sources per unity batch: the headers parsed once per 8 sources, and batches for both workers.
UNITY_BATCH = 8


def sanitizer_preload():
    """What to preload into the uninstrumented interpreter: the AddressSanitizer runtime
    (it must come first), then libstdc++, whose __cxa_throw ASan intercepts and must find
    at start-up (Python does not link it). Skips when the compiler cannot link a program
    with both sanitizers."""
    if "libasan" in Path("/proc/self/maps").read_text():
        pytest.skip("this run is under the sanitizers already (tests/sanitize.sh)")
    libraries = [background_builds.run([compiler(), f"-print-file-name={name}"], capture_output=True,
                                       text=True).stdout.strip()
                 for name in ("libasan.so", "libstdc++.so")]
    probe = background_builds.run([compiler(), *SANITIZE, "-x", "c++", "-", "-o", os.devnull],
                                  input="int main() {}", capture_output=True, text=True)
    if not all(os.path.isabs(library) for library in libraries) or probe.returncode != 0:
        pytest.skip(f"the compiler cannot build with {' '.join(SANITIZE[:2])}: {probe.stderr.strip()[-300:]}")
    return " ".join(libraries)


def background_build(directory):
    """(`directory`, now holding libpopops.so built with the sanitizers, linking the libraries of
    the popdsl under test (whose libpoplar and libpoputil it was built with); what to preload).
    Started while the fast tests run (background_builds.py)."""
    preload = sanitizer_preload()
    out = Path(directory)
    sources = sorted((ROOT / "emulator" / "src" / "popops").glob("*.cpp"))
    # Unity sources of UNITY_BATCH sources in order, so the headers are parsed once per batch,
    # not once per source.
    units = [sources[i:i + UNITY_BATCH] for i in range(0, len(sources), UNITY_BATCH)]

    def build(index):
        unit = out / f"popops_unity_{index}.cpp"
        unit.write_text("".join(f'#include "{source}"\n' for source in units[index]))
        obj = out / f"popops_unity_{index}.o"
        background_builds.run([compiler(), *COMPILE, "-c", str(unit), "-o", str(obj)], check=True, cwd=out)
        return str(obj)

    with concurrent.futures.ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        objects = list(pool.map(build, range(len(units))))
    lib = PREFIX / "lib"
    background_builds.run([compiler(), "-shared", *SANITIZE, *objects, "-o", str(out / "libpopops.so"),
                    "-Wl,-soname,libpopops.so", "-Wl,--no-undefined", f"-L{lib}", f"-Wl,-rpath,{lib}",
                    "-lpoplar", "-lpoputil"], check=True, cwd=out)
    return out, preload


@pytest.fixture(scope="module")
def sanitized_popops():
    """(the directory of the sanitized libpopops.so, what to preload)."""
    return background_builds.result(sys.modules[__name__])


def sanitized_env(library_dir, preload, reports):
    """The environment of an interpreter whose libpopops is the sanitized one: the
    extension's RUNPATH comes after LD_LIBRARY_PATH. abort_on_error: a report ends the
    process with SIGABRT, which the fuzz test's worker counts as a crash (an exit status
    would read as a clean stop). No leak checking: CPython keeps memory until exit by
    design. ASan's reserved address space rules out the fuzz test's RLIMIT_AS, so
    max_allocation_size_mb bounds allocations instead, and one beyond it is a report with
    the allocating stack (not a one-line warning and a null pointer: no workload allocates
    that much). Reports go to files `reports`.<pid> (pytest's capture would lose them
    when the child aborts)."""
    return dict(os.environ, LD_PRELOAD=preload, LD_LIBRARY_PATH=str(library_dir),
                PYTHONPATH=str(Path(popdsl.__file__).resolve().parents[1]),
                ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=0:max_allocation_size_mb=4096"
                             f":log_path={reports}",
                UBSAN_OPTIONS=f"print_stacktrace=1:abort_on_error=1:log_path={reports}")


def test_the_child_runs_on_the_sanitized_library(sanitized_popops, tmp_path):
    library_dir, preload = sanitized_popops
    script = ("import popdsl\n"
              "print('\\n'.join(sorted({l.split()[-1] for l in open('/proc/self/maps') if '.so' in l})))")
    result = subprocess.run([sys.executable, "-c", script], env=sanitized_env(library_dir, preload, tmp_path / "report"),
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    mapped = result.stdout.split()
    assert str(library_dir / "libpopops.so") in mapped
    assert not [m for m in mapped if m.endswith("/libpopops.so") and m != str(library_dir / "libpopops.so")]
    assert any(Path(m).name.startswith("libasan.so") for m in mapped)


def test_popops_workload_is_sanitizer_clean(sanitized_popops, tmp_path):
    library_dir, preload = sanitized_popops
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
                             *[str(HERE / module) for module in WORKLOAD]],
                            env=sanitized_env(library_dir, preload, tmp_path / "report"), cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    reports = "".join(report.read_text() for report in tmp_path.glob("report.*"))
    assert not reports, reports[-8000:]
    # 0: every test collected passed, and there were some (no tests collected is 5)
    assert result.returncode == 0, f"{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
