"""Session lifecycle: the executable cache, save/load, weights, attach/detach, host
callbacks and seeds. Numbers are checked against float64 numpy references."""
import concurrent.futures
import json
import logging
import os
import struct
import threading
import time
import sys

import numpy as np
import pytest

import popdsl as pd
from popdsl import popops, poplar
from popdsl import program as raw_program
from popdsl.control import emit

X = np.arange(32, dtype=np.float32).reshape(4, 8) / 16 - 1
W = np.linspace(-1, 1, 16, dtype=np.float32).reshape(8, 2)
TABLE = np.arange(12, dtype=np.float32).reshape(6, 2)


@pytest.fixture(autouse=True)
def no_options_or_cache_from_the_environment(monkeypatch):
    monkeypatch.delenv("POPLAR_ENGINE_OPTIONS", raising=False)
    monkeypatch.delenv("POPDSL_CACHE_DIR", raising=False)


@pytest.fixture
def device():
    return pd.ipu_model(tiles=4)


def build_model(device, offset=1.0):
    """A graph using every kernel kind: map, matmul, softmax (+ gradient), reduce, dynamic
    slice and update, multi-slice, scaled add, cast and fill."""
    g = pd.Graph(device)
    x = g.variable(pd.float32, (4, 8), name="x", init=X)
    w = g.constant(W, name="w")
    table = g.constant(TABLE, name="table")
    i = g.variable(pd.uint32, (1,), name="i", init=2)
    with pd.Sequence("main") as main:
        y = pd.matmul(x, w, name="y")
        z = pd.map(lambda a: a * 2 + offset, y, name="z")
        soft = pd.nonlinearity(z, "softmax", name="soft")
        grad = pd.nonlinearity_grad(soft, z, "softmax", name="grad")
        total = pd.reduce_sum(soft, axis=1, name="total")
        row = x.at[i].get(name="row")
        x.at[i].set(row * 3, name="x_update")
        counts = pd.cast(row * 16, pd.int32, name="counts")
        filled = g.variable(pd.float32, (3,), name="filled")
        pd.fill(filled, 7.5)
        raw_steps = raw_program.Sequence()  # library calls the Pythonic layer does not wrap
        picked = g.track(pd.Tensor(popops.multiSlice(g.raw, table.raw, [5, 0, 2], 0, raw_steps), g))
        popops.scaledAddTo(g.raw, y.raw, z.raw, 0.5, raw_steps)
        emit(raw_steps)
    return g, main, dict(y=y, z=z, soft=soft, grad=grad, total=total, row=row, picked=picked,
                         counts=counts, filled=filled)


def reference(offset=1.0):
    x = X.astype(np.float64)
    y = x @ W
    z = y * 2 + offset
    soft = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    grad = soft * (z - (z * soft).sum(axis=1, keepdims=True))
    row = x[2]
    return dict(y=y + 0.5 * z, z=z, soft=soft, grad=grad, total=soft.sum(axis=1), row=row,
                picked=TABLE[[5, 0, 2]].reshape(3, 1, 2), counts=(row * 16).astype(np.int32),
                filled=np.full(3, 7.5), x=np.vstack([x[:2], 3 * x[2:3], x[3:]]))


def check_results(session, names_or_tensors, offset=1.0):
    expected = reference(offset)
    for name, t in names_or_tensors.items():
        got = session.read(t)
        np.testing.assert_allclose(got.reshape(np.shape(expected[name])), expected[name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)


# --- the executable cache ------------------------------------------------------------------


def cache_messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "popdsl"]


@pytest.mark.needs_emulator("the executable cache (canonical executable sections)")
def test_cache_miss_then_hit_then_recompile_with_reason(device, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="popdsl")
    g, main, out = build_model(device)
    with pd.Session(g, main, device=device, cache_dir=tmp_path) as s:
        s.run()
        check_results(s, out)
    assert any("recompiling ['main']: no cached executable" in m for m in cache_messages(caplog))
    assert len(list(tmp_path.glob("*.popexe"))) == 1

    caplog.clear()
    g, main, out = build_model(device)
    with pd.Session(g, main, device=device, cache_dir=tmp_path) as s:
        s.run()
        check_results(s, out)
    assert any("loaded the cached executable" in m for m in cache_messages(caplog))
    assert not any("recompiling" in m for m in cache_messages(caplog))

    caplog.clear()
    g, main, out = build_model(device, offset=2.0)
    with pd.Session(g, main, device=device, cache_dir=tmp_path) as s:
        s.run()
        check_results(s, out, offset=2.0)
    assert any("recompiling ['main']: graph changed" in m for m in cache_messages(caplog))


@pytest.mark.needs_emulator("the executable cache (canonical executable sections)")
def test_changed_options_recompile_and_the_environment_names_the_cache(device, tmp_path, caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="popdsl")
    monkeypatch.setenv("POPDSL_CACHE_DIR", str(tmp_path))
    g, main, _ = build_model(device)
    pd.Session(g, main, device=device)
    pd.Session(g, main, device=device, options={"debug.instrument": "true"})
    messages = cache_messages(caplog)
    assert any("no cached executable" in m for m in messages)
    assert any("recompiling ['main']: options changed" in m for m in messages)
    assert len(list(tmp_path.glob("*.popexe"))) == 2


@pytest.mark.needs_emulator("the executable cache (canonical executable sections)")
def test_a_corrupt_cached_executable_is_recompiled(device, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="popdsl")
    g, main, _ = build_model(device)
    pd.Session(g, main, device=device, cache_dir=tmp_path)
    (cached,) = tmp_path.glob("*.popexe")
    cached.write_bytes(cached.read_bytes()[:-20])
    g, main, out = build_model(device)
    with pd.Session(g, main, device=device, cache_dir=tmp_path) as s:
        s.run()
        check_results(s, out)
    assert any("cannot be read" in m and "corrupt" in m for m in cache_messages(caplog))


@pytest.mark.needs_emulator("the executable cache (canonical executable sections)")
def test_a_cached_executable_of_another_graph_is_recompiled(device, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="popdsl")
    g, main, out = build_model(device)
    pd.Session(g, main, device=device, cache_dir=tmp_path / "a")
    other, other_main, _ = build_model(device, offset=2.0)
    pd.Session(other, other_main, device=device, cache_dir=tmp_path / "b")
    # An entry copied in under the first graph's name, as a shared cache could hold it.
    (entry,) = (tmp_path / "a").glob("*.popexe")
    (other_entry,) = (tmp_path / "b").glob("*.popexe")
    entry.write_bytes(other_entry.read_bytes())
    caplog.clear()
    with pd.Session(g, main, device=device, cache_dir=tmp_path / "a") as s:
        s.run()
        check_results(s, out)
    assert any("is not for this graph" in m for m in cache_messages(caplog)), cache_messages(caplog)
    assert entry.read_bytes() != other_entry.read_bytes()  # the entry was written again


@pytest.mark.needs_emulator("the executable cache (canonical executable sections)")
def test_concurrent_writers_leave_a_whole_cache_entry(device, tmp_path):
    g, main, _ = build_model(device)
    executable = poplar.compileGraph(g.raw, [main.build()], {})
    from popdsl.executable_cache import compile_or_load
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: compile_or_load(g.raw, [main.build()], {}, str(tmp_path), ["main"]), range(16)))
    (entry,) = tmp_path.glob("*.popexe")
    assert entry.read_bytes() == executable.serialize()
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json", ".popexe"]  # no temporary files left


# --- save and load -------------------------------------------------------------------------


def test_save_and_load_runs_without_the_building_code(device, tmp_path):
    g, main, out = build_model(device)
    pd.Session(g, main, device=device).save(tmp_path / "model.popdsl")
    names = {key: t.name for key, t in out.items()}
    names["x"] = "x"
    del g, main, out
    loaded = pd.Session.load(tmp_path / "model.popdsl", device=device)
    with loaded:
        loaded.run("main")
        check_results(loaded, names)


def test_loaded_session_numbers_views_that_share_a_variable_name(device, tmp_path):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (2, 3), name="x")
    g.track(x.T)  # a tracked view of x: the same variable name
    pd.Session(g, pd.Sequence(), device=device).save(tmp_path / "views.popdsl")
    loaded = pd.Session.load(tmp_path / "views.popdsl", device=device)
    with loaded:
        loaded.write("x", X[:2, :3])
        np.testing.assert_array_equal(loaded.read("x#2"), X[:2, :3].T)
        with pytest.raises(pd.SessionError, match=r"no tensor named 'y'; this session has \['x', 'x#2'\]"):
            loaded.read("y")


def test_cycle_counters_survive_save_and_load(device, tmp_path):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (64,), name="x", init=1.0)
    with pd.Sequence() as main:
        with pd.cycle_count(g, name="count") as count:
            with pd.Repeat(3):
                x += 1.0
        stamp = pd.cycle_stamp(g, name="stamp")
    session = pd.Session(g, main, device=device)
    session.save(tmp_path / "counted.popdsl")
    with session:
        session.run()
        cycles, stamped = session.read(count), session.read(stamp)
    loaded = pd.Session.load(tmp_path / "counted.popdsl", device=device)
    with loaded:
        loaded.run()
        np.testing.assert_array_equal(loaded.read("x"), np.full(64, 4.0))
        lo_hi = loaded.read(count.tensor.name), loaded.read(stamp.tensor.name)
    assert cycles > 0 and stamped > cycles
    assert [count.value(lo_hi[0]), stamp.value(lo_hi[1])] == [cycles, stamped]


@pytest.mark.needs_emulator("Session.load without device= (the saved target is read from the executable)")
def test_loaded_session_streams_by_handle(device, tmp_path):
    g = pd.Graph(device)
    inp = g.host_to_device(pd.float32, (3,), name="in")
    outp = g.device_to_host(pd.float32, (3,), name="out")
    with pd.Sequence("main") as main:
        v = inp.read()
        outp.write(pd.map(lambda a: a * a, v))
    pd.Session(g, main, device=device).save(tmp_path / "s.popdsl")
    loaded = pd.Session.load(tmp_path / "s.popdsl")
    with loaded:
        result = loaded.run(feeds={"in": np.array([1, 2, 3], np.float32)})
    np.testing.assert_array_equal(result["out"], [[1, 4, 9]])  # one write: a leading axis of 1
    assert result["out"].shape == (1, 3)


def test_load_errors_name_the_problem(device, tmp_path):
    (tmp_path / "junk").write_bytes(b"not a session")
    with pytest.raises(pd.SessionError, match="is not a saved popdsl session"):
        pd.Session.load(tmp_path / "junk")
    g, main, _ = build_model(device)
    pd.Session(g, main, device=device).save(tmp_path / "m")
    data = (tmp_path / "m").read_bytes()
    (tmp_path / "m").write_bytes(data[:-100] + bytes(100))
    with pytest.raises(pd.SessionError, match="the file's executable cannot be read: .*checksum does not match"):
        pd.Session.load(tmp_path / "m")
    (tmp_path / "m").write_bytes(data)
    loaded = pd.Session.load(tmp_path / "m", device=device)
    with loaded, pytest.raises(pd.SessionError, match=r"no tensor named 'nope'; this session has \[.*'x'"):
        loaded.read("nope")


def test_load_refuses_what_is_not_a_regular_file_without_reading_it(tmp_path):
    """A FIFO would block for ever, /dev/zero never ends, a directory or a missing file raises
    OSError: each is a SessionError naming the file, at once."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to_zero").symlink_to("/dev/zero")
    (tmp_path / "directory").mkdir()
    for name in ("fifo", "to_zero", "directory"):
        with pytest.raises(pd.SessionError, match=rf"Session.load\(.*{name}'\): the file is not a regular file"):
            pd.Session.load(tmp_path / name)
    with pytest.raises(pd.SessionError, match=r"the file cannot be read: No such file or directory"):
        pd.Session.load(tmp_path / "missing")


def saved_with_manifest(path, edit):
    """Rewrites the saved session at `path` with `edit(manifest)` applied to its manifest."""
    data = path.read_bytes()
    start = len(b"POPDSL-SESSION\n") + 8
    (length,) = struct.unpack_from("<Q", data, start - 8)
    manifest = json.loads(data[start:start + length])
    edit(manifest)
    header = json.dumps(manifest).encode()
    path.write_bytes(data[:start - 8] + struct.pack("<Q", len(header)) + header + data[start + length:])


def set_first(kind, field, value):
    def edit(manifest):
        manifest[kind][0][field] = value
    return edit


@pytest.mark.parametrize("damage, problem", [
    (lambda data: data[:15], "is truncated: 15 bytes, not even the manifest's length"),
    (lambda data: data[:15] + struct.pack("<Q", 10 ** 9) + data[23:], "is truncated: its manifest needs 1000000000 bytes"),
    (lambda data: data[:23] + b"\xff" * 8 + data[31:], "has a damaged manifest .*utf-8"),
    (lambda data: data[:23] + b"[" + data[24:], "has a damaged manifest"),
], ids=["truncated", "length-past-the-end", "not-utf8", "not-json"])
def test_a_damaged_session_file_raises_a_session_error_naming_it(device, tmp_path, damage, problem):
    g, main, _ = build_model(device)
    pd.Session(g, main, device=device).save(tmp_path / "m")
    (tmp_path / "m").write_bytes(damage((tmp_path / "m").read_bytes()))
    with pytest.raises(pd.SessionError, match=rf"Session.load\('{tmp_path}/m'\): the file {problem}"):
        pd.Session.load(tmp_path / "m", device=device)


@pytest.mark.parametrize("edit, problem", [
    (set_first("tensors", "dtype", "|O"), r"tensors\[0\] has an invalid 'dtype': '\|O'"),
    (set_first("tensors", "dtype", "<f8"), r"tensors\[0\] has an invalid 'dtype': '<f8'"),
    (set_first("tensors", "shape", [2.7, 3]), r"tensors\[0\] has an invalid 'shape'"),
    (set_first("tensors", "shape", [-1]), r"tensors\[0\] has an invalid 'shape'"),
    (set_first("tensors", "constant", "no"), r"tensors\[0\] has an invalid 'constant'"),
    (lambda m: m["tensors"][0].pop("handle"), r"tensors\[0\] does not have the fields"),
    (lambda m: m.update(programs="main"), "'programs' is not a list of program names"),
    (lambda m: m.update(streams={}), "'streams' is not a list"),
    (lambda m: m.update(version=7), "was saved in format 7"),
    (lambda m: m.update(replicas=0), r"'replicas' is not an int from 1 to 2\*\*20: 0"),
    (lambda m: m.update(weight_replicas=[0, 2]), r"'weight_replicas' is not a range of its 1 replicas: \[0, 2\]"),
], ids=["object-dtype", "float64", "fractional-shape", "negative-shape", "flag", "missing-field",
        "programs", "streams", "version", "replicas", "weight-replicas"])
def test_a_session_manifest_is_checked_field_by_field(device, tmp_path, edit, problem):
    g, main, _ = build_model(device)
    pd.Session(g, main, device=device).save(tmp_path / "m")
    saved_with_manifest(tmp_path / "m", edit)
    with pytest.raises(pd.SessionError, match=problem):
        pd.Session.load(tmp_path / "m", device=device)


@pytest.mark.needs_emulator("the host handles' element types (the sdk's Engine does not say)")
@pytest.mark.parametrize("edit, problem", [
    (set_first("tensors", "dtype", "<i4"), r"gives tensor 'x' \(handle 'r0'\) dtype int32 and shape \(4, 8\), but the "
                                           r"executable's handle holds 32 elements of float \(numpy float32\)"),
    (set_first("tensors", "dtype", "|b1"), r"gives tensor 'x' \(handle 'r0'\) dtype bool .* holds 32 elements of float"),
    (set_first("tensors", "shape", [8, 8]), r"gives tensor 'x' \(handle 'r0'\) dtype float32 and shape \(8, 8\)"),
    (set_first("tensors", "handle", "99"), r"names tensor 'x', but its executable has no host read handle 'r99'"),
    (lambda m: m["tensors"][1].update(constant=False), r"names tensor 'w', but its executable has no host write handle"),
], ids=["int32-for-float", "bool-for-float", "shape", "unknown-handle", "constant-made-writable"])
def test_a_session_manifest_must_match_its_executable(device, tmp_path, edit, problem):
    g, main, _ = build_model(device)
    pd.Session(g, main, device=device).save(tmp_path / "m")
    saved_with_manifest(tmp_path / "m", edit)
    with pytest.raises(pd.SessionError, match=rf"Session.load\('{tmp_path}/m'\): the file's manifest {problem}"):
        pd.Session.load(tmp_path / "m", device=device)


def streams_and_callback_graph(device):
    """Streams 'in' (3 floats to the device) and 'out' (back), and host callback 'twice'."""
    g = pd.Graph(device)
    inp = g.host_to_device(pd.float32, (3,), name="in")
    outp = g.device_to_host(pd.float32, (3,), name="out")
    doubled = g.variable(pd.float32, (3,), name="doubled")
    with pd.Sequence("main") as main:
        pd.host_callback(lambda a: a * 2, inp.read(), outputs=doubled, name="twice")
        outp.write(doubled)
    return g, main


def set_in(kind, key, name, field, value):
    """Sets `field` of the manifest's `kind` entry whose `key` is `name`."""
    def edit(manifest):
        [entry] = [e for e in manifest[kind] if e[key] == name]
        entry[field] = value
    return edit


@pytest.mark.needs_emulator("the executable's streams and host functions (the sdk cannot look inside one)")
@pytest.mark.parametrize("edit, callback, problem", [
    (set_in("streams", "handle", "in", "dtype", "<i4"), "twice",
     r"gives stream 'in' dtype int32, shape \(3,\), host to device, but the executable's stream holds 3 elements "
     r"of float \(numpy float32\), host to device; the file is damaged"),
    (set_in("streams", "handle", "out", "shape", [4]), "twice",
     r"gives stream 'out' dtype float32, shape \(4,\), device to host, but the executable's stream holds 3 elements"),
    (set_in("streams", "handle", "in", "to_device", False), "twice",
     r"gives stream 'in' .*, device to host, but .*, host to device"),
    (set_in("streams", "handle", "in", "handle", "nope"), "twice",
     r"names stream 'nope', but its executable has no data stream 'nope'"),
    (set_in("host_callbacks", "name", "twice", "name", "thrice"), "thrice",
     r"names host callback 'thrice', but its executable has no host function 'thrice'"),
    (set_in("host_callbacks", "name", "twice", "inputs", [[[3], "<i4"]]), "twice",
     r"gives host callback 'twice' inputs \['\(3,\) int32'\], but the executable's host function has "
     r"\['3 x float32'\]"),
    (set_in("host_callbacks", "name", "twice", "outputs", [[[3], "<f4"], [[1], "<f4"]]), "twice",
     r"gives host callback 'twice' outputs \['\(3,\) float32', '\(1,\) float32'\], but .* has \['3 x float32'\]"),
], ids=["stream-dtype", "stream-shape", "stream-direction", "unknown-stream", "unknown-callback",
        "callback-input-dtype", "callback-outputs"])
def test_a_session_manifests_streams_and_callbacks_must_match_its_executable(device, tmp_path, edit, callback,
                                                                              problem):
    g, main = streams_and_callback_graph(device)
    pd.Session(g, main, device=device).save(tmp_path / "m")
    with pd.Session.load(tmp_path / "m", device=device, callbacks={"twice": lambda a: a * 2}) as loaded:
        result = loaded.run(feeds={"in": np.array([1, 2, 3], np.float32)})
    np.testing.assert_array_equal(result["out"], [[2, 4, 6]])  # one write
    saved_with_manifest(tmp_path / "m", edit)
    with pytest.raises(pd.SessionError, match=rf"Session.load\('{tmp_path}/m'\): the file's manifest {problem}"):
        pd.Session.load(tmp_path / "m", device=device, callbacks={callback: lambda a: a * 2})


def test_session_paths_expand_the_home_directory(device, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    g, main, x = build_model(device)
    s = pd.Session(g, main, device=device)
    s.save("~/saved")
    assert (tmp_path / "saved").is_file()
    assert pd.Session.load("~/saved", device=device).program_names == s.program_names


@pytest.mark.needs_emulator("the executable cache (canonical executable sections)")
def test_the_cache_directory_expands_the_home_directory(device, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    g, main, x = build_model(device)
    pd.Session(g, main, device=device, cache_dir="~/cache")
    assert any(name.endswith(".popexe") for name in os.listdir(tmp_path / "cache"))


# --- weights, attach and detach ------------------------------------------------------------


def test_weights_survive_another_session_on_the_device(device):
    g = pd.Graph(device)
    w = g.variable(pd.float32, (2, 2), name="w", init=np.ones((2, 2)))
    b = g.variable(pd.float32, (2,), name="b")
    with pd.Sequence("step") as step:
        w += 1.0
    first, second = pd.Session(g, step, device=device, name="first"), pd.Session(g, step, device=device)
    with first:
        first.write(b, [3, 4])
        first.run()
    with second:
        second.run()
        second.run()
        np.testing.assert_array_equal(second.read(w), np.full((2, 2), 3))  # init 1, two steps
    with first:  # reloaded: its weights come back from its host copies
        np.testing.assert_array_equal(first.read(w), np.full((2, 2), 2))
        np.testing.assert_array_equal(first.read("b"), [3, 4])
        first.run()
        weights = first.weights_to_host()
    assert sorted(weights) == ["b", "w"]
    np.testing.assert_array_equal(weights["w"], np.full((2, 2), 3))
    np.testing.assert_array_equal(first.weights()["b"], [3, 4])


def test_a_second_session_cannot_run_while_another_holds_the_device(device):
    g = pd.Graph(device)
    v = g.variable(pd.float32, (2,), name="v")
    with pd.Sequence("main") as main:
        v += 1.0
    holder, other = pd.Session(g, main, device=device, name="holder"), pd.Session(g, main, device=device)
    with holder:
        with pytest.raises(pd.SessionError, match=r"the device is attached to another session \('holder'\)"):
            other.attach()
        with pytest.raises(pd.SessionError, match=r"needs an attached session.*held by session 'holder'"):
            other.run()
        with holder:  # nested: a no-op
            holder.run()
        assert holder.attached and device.session is holder  # the device knows its holder
    assert not holder.attached and device.session is None
    with other:
        other.run()


def test_constants_cannot_be_written(device):
    g = pd.Graph(device)
    c = g.constant(np.ones(2, np.float32), name="c")
    with pd.Sequence("main") as main:
        pd.copy(c, g.variable(pd.float32, (2,), name="v"))
    with pd.Session(g, main, device=device) as s, pytest.raises(pd.SessionError, match="'c' is a constant"):
        s.write(c, [1, 2])


# --- host callbacks ------------------------------------------------------------------------


def callback_graph(device, fn, out_shape=(2, 3), **kwargs):
    g = pd.Graph(device)
    a = g.variable(pd.float32, (2, 3), name="a", init=np.arange(6).reshape(2, 3))
    n = g.variable(pd.int32, (1,), name="n", init=4)
    out = g.variable(pd.float32, out_shape, name="out")
    with pd.Sequence("main") as main:
        a += 1.0
        pd.host_callback(fn, a, n, outputs=out, **kwargs)
        out *= 2.0
    return g, main, out


def test_host_callback_sees_current_values_and_writes_outputs(device):
    seen = []

    def scale(a, n):
        seen.append((a.copy(), n.copy()))
        return a * n[0] - 0.5

    g, main, out = callback_graph(device, scale)
    with pd.Session(g, main, device=device) as s:
        s.run()
        s.run()
        result = s.read(out)
    a = np.arange(6, dtype=np.float64).reshape(2, 3) + 2
    np.testing.assert_allclose(result, (a * 4 - 0.5) * 2)
    assert len(seen) == 2 and seen[0][0].shape == (2, 3) and seen[0][1].dtype == np.int32
    np.testing.assert_array_equal(seen[0][0], a - 1)


def test_host_callback_result_shape_is_checked(device):
    g, main, _ = callback_graph(device, lambda a, n: np.zeros((3, 2)), name="shaper")
    with pd.Session(g, main, device=device) as s, \
            pytest.raises(pd.HostCallbackError, match=r"'shaper' .*output 0 has shape \(3, 2\), but its tensor has shape \(2, 3\)"):
        s.run()


def test_host_callback_result_dtype_is_checked(device):
    g, main, _ = callback_graph(device, lambda a, n: np.full((2, 3), "x"), name="typer")
    with pd.Session(g, main, device=device) as s, pytest.raises(pd.HostCallbackError, match="'typer'.*dtype"):
        s.run()


def test_host_callback_exceptions_propagate_and_the_session_still_works(device):
    calls = []

    def failing(a, n):
        calls.append(1)
        if len(calls) == 1:
            raise KeyError("boom")
        return a

    g, main, out = callback_graph(device, failing)
    with pd.Session(g, main, device=device) as s:
        with pytest.raises(KeyError, match="boom"):
            s.run()
        s.run()
        assert s.read(out).shape == (2, 3)


@pytest.mark.needs_emulator("Session.load without device= (the saved target is read from the executable)")
def test_loaded_session_needs_its_callbacks(device, tmp_path):
    g, main, _ = callback_graph(device, lambda a, n: a, name="identity")
    pd.Session(g, main, device=device).save(tmp_path / "cb")
    with pytest.raises(pd.SessionError, match=r"host callbacks \['identity'\].*missing: \['identity'\]"):
        pd.Session.load(tmp_path / "cb")
    loaded = pd.Session.load(tmp_path / "cb", callbacks={"identity": lambda a, n: a + n[0]})
    with loaded:
        loaded.run()
        np.testing.assert_array_equal(loaded.read("out"), (np.arange(6).reshape(2, 3) + 1 + 4) * 2)


# --- seeds ---------------------------------------------------------------------------------


def seeds_graph(device):
    g = pd.Graph(device)
    with pd.Sequence("main") as main:
        seeds = pd.random.get_hw_seeds(g, name="seeds")
    return g, main, seeds


@pytest.mark.needs_emulator("the engine's random seed (Session.seed)")
def test_seed_decides_the_hardware_seeds(device):
    g, main, seeds = seeds_graph(device)
    runs = {}
    for seed in (1, 1, 2):
        with pd.Session(g, main, device=device, seed=seed) as s:
            assert s.seed == seed
            s.run()
            runs.setdefault(seed, []).append(s.read(seeds))
    target = device.getTarget()
    assert runs[1][0].shape == (target.getNumTiles(), target.getNumWorkerContexts(), 4)
    assert runs[1][0].dtype == np.uint32
    np.testing.assert_array_equal(runs[1][0], runs[1][1])
    assert (runs[1][0] != runs[2][0]).mean() > 0.99
    # Every tile and worker gets its own stream: the 32-bit words look uniform.
    words = runs[1][0].reshape(-1).astype(np.float64)
    assert len(np.unique(words)) == words.size
    assert abs(words.mean() / 2 ** 32 - 0.5) < 0.1


@pytest.mark.needs_emulator("the engine's random seed (Session.seed)")
def test_seed_setter_reseeds_and_set_hw_seeds_writes(device):
    g = pd.Graph(device)
    with pd.Sequence("main") as main:
        seeds = pd.random.get_hw_seeds(g, name="seeds")
        pd.random.set_hw_seeds(pd.map(lambda s: s + 1, seeds))
        after = pd.random.get_hw_seeds(g, name="after")
    with pd.Session(g, main, device=device) as s:
        s.seed = 7
        s.run()
        first, bumped = s.read(seeds), s.read(after)
        np.testing.assert_array_equal(bumped, first + 1)
        s.seed = 7
        s.run()
        np.testing.assert_array_equal(s.read(seeds), first)
        with pytest.raises(pd.SessionError, match="seed must be an integer"):
            s.seed = -1


@pytest.mark.needs_emulator("progress of building an engine from an Executable")
def test_engine_building_progress_is_logged_without_a_terminal(device, caplog):
    caplog.set_level(logging.DEBUG, logger="popdsl")
    g, main, _ = build_model(device)
    pd.Session(g, {"a": main, "b": main}, device=device, name="two")
    messages = cache_messages(caplog)
    assert "building the engine for 'two': 3/3" in messages
    assert any(m.startswith("engine for 'two' ready in") for m in messages)


def test_a_long_run_reports_progress_while_it_runs(device, caplog, monkeypatch):
    from popdsl import progress
    monkeypatch.setattr(progress, "LONG_RUN_SECONDS", 0.01)
    monkeypatch.setattr(progress, "PROGRESS_INTERVAL_SECONDS", {True: 0.01, False: 0.01})
    monkeypatch.setattr(progress, "PROGRESS_POLL_SECONDS", 0.005)
    # A watcher of its own, which polls that often: one an earlier test started may be asleep
    # for a poll of the default length (0.25 s), longer than this run on a fast machine.
    monkeypatch.setattr(progress.RunProgress, "_watcher", None)
    caplog.set_level(logging.INFO, logger="popdsl")
    g = pd.Graph(device)
    x = g.variable(pd.float32, (256, 256), name="x", init=0.5)
    with pd.Sequence("slow") as slow:
        with pd.Repeat(5000):  # tens of milliseconds or more
            pd.map_(lambda a: pd.sqrt(a * a + 1.0) - 1.0, x)
    with pd.Session(g, slow, device=device) as s:
        s.run()
    messages = cache_messages(caplog)
    assert any(m.startswith("running 'main' in session 'main': still running after") for m in messages), messages


def test_on_a_terminal_run_progress_is_a_bar_against_the_last_run(monkeypatch, capsys):
    from popdsl.progress import RunProgress
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    progress = RunProgress("running 'main'", expected_seconds=4.0)
    progress._report(1.0)
    assert capsys.readouterr().err == "\rrunning 'main': 1 s [" + "#" * 7 + " " * 23 + "] of the last run's 4.0 s"


def test_on_a_terminal_run_progress_ends_with_a_final_update_on_a_clean_line(monkeypatch, capsys):
    from popdsl.progress import RunProgress
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with RunProgress("running 'main'", expected_seconds=4.0) as progress:
        progress._report(3.0)
    err = capsys.readouterr().err
    assert err.endswith("\n") and err.count("\n") == 1
    last = err.rstrip("\n").rsplit("\r", 1)[1]
    assert last.rstrip().startswith("running 'main': done in ") and last.rstrip().endswith(" s")
    assert len(last) == len("running 'main': 3 s [" + "#" * 22 + " " * 8 + "] of the last run's 4.0 s")  # blanks it
    assert "#" not in last


def test_a_failed_load_leaves_the_device_free(device, tmp_path):
    g, main, _ = build_model(device)
    pd.Session(g, main, device=device).save(tmp_path / "m")
    other_device = pd.ipu_model(tiles=8)
    loaded = pd.Session.load(tmp_path / "m", device=other_device)
    with pytest.raises(poplar.poplar_error, match="differs from the graph's target"):
        loaded.attach()
    assert not loaded.attached
    assert other_device.attach()
    other_device.detach()


def test_detach_from_another_thread_waits_for_the_run(device):
    g = pd.Graph(device)
    count = g.variable(pd.uint32, (1,), name="count", init=0)
    steps = 1_000_000  # long enough that the detach below comes while it runs
    with pd.Sequence() as main:
        with pd.Repeat(steps):
            count += 1
    s = pd.Session(g, main, device=device)
    s.attach()
    detached = {}

    def detach_soon():
        time.sleep(0.05)
        detached["weights"] = s.weights_to_host()
        s.detach()

    helper = threading.Thread(target=detach_soon)
    helper.start()
    s.run()
    helper.join()
    # Weights copied after the run, never from part way through it.
    assert detached["weights"]["count"].tolist() == [steps]
    assert not s.attached


def test_detach_waits_for_a_run_in_another_thread(device):
    # The run pauses in a host callback (the count is 1 then) until the detach has begun
    # or 0.5 s have passed; it then sets the count to 2. Without the session's lock the
    # detach would copy the count as 1 and release the device mid-run.
    g = pd.Graph(device)
    count = g.variable(pd.int32, (1,), name="count", init=0)
    in_callback, detach_called = threading.Event(), threading.Event()
    events = []

    def pause(value):
        in_callback.set()
        detach_called.wait(0.5)
        events.append(("callback saw", value.tolist()))

    with pd.Sequence() as main:
        count += 1
        pd.host_callback(pause, count)
        count += 1
    s = pd.Session(g, main, device=device)
    s.attach()

    def detach_during_the_run():
        in_callback.wait(5)
        detach_called.set()
        s.detach()
        events.append(("detached", s.weights()["count"].tolist()))

    helper = threading.Thread(target=detach_during_the_run)
    helper.start()
    s.run()
    helper.join()
    assert events == [("callback saw", [1]), ("detached", [2])]
    assert not s.attached


def test_save_and_load_take_paths_and_expand_the_home_directory(device, tmp_path, monkeypatch):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (2,), name="x")
    with pd.Sequence() as main:
        x += 1.0
    session = pd.Session(g, main, device=device)
    with pytest.raises(TypeError, match=r"^Session\.save: path must be a str or os\.PathLike, got int 3$"):
        session.save(3)
    with pytest.raises(TypeError, match=r"^Session\.load: path must be a str or os\.PathLike, got NoneType None$"):
        pd.Session.load(None)
    monkeypatch.setenv("HOME", str(tmp_path))
    session.save("~/saved.popdsl")
    assert (tmp_path / "saved.popdsl").exists()
    with pd.Session.load("~/saved.popdsl", device=device) as loaded:
        loaded.write("x", [1.0, 2.0])
        loaded.run()
        np.testing.assert_array_equal(loaded.read("x"), [2.0, 3.0])


def test_writing_a_device_tensor_as_values_says_how_to_read_it(device):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (2,), name="x")
    with pd.Session(g, pd.Sequence(), device=device) as session:
        with pytest.raises(pd.SessionError, match=r"^writing tensor 'x': values must be host data, got "
                                                  r"<pd\.Tensor 'x' shape=\(2,\) dtype=float>; read a tensor "
                                                  r"with session\.read\(t\)$"):
            session.write(x, x)
