"""The SDK-shaped prefix (`python -m popdsl sdk`): its headers compile alone as the SDK's
do, C++ programs build with the SDK's plain link line after
`eval "$(python -m popdsl sdk --enable)"` and print what numpy computes, a CMake project
finds the poplar, poplibs and libpva packages, and the libraries link exactly what they use.

Every compiler and CMake run starts at once in a module fixture (they take seconds
each); the tests then check their results."""
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import popdsl
from popdsl import __main__ as cli

PREFIX = Path(popdsl.__file__).resolve().parent / "sdk"
PROGRAMS = Path(__file__).resolve().parent.parent / "cpp"
LIBRARIES = ("poplar", "poputil", "popops", "poplin", "popnn", "poprand", "pva")
STRICT = "-std=c++14 -Wall -Wextra -Werror -pedantic"
LINK_LINE = "-lpoplar -lpopops -lpoputil -lpoplin"

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


def cli_env():
    # `python -m popdsl` in a subprocess imports the popdsl under test (run it outside the
    # repository root, whose popdsl/ would come first), and only what --enable exports
    # tells compilers and the loader where the prefix is.
    env = {k: v for k, v in os.environ.items()
           if k not in ("CPATH", "LIBRARY_PATH", "LD_LIBRARY_PATH", "CMAKE_PREFIX_PATH", "POPLAR_SDK_ENABLED")}
    env["PYTHONPATH"] = str(Path(popdsl.__file__).resolve().parent.parent)
    return env


def run_in_enabled_shell(command, cwd, env, enable_script=None):
    """Runs `command` after `eval "$(python -m popdsl sdk --enable)"`, or after sourcing
    `enable_script` (that command's output, saved once for many commands)."""
    enable = f". {enable_script}" if enable_script else f'eval "$({shlex.quote(sys.executable)} -m popdsl sdk --enable)"'
    return subprocess.run(["bash", "-c", f"{enable} && {command}"], cwd=cwd, env=env, capture_output=True, text=True)


# What SDK users get from poplar/Graph.hpp and poplar/Engine.hpp without including it;
# Engine.hpp also gives program::Sequence.
TRANSITIVE_USE = ("int main() { std::vector<std::string> names(1); assert(names.size() == 1); "
                  "try { throw poplar::poplar_error(\"x\"); } catch (const poplar::poplar_error &) {} "
                  "return std::numeric_limits<int>::max() > 0 ? 0 : 1; }\\n")
ENGINE_USE = "void run(poplar::Engine &engine, const poplar::program::Sequence &) { engine.run(0); }\\n"


# flash_attention.cpp's second run: groups, length, depth, query chunks, key chunks
# (query chunks of 4 rows against key chunks of 6: blocks cut the diagonal unevenly).
FLASH_SHAPE = (1, 12, 3, 3, 2)


def headers():
    return sorted(str(p.relative_to(PREFIX / "include")) for p in (PREFIX / "include").rglob("*.hpp"))


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """name -> CompletedProcess of every build (and run) below, run in parallel."""
    work = tmp_path_factory.mktemp("sdk_builds")
    env = cli_env()
    enable_script = work / "enable.sh"
    enable_script.write_text(subprocess.run([sys.executable, "-m", "popdsl", "sdk", "--enable"], env=env, cwd=work,
                                            capture_output=True, text=True, check=True).stdout)
    jobs = {}
    for header in headers():
        # Alone with -std=c++11; all together with the strict C++14 flags (the C++14-only
        # warnings do not depend on which header comes first).
        jobs[f"header {header}"] = (f"echo '#include <{header}>' | g++ -std=c++11 -Wall -Wextra -Werror "
                                    f"-pedantic -fsyntax-only -x c++ -")
    all_headers = "".join(f"#include <{h}>\\n" for h in headers())
    jobs["all headers strict"] = f"printf '{all_headers}' | g++ {STRICT} -fsyntax-only -x c++ -"
    for header, use in (("poplar/Graph.hpp", TRANSITIVE_USE), ("poplar/Engine.hpp", ENGINE_USE + TRANSITIVE_USE)):
        jobs[f"transitive {header}"] = f"printf '#include <{header}>\\n{use}' | g++ {STRICT} -fsyntax-only -x c++ -"
    for program in ("variables", "matmul_profile", "stream_callbacks", "stream_prefetch"):
        for flags, tag in (("-std=c++11", "c++11"), (STRICT, "strict")):
            exe = work / f"{program}-{tag}"
            jobs[f"{program} {tag}"] = f"g++ {flags} {PROGRAMS / program}.cpp -o {exe} {LINK_LINE} && {exe}"
    for flags, tag in (("-std=c++11", "c++11"), (STRICT, "strict")):
        # Its codelets are found relative to the working directory, as in Poplar's tutorials.
        exe = work / f"row_ops-{tag}"
        jobs[f"row_ops {tag}"] = (f"g++ {flags} {PROGRAMS}/row_ops.cpp -o {exe} {LINK_LINE} && cd {PROGRAMS} && "
                                  f"{exe} && {exe} 3 4 ipu1; {exe} 1 1 hw; echo hardware-exit=$?")
    for flags, tag in (("-std=c++11", "c++11"), (STRICT, "strict")):
        exe = work / f"flash_attention-{tag}"
        jobs[f"flash_attention {tag}"] = (f"g++ {flags} {PROGRAMS}/flash_attention.cpp -o {exe} {LINK_LINE} && "
                                          f"{exe} && {exe} " + " ".join(map(str, FLASH_SHAPE)))
    for flags, tag in (("-std=c++11", "c++11"), (STRICT, "strict")):
        exe = work / f"vertex_api-{tag}"
        jobs[f"vertex_api {tag}"] = f"g++ {flags} {PROGRAMS}/vertex_api.cpp -o {exe} -lpoplar && {exe}"
    # One build with C++11's and the strict warnings at once: each compile costs seconds.
    jobs["popops_rows"] = (f"g++ -std=c++11 -Wall -Wextra -Werror -pedantic {PROGRAMS}/popops_rows.cpp "
                           f"-o {work}/popops_rows {LINK_LINE} && {work}/popops_rows")
    jobs["missing api"] = f"g++ -std=c++11 {PROGRAMS}/missing_api.cpp -o {work}/missing_api {LINK_LINE}"
    if shutil.which("cmake") and (shutil.which("make") or shutil.which("ninja")):
        generator = "Unix Makefiles" if shutil.which("make") else "Ninja"
        build = work / "cmake"
        jobs["cmake"] = (f"cmake -S {PROGRAMS} -B {build} -G '{generator}' -DCMAKE_BUILD_TYPE=Release >/dev/null"
                         f" && cmake --build {build} >/dev/null && {build}/variables && {build}/matmul_profile"
                         f" && mkdir -p {build}/reports && {build}/pva_report {build}/reports")
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {name: pool.submit(run_in_enabled_shell, command, work, env, enable_script)
                   for name, command in jobs.items()}
        return {name: f.result() for name, f in futures.items()}


def succeeded(result):
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def numbers_after(label, text):
    line = next(l for l in text.splitlines() if l.startswith(label))
    return np.array([float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", line[len(label):])])


def test_the_prefix_holds_the_sdk_layout():
    assert (PREFIX / "include" / "poplar" / "Engine.hpp").is_file()
    for library in LIBRARIES:
        assert (PREFIX / "lib" / f"lib{library}.so").is_file()
    assert (PREFIX / "lib" / "cmake" / "poplar" / "poplar-config.cmake").is_file()
    assert (PREFIX / "lib" / "cmake" / "poplibs" / "poplibs-config.cmake").is_file()
    assert (PREFIX / "include" / "pva" / "pva.hpp").is_file()
    assert (PREFIX / "lib" / "cmake" / "libpva" / "libpva-config.cmake").is_file()
    assert (PREFIX / "lib" / "cmake" / "pva" / "pva-config.cmake").is_file()


def test_every_header_compiles_alone_as_cxx11(builds):
    failed = {name: r.stderr for name, r in builds.items() if name.startswith("header ") and r.returncode}
    assert not failed
    assert len(headers()) >= 40


def test_all_headers_compile_with_cxx14_warnings_as_errors(builds):
    succeeded(builds["all headers strict"])


def test_no_public_header_hands_out_the_emulators_internals():
    internals = re.compile(r"\b(state|statePtr|impl|implPtr|node)\(\)|getProfileData|setRandomSeed|ProfileData"
                           r"|programFromNode|executableSections|HostFunctionInfo|fromId|\bid\(\)|kMaxTiles"
                           # the codelet ABI (popdsl_codelet/VertexRegistration.hpp) lives under lib/
                           r"|popdsl_(vertex|field)_info|popdsl_codelet_vertices|VertexRegistration")
    found = [f"{h}: {line.strip()}" for h in headers()
             for line in (PREFIX / "include" / h).read_text().splitlines() if internals.search(line)]
    assert not found
    # The codelet compiler still finds the ABI header, outside the public include directory.
    assert (PREFIX / "lib" / "popdsl" / "codelet" / "popdsl_codelet" / "VertexRegistration.hpp").is_file()


@pytest.mark.parametrize("header", ["poplar/Graph.hpp", "poplar/Engine.hpp"])
def test_graph_and_engine_headers_give_what_sdk_users_rely_on(builds, header):
    succeeded(builds[f"transitive {header}"])


# The values variables.cpp writes: its constant rows and the host's offsets.
ROW = np.array([1.5, -2.0, 4.25])
RAMP_OFFSETS = np.array([0.5, 0.25, -1.0])


@pytest.mark.parametrize("tag", ["c++11", "strict"])
def test_a_variables_program_builds_and_prints_what_numpy_computes(builds, tag):
    out = succeeded(builds[f"variables {tag}"])
    expected = np.concatenate([ROW, ROW + RAMP_OFFSETS])
    np.testing.assert_allclose(numbers_after("host:", out), expected)
    # PrintTensor writes to stderr unless Engine::setPrintTensorStream says otherwise.
    # The build's own warnings come first on stderr (the linker warns under the sanitizers).
    printed = re.search(r"^grid: \[.*", builds[f"variables {tag}"].stderr, re.M | re.S)
    assert printed, builds[f"variables {tag}"].stderr
    np.testing.assert_allclose([float(x) for x in re.findall(r"-?\d+\.\d+", printed.group())], expected)


def matmul_expected():
    a = (0.5 * (np.arange(4 * 8) % 7) - 1.0).reshape(4, 8)
    b = (0.25 * (np.arange(8 * 3) % 5) - 0.5).reshape(8, 3)
    return (a @ b).ravel()


@pytest.mark.parametrize("tag", ["c++11", "strict"])
def test_a_matmul_program_prints_its_product_and_profile(builds, tag):
    out = succeeded(builds[f"matmul_profile {tag}"])
    np.testing.assert_allclose(numbers_after("c:", out), matmul_expected(), rtol=1e-6, atol=1e-6)
    summary = out[out.index("\n") + 1:]
    for section in ("Target", "Memory Usage", "Execution"):
        assert section in summary
    assert "estimated" in summary.lower()


@pytest.mark.parametrize("tag", ["c++11", "strict"])
def test_stream_callback_classes_with_their_own_constructors_feed_and_drain_streams(builds, tag):
    out = succeeded(builds[f"stream_callbacks {tag}"])
    fed = 0.5 * np.arange(1, 4)
    np.testing.assert_allclose(numbers_after("received:", out), fed * fed)


# Per engine option set: the calls of a Counter (1, 2, 3, ... per copy) over two runs of a
# three-copy loop. A copy takes the last successful prefetch, else fetches; prefetch is
# called right after each copy completes, while prefetching is on and buffers cannot overlap.
PREFETCHED = "f1 c p2 c p3 c p4 c p5 c p6 c p7"
FETCHED = "f1 c f2 c f3 c f4 c f5 c f6 c"


@pytest.mark.parametrize("tag", ["c++11", "strict"])
def test_stream_callbacks_prefetch_as_the_engine_options_say(builds, tag):
    out = dict(line.split(": ", 1) for line in succeeded(builds[f"stream_prefetch {tag}"]).splitlines())
    for options, calls in (("default", PREFETCHED), ("no-overlap", PREFETCHED), ("prefetch-off", FETCHED),
                           ("overlap-any", FETCHED)):
        assert out[f"{options} calls"].split() == calls.split()
        # Whichever way it came, the device squares 1..6 in order.
        np.testing.assert_allclose(numbers_after("", out[f"{options} received"]), np.arange(1, 7) ** 2)
    # Every second prefetch says NotAvailable (that copy fetches); connecting another
    # callback, and destroying the engine, invalidate what was prefetched.
    assert out["refusing calls"].split() == "f1 c p2 c p- f3 c p4 | i | f1 c p2 c p3 c p4 | i".split()
    np.testing.assert_allclose(numbers_after("", out["refusing received"]), [1, 4, 9, 1, 4, 9])


def test_a_program_using_an_api_the_emulator_lacks_fails_to_compile_naming_it(builds):
    result = builds["missing api"]
    assert result.returncode != 0
    assert "'histogram' is not a member of 'popops'" in result.stderr.replace("‘", "'").replace("’", "'")


def test_a_cmake_project_finds_poplar_poplibs_and_libpva(builds):
    if "cmake" not in builds:
        pytest.skip("needs cmake and make or ninja")
    out = succeeded(builds["cmake"])
    np.testing.assert_allclose(numbers_after("host:", out), np.concatenate([ROW, ROW + RAMP_OFFSETS]))
    np.testing.assert_allclose(numbers_after("c:", out), matmul_expected(), rtol=1e-6, atol=1e-6)
    assert "checks: 0 failed" in out  # pva_report, through find_package(libpva)


def test_sdk_prefix_prints_the_prefix(tmp_path):
    out = subprocess.run([sys.executable, "-m", "popdsl", "sdk", "--prefix"], env=cli_env(), cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout
    assert out == f"{PREFIX}\n"


@pytest.mark.parametrize("before, after", [(None, ""), ("/opt/a:/opt/b", ":/opt/a:/opt/b")])
def test_sdk_enable_prepends_to_the_search_paths(before, after, tmp_path):
    env = cli_env()
    if before is not None:
        env.update(CPATH=before, LIBRARY_PATH=before, LD_LIBRARY_PATH=before, CMAKE_PREFIX_PATH=before)
    result = run_in_enabled_shell(
        'echo "$CPATH|$LIBRARY_PATH|$LD_LIBRARY_PATH|$CMAKE_PREFIX_PATH|$POPLAR_SDK_ENABLED|$PATH"', tmp_path, env)
    assert succeeded(result).strip().split("|") == [
        f"{PREFIX}/include{after}", f"{PREFIX}/lib{after}", f"{PREFIX}/lib{after}", f"{PREFIX}{after}", str(PREFIX),
        f"{PREFIX}/bin:{env['PATH']}"]


def test_sdk_without_a_prefix_says_so(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli, "sdk_prefix", lambda: str(tmp_path))
    assert cli.main(["sdk", "--enable"]) == 1
    assert capsys.readouterr().err.startswith(f"popdsl sdk: there is no emulator prefix at {tmp_path}")


def test_each_library_links_exactly_what_it_uses():
    needs = {}
    for library in LIBRARIES:
        path = PREFIX / "lib" / f"lib{library}.so"
        dynamic = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
        needs[library] = sorted(re.findall(r"\(NEEDED\).*\[lib(pop\w+)\.so\]", dynamic))
        # ldd -u: direct dependencies no symbol comes from; -r: symbols nothing defines.
        unused = subprocess.run(["ldd", "-u", "-r", str(path)], capture_output=True, text=True).stdout
        assert "undefined symbol" not in unused
        assert not re.search(r"lib(pop\w+|scipy_openblas)", unused), unused
    assert needs == {"poplar": [], "poputil": ["poplar"], "popops": ["poplar", "poputil"],
                     "poplin": ["poplar", "popops", "poputil"], "popnn": ["poplar", "poplin", "popops", "poputil"],
                     "poprand": ["poplar"], "pva": ["poplar"]}


def test_the_extension_uses_the_prefix_libraries_once():
    maps = Path("/proc/self/maps").read_text()
    loaded = {line.split()[-1] for line in maps.splitlines() if "libpoplar.so" in line}
    assert loaded == {str(PREFIX / "lib" / "libpoplar.so")}


def causal_attention_reference(groups, length, depth):
    """float64 softmax(Q K^T + M) V with M = -10000 above the diagonal, and each row's
    log-sum-exp, for qkv[i] = sin(0.37 i) as flash_attention.cpp fills it."""
    q, k, v = np.sin(0.37 * np.arange(3 * groups * length * depth)).reshape(3, groups, length, depth)
    scores = q @ k.transpose(0, 2, 1) + np.triu(np.full((length, length), -10000.0), 1)
    top = scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores - top)
    total = weights.sum(axis=-1, keepdims=True)
    return ((weights / total) @ v).ravel(), (top + np.log(total)).ravel()


@pytest.mark.parametrize("tag", ["c++11", "strict"])
def test_causal_flash_attention_in_cxx_matches_numpy(builds, tag):
    lines = succeeded(builds[f"flash_attention {tag}"]).splitlines()
    # Two runs of two lines each: the default shape (2 groups, 8 rows, depth 4), then FLASH_SHAPE's.
    for run, shape in ((lines[0:2], (2, 8, 4)), (lines[2:4], FLASH_SHAPE[:3])):
        expected_out, expected_lse = causal_attention_reference(*shape)
        np.testing.assert_allclose(numbers_after("out:", "\n".join(run)), expected_out, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(numbers_after("lse:", "\n".join(run)), expected_lse, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("tag", ["c++11", "strict"])
def test_perf_estimators_and_field_limits_from_cxx(builds, tag):
    out = succeeded(builds[f"vertex_api {tag}"])
    # Scale: 6 inputs x factor 3 + 6 workers (a lambda returning a plain count); Rows:
    # 100 x 2 + 4 elements, flops 10 x its constant bias 0.5 + compute set id 0.
    assert "estimates: 24 0 204 5\n" in out
    # DeltaN list count, SHORT_SPAN, SPAN, then unsigned short's range three ways.
    assert "limits: 4294967295 2047 4294967295 65535.0 65535 65535\n" in out
    assert ("error: Graph::getMaxVertexFieldValueAs: the largest value of field 'factor' of vertex type 'Scale' "
            "(unsigned short: 65535) is not exactly representable as an 8-bit integer\n") in out
    assert "y: 3 6 9 12 15 18\ntotal: 21.5\n" in out


@pytest.mark.parametrize("tag", ["c++11", "strict"])
def test_a_program_with_custom_vertices_builds_and_runs_like_an_sdk_program(builds, tag):
    out = succeeded(builds[f"row_ops {tag}"])
    assert "target ipu2: 1472 tiles, 6 workers, 4 exchange bytes/cycle" in out
    assert "target ipu1: 1216 tiles, 6 workers, 4 exchange bytes/cycle" in out
    # Programs: 0 zeroes the counts; 1 streams the matrix in, sums each row with RowTotal,
    # then column 0 += 0.5 * totals (ScaleAdd<float>) and counts += 3 (ScaleAdd<int>).
    for rows, cols in ((6, 5), (3, 4)):
        matrix = (np.arange(rows * cols) % 7 - 2.5).reshape(rows, cols)
        text = out.split(f"target ipu{2 if rows == 6 else 1}")[1]
        np.testing.assert_array_equal(numbers_after("column 0 after:", text), matrix[:, 0] + 0.5 * matrix.sum(axis=1))
        np.testing.assert_array_equal(numbers_after("counts:", text), np.full(rows, 6))
    # The hardware path compiles against the SDK's DeviceManager API; the emulator lists no IPUs.
    assert "hardware IPUs: 0\nhardware-exit=2" in out


def printed_rows(text):
    """label -> values of each `label: v v ...` line popops_rows prints (nan included)."""
    rows = {}
    for line in text.splitlines():
        label, colon, values = line.partition(":")
        if colon and label.isidentifier():
            rows[label] = values.split()
    return rows


def test_a_program_using_the_smaller_popops_headers_prints_what_numpy_computes(builds):
    rows = printed_rows(succeeded(builds["popops_rows"]))
    got = {label: np.array([float(v) for v in values]) for label, values in rows.items() if label != "params"}
    matrix = (10 * np.sin(0.37 * np.arange(21))).astype(np.float32).astype(np.float64).reshape(3, 7)
    keys = ((3 * np.arange(16)) % 5).reshape(2, 8)
    # Ranges, one-hot rows (labels 2, 0, masked, 4) and the loops' sums.
    np.testing.assert_array_equal(got["signedRange"], np.arange(-3, 3))
    np.testing.assert_array_equal(got["unsignedRange"], np.arange(5, 10))
    np.testing.assert_array_equal(got["offsetRange"], np.arange(11, 15))
    one_hot = np.zeros((4, 5))
    one_hot[[0, 1, 3], [2, 0, 4]] = 1
    np.testing.assert_array_equal(got["oneHot"], one_hot.ravel())
    np.testing.assert_array_equal(got["oneHotOnOff"], np.where(one_hot == 1, 7, -1).ravel())
    assert got["counterSum"][0] == sum(range(2, 11, 3)) and got["passes"][0] == 4
    assert got["forSum"][0] == sum(range(10, -2, -3)) and got["upPasses"][0] == len(range(0, 6, 2))
    # Sorts, and sorts by tied keys (stable).
    np.testing.assert_allclose(got["sortRows"], np.sort(matrix, axis=1).ravel(), rtol=1e-7)
    np.testing.assert_allclose(got["sortColumns"], np.sort(matrix, axis=0).ravel(), rtol=1e-7)
    order = np.argsort(keys, axis=1, kind="stable")
    np.testing.assert_array_equal(got["sortKeyValue"], np.take_along_axis(np.arange(16).reshape(2, 8), order, 1).ravel())
    np.testing.assert_array_equal(got["keysSorted"], np.sort(keys, axis=1).ravel())
    values = matrix.ravel()[:16].reshape(2, 8)
    np.testing.assert_allclose(got["valuesSorted"], np.take_along_axis(values, order, 1).ravel(), rtol=1e-7)
    # Top k: the 3 largest descending, the 2 smallest in row order, the 4 largest tied keys ascending.
    np.testing.assert_allclose(got["topLargest"], -np.sort(-matrix, axis=1)[:, :3].ravel(), rtol=1e-7)
    smallest = np.sort(np.argsort(matrix, axis=1, kind="stable")[:, :2], axis=1)
    np.testing.assert_allclose(got["topSmallestUnordered"], np.take_along_axis(matrix, smallest, 1).ravel(), rtol=1e-7)
    largest = np.argsort(-keys, axis=1, kind="stable")[:, :4]
    ascending = np.take_along_axis(largest, np.argsort(np.take_along_axis(keys, largest, 1), axis=1, kind="stable"), 1)
    np.testing.assert_array_equal(got["topPositions"], ascending.ravel())
    np.testing.assert_array_equal(got["topKeys"], np.take_along_axis(keys, ascending, 1).ravel())
    payload = ((3 * np.arange(21)) % 5).reshape(3, 7)
    two_smallest = np.argsort(matrix, axis=1, kind="stable")[:, :2]
    np.testing.assert_allclose(got["keyValueKeys"], np.take_along_axis(matrix, two_smallest, 1).ravel(), rtol=1e-7)
    np.testing.assert_array_equal(got["keyValueValues"], np.take_along_axis(payload, two_smallest, 1).ravel())
    np.testing.assert_allclose(got["gathered"], matrix[:, [6, 0]].ravel(), rtol=1e-7)
    np.testing.assert_array_equal(got["histogram"], np.bincount(np.searchsorted([-5, 0, 5], matrix.ravel(), "right"),
                                                                minlength=4))
    np.testing.assert_allclose(got["newest"], matrix[2], rtol=1e-7)
    np.testing.assert_allclose(got["older"], matrix[1], rtol=1e-7)
    # Row scalars for picks 4, 9 (past the row) and the masked label.
    np.testing.assert_allclose(got["selected"], [matrix[0, 4], np.nan, 0.0], rtol=1e-7)
    updated = matrix.copy()
    updated[0, 4] -= 1
    updated[1] = np.nan
    np.testing.assert_allclose(got["updated"], updated.ravel(), rtol=1e-7)
    checks = {k: got[k][0] for k in ("allTrue", "allTrueOfRest", "hasNaN", "hasNaNOfFirstRow",
                                     "hasNaNOrInfOfRatios", "hasNaNOrInfOfMatrix")}
    assert checks == {"allTrue": 0, "allTrueOfRest": 1, "hasNaN": 1, "hasNaNOfFirstRow": 0,
                      "hasNaNOrInfOfRatios": 1, "hasNaNOrInfOfMatrix": 0}
    assert rows["params"] == ["{k=3,", "largest=true,", "sortOrder=descending,", "stableSort=false}", "none"]
