"""Fuzzes Session.load with mutants of one saved session (a checkpoint with weights, a
host-to-device and a device-to-host stream): the file damaged anywhere, its manifest's
JSON values replaced by hostile ones (huge, negative, wrong types, lone surrogates, other
dtypes and names), its weights' bytes changed, and its executable damaged with the
checksum made to match again. Each mutant is loaded and run in a forked child that
reports how it ended:

- refused: Session.load raised SessionError (the only exception it may raise);
- failed: the run raised a named error (SessionError or a poplar_error);
- correct: it ran, and its output and updated weights are what the program computes from
  the weights and feed it was given (read back from the loaded session): a damaged file
  either is refused or runs correctly, never gives wrong results;
- changed: (executable mutants with a matching checksum only) it ran with other results:
  the mutant is another valid program, which no checksum can tell from the original;
- unnamed (any other exception), wrong (wrong results), crash (a signal) or hang (20 s):
  failures, each printed on a line of its own with its input saved in --out.

The last line counts each ending. tests/python/test_saved_session_fuzz.py runs a few
hundred mutants; longer runs (docs/developing.rst):

    PYTHONPATH=.:tests/python python tests/python/saved_session_fuzz.py --mutants 20000 --seed 7 --out /tmp/fuzz
"""
import argparse
import json
import os
import random
import resource
import signal
import struct
import sys
import traceback

import numpy as np

import popdsl as pd
from popdsl import saved_session
from popdsl._core import poplar
from popdsl.executable_cache import EXECUTABLE_MARKER
from mutations import FIELD_VALUES, damage, with_checksum

ENDINGS = ["correct", "refused", "failed", "changed", "unnamed", "wrong"]  # a child's exit status: its index
FAILURES = ("unnamed", "wrong")
# What a manifest value is replaced by.
HOSTILE_VALUES = FIELD_VALUES + [-1, -2 ** 63, 2 ** 40, 2 ** 64, 2 ** 70, 1.5, float("nan"), None, True, False, "",
                                 "x", "b", "float64", "object", "<f2", "|b1", "V8", "\udcff", "\ud800x", [], [0],
                                 [2 ** 32, 2 ** 32], [2 ** 47, 2 ** 47], [-1], {}, {"shape": 1}]
ROW = np.array([0.25, -3, 8, 1e-3], np.float32)


def build(path: str) -> None:
    """Saves the session the mutants are made of."""
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (3, 4), name="x", init=np.arange(12, dtype=np.float32).reshape(3, 4) / 4)
    b = g.variable(pd.float32, (4,), name="b", init=[0.5, -1, 2, 0])
    n = g.variable(pd.int32, (2,), name="n", init=[3, -7])
    feed = g.host_to_device(pd.float32, (4,), name="feed")
    out = g.device_to_host(pd.float32, (3, 4), name="out")
    with pd.Sequence() as main:
        row = feed.read()
        out.write(x + x + b + row)
        n += 1
        x += 1
    with pd.Session(g, main, device=pd.ipu_model(tiles=4)) as s:
        s.save(path, weights=True)


def check_run(path: str) -> str:
    """How loading and running the file at `path` ends (one of ENDINGS)."""
    try:
        s = pd.Session.load(path)
    except pd.SessionError:
        return "refused"
    try:
        with s:
            x0, b0, n0 = (s.read(name).reshape(-1) for name in ("x", "b", "n"))
            outputs = s.run(feeds={"feed": ROW})
            out = outputs["out"].reshape(-1)
            x1, n1 = s.read("x").reshape(-1), s.read("n").reshape(-1)
    except (pd.SessionError, poplar.poplar_error):
        return "failed"
    x0 = x0.reshape(3, 4)
    with np.errstate(over="ignore", invalid="ignore"):  # damaged weights may be huge, infinite or NaN
        expected = (x0 + x0 + b0 + ROW).reshape(-1)
        right = (np.array_equal(out, expected, equal_nan=True)
                 and np.array_equal(x1, (x0 + 1).reshape(-1), equal_nan=True) and np.array_equal(n1, n0 + np.int32(1)))
    return "correct" if right else "wrong"


def json_paths(value, path=()):
    """Every (path, value) in a JSON value, containers included."""
    yield path, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from json_paths(item, path + (key,))


def parts(data: bytes):
    """(manifest bytes, weights bytes, executable bytes) of a saved session."""
    start = len(saved_session.MAGIC)
    (length,) = struct.unpack_from("<Q", data, start)
    manifest = data[start + 8:start + 8 + length]
    executable_at = data.index(EXECUTABLE_MARKER)
    return manifest, data[start + 8 + length:executable_at], data[executable_at:]


def assemble(manifest: bytes, weights: bytes, executable: bytes) -> bytes:
    return saved_session.MAGIC + struct.pack("<Q", len(manifest)) + manifest + weights + executable


def mutate(data: bytes, rng) -> tuple:
    """(a mutant of the saved session `data`, whether its executable was damaged with its checksum made to match)."""
    manifest, weights, executable = parts(data)
    kind = rng.choices(["file", "json", "manifest", "weights", "executable"], weights=[3, 4, 1, 1, 2])[0]
    if kind == "file":
        return damage(data, rng), False
    if kind == "json":
        document = json.loads(manifest)
        path, _ = rng.choice(list(json_paths(document))[1:])
        *parent_path, key = path
        parent = document
        for step in parent_path:
            parent = parent[step]
        if isinstance(parent, dict) and rng.random() < 0.15:
            del parent[key]
        else:
            parent[key] = rng.choice(HOSTILE_VALUES)
        return assemble(json.dumps(document).encode(), weights, executable), False
    if kind == "manifest":  # bytes of the JSON text (invalid UTF-8, broken syntax)
        return assemble(damage(manifest, rng), weights, executable), False
    if kind == "weights":
        flipped = bytearray(weights)
        for _ in range(rng.randint(1, 4)):
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        return assemble(manifest, bytes(flipped), executable), False
    return assemble(manifest, weights, with_checksum(damage(executable[:-8], rng))), True


def child(path: str, checksum_fixed: bool) -> None:
    """Runs in the forked child: exits with the index of how the mutant at `path` ended."""
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # huge sizes: MemoryError, not the OOM killer
    signal.alarm(20)
    try:
        ending = check_run(path)
    except BaseException:
        traceback.print_exc(limit=3)
        ending = "unnamed"
    if ending == "wrong" and checksum_fixed:
        ending = "changed"
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(ENDINGS.index(ending))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutants", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=".", help="where the inputs of failures are saved")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    original_path = os.path.join(arguments.out, "original.popdsl")
    build(original_path)
    if check_run(original_path) != "correct":
        print("the unmutated session does not run correctly", flush=True)
        return 1
    with open(original_path, "rb") as f:
        original = f.read()
    rng = random.Random(arguments.seed)
    counts = dict.fromkeys(ENDINGS + ["crash", "hang"], 0)
    mutant_path = os.path.join(arguments.out, "mutant.popdsl")
    for i in range(arguments.mutants):
        data, checksum_fixed = mutate(original, rng)
        with open(mutant_path, "wb") as f:
            f.write(data)
        pid = os.fork()
        if pid == 0:
            child(mutant_path, checksum_fixed)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            ending = "hang" if os.WTERMSIG(status) == signal.SIGALRM else "crash"
            detail = signal.Signals(os.WTERMSIG(status)).name
        else:
            ending, detail = ENDINGS[os.WEXITSTATUS(status)], ""
        counts[ending] += 1
        if ending in FAILURES + ("crash", "hang"):
            failed = os.path.join(arguments.out, f"mutant{i}-{ending}.popdsl")
            os.replace(mutant_path, failed)
            print(f"mutant {i}: {ending} {detail} ({failed})", flush=True)
    print(" ".join(f"{k}={v}" for k, v in counts.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
