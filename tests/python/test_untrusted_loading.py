"""Loading never runs code unasked: Session.load refuses a file with codelets unless
trust_codelets=True, an executable cache entry is compared with the graph before anything
in it is built, and the codelet cache loads only libraries whose SHA-256 matches their
record, from a private directory. A codelet with a constructor (it leaves a file when its
library is loaded) shows whether code ran; each check that needs a process that has not
loaded the library yet runs in a fresh interpreter."""
import json
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import popdsl as pd
from popdsl import saved_session
from popdsl.executable_cache import EXECUTABLE_MARKER

from mutations import with_checksum

pytestmark = pytest.mark.needs_emulator("codelets compiled on the host and the emulator's executable format")

PACKAGE_PARENT = Path(pd.__file__).resolve().parents[1]


def scaling_codelet(vertex: str, factor: int) -> str:
    """A vertex that multiplies its float data by `factor`."""
    return textwrap.dedent(f"""
        #include <poplar/Vertex.hpp>
        class {vertex} : public poplar::Vertex {{
        public:
          poplar::InOut<poplar::Vector<float>> data;
          bool compute() {{
            for (auto &x : data) x *= {factor};
            return true;
          }}
        }};
        """)


def marking_codelet(mark: Path) -> str:
    """The vertex "Doubler", in a library whose constructor creates `mark`."""
    return textwrap.dedent(f"""
        #include <cstdio>
        __attribute__((constructor)) static void leaveAMark() {{
          if (FILE *f = std::fopen("{mark}", "w")) std::fclose(f);
        }}
        """) + scaling_codelet("Doubler", 2)


def doubling_session(mark: Path) -> pd.Session:
    """x (4 floats, init 1..4) doubled by the marking codelet's vertex."""
    g = pd.Graph(pd.ipu_model(tiles=4))
    g.add_codelets(marking_codelet(mark))
    x = g.variable(pd.float32, (4,), name="x", init=np.arange(1, 5, dtype=np.float32), mapping=0)
    with pd.Sequence() as main:
        with pd.compute_set("double") as cs:
            cs.vertex("Doubler", tile=0, data=x)
    return pd.Session(g, main, device=pd.ipu_model(tiles=4))


def fresh_python(tmp_path: Path, code: str, codelet_cache: Path, **env) -> subprocess.CompletedProcess:
    """Runs `code` in a new interpreter (no codelet library loaded yet) with its own codelet cache."""
    environment = dict(os.environ, PYTHONPATH=str(PACKAGE_PARENT), POPDSL_CACHE_DIR=str(codelet_cache), **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env=environment)


def test_load_refuses_codelets_unless_trusted_and_runs_none(tmp_path):
    mark = tmp_path / "constructor-ran"
    doubling_session(mark).save(tmp_path / "s.popdsl")
    mark.unlink()  # this process loaded the library when it built the graph
    refused = fresh_python(tmp_path, """
        import popdsl as pd
        try:
            pd.Session.load("s.popdsl")
        except pd.SessionError as e:
            print(e)
        """, tmp_path / "cache")
    assert refused.returncode == 0, refused.stderr
    assert "has codelets ['<codelet source>']" in refused.stdout and "trust_codelets=True" in refused.stdout
    assert not mark.exists(), "loading without trust_codelets ran the codelet's constructor"
    assert not list((tmp_path / "cache").glob("codelets/*.so")), "loading without trust compiled the codelets"
    trusted = fresh_python(tmp_path, """
        import popdsl as pd
        with pd.Session.load("s.popdsl", trust_codelets=True) as s:
            s.run()
            print(s.read("x").tolist())
        """, tmp_path / "cache")
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.split("\n")[0] == "[2.0, 4.0, 6.0, 8.0]"  # 1..4 doubled
    assert mark.exists()


def test_trust_codelets_must_be_a_bool(tmp_path):
    with pytest.raises(TypeError, match="trust_codelets must be a bool, got str 'yes'"):
        pd.Session.load(tmp_path / "unused", trust_codelets="yes")


def test_a_cache_entry_for_another_graph_compiles_nothing(tmp_path, caplog):
    mark = tmp_path / "constructor-ran"
    planted = doubling_session(mark).executable.serialize()
    mark.unlink()
    # Fill the cache with this graph's entry, then put the marking graph's executable in its place.
    building = """
        import logging, numpy as np, popdsl as pd
        logging.basicConfig(level=logging.INFO)
        g = pd.Graph(pd.ipu_model(tiles=4))
        x = g.variable(pd.float32, (4,), name="x", init=np.arange(4, dtype=np.float32))
        with pd.Sequence() as main:
            x *= 3
        with pd.Session(g, main, device=pd.ipu_model(tiles=4), cache_dir="executables") as s:
            s.run()
            print(s.read("x").tolist())
        """
    first = fresh_python(tmp_path, building, tmp_path / "cache")
    assert first.returncode == 0, first.stderr
    [entry] = (tmp_path / "executables").glob("*.popexe")
    entry.write_bytes(planted)
    second = fresh_python(tmp_path, building, tmp_path / "cache")
    assert second.returncode == 0, second.stderr
    assert second.stdout.split("\n")[0] == "[0.0, 3.0, 6.0, 9.0]"
    assert "is not for this graph" in second.stderr
    assert not mark.exists(), "a cache entry for another graph ran its codelet's constructor"


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_cache_entry_that_is_not_a_regular_file_is_compiled_again(tmp_path, caplog, kind):
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (2,), name="x", init=[1, 2])
    with pd.Sequence() as main:
        x += 1
    pd.Session(g, main, device=pd.ipu_model(tiles=4), cache_dir=tmp_path)
    [entry] = tmp_path.glob("*.popexe")
    entry.unlink()
    if kind == "fifo":  # reading would wait for a writer for ever
        os.mkfifo(entry)
    else:  # reading would never end
        entry.symlink_to("/dev/zero")
    with caplog.at_level("WARNING", logger="popdsl"):
        with pd.Session(g, main, device=pd.ipu_model(tiles=4), cache_dir=tmp_path) as s:
            s.run()
            np.testing.assert_array_equal(s.read(x), [2, 3])
    assert "is not a regular file" in caplog.text
    assert entry.is_file() and not entry.is_symlink()  # replaced by the entry just compiled


def cached_libraries(cache: Path):
    """{record path: library path} of the codelet cache."""
    return {record: cache / "codelets" / (record.read_text() + ".so")
            for record in (cache / "codelets").glob("*.library")}


def run_scaling_vertex(tmp_path: Path, cache: Path, vertex: str, factor: int) -> subprocess.CompletedProcess:
    """Adds scaling_codelet(vertex, factor) and prints what its vertex makes of [1, 2, 3], in a
    fresh interpreter with the codelet cache `cache`."""
    return fresh_python(tmp_path, f"""
        import popdsl as pd
        g = pd.Graph(pd.ipu_model(tiles=4))
        g.add_codelets({scaling_codelet(vertex, factor)!r})
        x = g.variable(pd.float32, (3,), name="x", init=[1, 2, 3], mapping=0)
        with pd.Sequence() as main:
            with pd.compute_set("scale") as cs:
                cs.vertex({vertex!r}, tile=0, data=x)
        with pd.Session(g, main, device=pd.ipu_model(tiles=4)) as s:
            s.run()
            print(s.read("x").tolist())
        """, cache)


def test_a_planted_library_in_the_codelet_cache_is_not_loaded(tmp_path):
    mark = tmp_path / "constructor-ran"
    cache = tmp_path / "cache"
    first = run_scaling_vertex(tmp_path, cache, "Double", 2)
    assert first.returncode == 0, first.stderr
    [library] = cached_libraries(cache).values()
    original = library.read_bytes()
    # The planted library: another shared object with a constructor, under the recorded name.
    source = tmp_path / "planted.cpp"
    source.write_text(f'#include <cstdio>\n__attribute__((constructor)) static void mark() '
                      f'{{ if (FILE *f = std::fopen("{mark}", "w")) std::fclose(f); }}\n')
    subprocess.run(["g++", "-shared", "-fPIC", "-o", str(library), str(source)], check=True, timeout=120)
    second = run_scaling_vertex(tmp_path, cache, "Double", 2)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split("\n")[0] == "[2.0, 4.0, 6.0]"
    assert not mark.exists(), "the codelet cache loaded a library that does not match its record"
    assert library.read_bytes() == original  # compiled again and stored again


def test_a_truncated_library_in_the_codelet_cache_is_compiled_again(tmp_path):
    cache = tmp_path / "cache"
    assert run_scaling_vertex(tmp_path, cache, "Triple", 3).returncode == 0
    [library] = cached_libraries(cache).values()
    original = library.read_bytes()
    library.write_bytes(original[:len(original) // 2])  # what a full disk or a killed writer leaves
    again = run_scaling_vertex(tmp_path, cache, "Triple", 3)
    assert again.returncode == 0, again.stderr  # no SIGBUS
    assert again.stdout.split("\n")[0] == "[3.0, 6.0, 9.0]"
    assert library.read_bytes() == original


def test_a_codelet_cache_others_can_write_is_not_used(tmp_path):
    cache = tmp_path / "cache"
    (cache / "codelets").mkdir(parents=True)
    (cache / "codelets").chmod(0o777)
    run = run_scaling_vertex(tmp_path, cache, "Quintuple", 5)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[0] == "[5.0, 10.0, 15.0]"
    assert "is not used (others can write to it: mode 777)" in run.stderr
    assert not list((cache / "codelets").iterdir())


# --- manifests that name impossible sizes ------------------------------------------------
def saved(tmp_path: Path) -> Path:
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (2, 3), name="x", init=np.ones((2, 3), np.float32))
    with pd.Sequence() as main:
        x += 1
    path = tmp_path / "m.popdsl"
    pd.Session(g, main, device=pd.ipu_model(tiles=4)).save(path)
    return path


def rewrite_manifest(path: Path, change) -> None:
    data = path.read_bytes()
    start = len(saved_session.MAGIC)
    (length,) = struct.unpack_from("<Q", data, start)
    manifest = json.loads(data[start + 8:start + 8 + length])
    change(manifest)
    header = json.dumps(manifest).encode()
    path.write_bytes(data[:start] + struct.pack("<Q", len(header)) + header + data[start + 8 + length:])


@pytest.mark.parametrize("change, problem", [
    # 2**32 * 2**32 elements: a 64-bit product wraps to 0, which numpy's prod would accept.
    (lambda m: m["tensors"][0].update(shape=[2 ** 32, 2 ** 32]), r"tensors\[0\] has an invalid 'shape'"),
    (lambda m: m.update(replicas=2 ** 40), r"'replicas' is not an int from 1 to 2\*\*20: 1099511627776"),
    (lambda m: m.update(replicas=2 ** 20, weight_replicas=[0, 1]), "more than the emulator's 1048576 tiles"),
])
def test_impossible_sizes_in_a_manifest_raise_session_error(tmp_path, change, problem):
    path = saved(tmp_path)
    rewrite_manifest(path, change)
    with pytest.raises(pd.SessionError, match=problem):
        pd.Session.load(path)


def test_a_non_utf8_kernel_kind_in_the_executable_raises_session_error(tmp_path):
    path = saved(tmp_path)
    data = path.read_bytes()
    # The kernel kind of `x += 1` made invalid UTF-8, with a checksum that matches again.
    executable_at = data.index(EXECUTABLE_MARKER)
    kind_at = data.index(b"popops::map", executable_at)
    body = data[executable_at:kind_at] + b"\xff" + data[kind_at + 1:-8]
    path.write_bytes(data[:executable_at] + with_checksum(body))
    with pytest.raises(pd.SessionError, match=r"the file's executable cannot be read: .*\\xffopops::map"):
        pd.Session.load(path)
