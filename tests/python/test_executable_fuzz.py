"""Loading damaged executables never crashes: a few hundred mutations of one executable
(bytes flipped, inserted or dropped, truncations, length and count fields set to other
values; mostly inside one section with the file's frame kept, and each with its
checksum recomputed, so the checks behind them are reached) are each
deserialized, made into an engine, loaded and run in a forked child. Each child must end
normally (a clean Python exception is fine) within its time limit: no signal, no hang."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import popdsl as pd

MUTATIONS = 300
pytestmark = pytest.mark.needs_emulator("popdsl executables (the sdk's are its own format)")

# Runs in a fresh interpreter: forks one child per mutation and reports how each ended.
WORKER = textwrap.dedent("""
    import os, random, resource, signal, struct, sys
    from popdsl import poplar
    from mutations import damage, with_checksum

    def sections(body):
        # The executable's outer frame: (head, [(name, data)]): magic, version and count,
        # then each section as a length-prefixed name and length-prefixed data.
        def string(at):
            (n,) = struct.unpack_from("<Q", body, at)
            return body[at + 8:at + 8 + n], at + 8 + n
        _, at = string(0)
        (count,) = struct.unpack_from("<Q", body, at + 8)
        head, at, parts = body[:at + 16], at + 16, []
        for _ in range(count):
            name, at = string(at)
            data, at = string(at)
            parts.append((name, data))
        return head, parts

    def framed(head, parts):
        out = bytearray(head)
        for name, data in parts:
            out += struct.pack("<Q", len(name)) + name + struct.pack("<Q", len(data)) + data
        return bytes(out)

    def mutate(body, rng):
        # Most mutations damage one section and keep the frame intact, so that section's
        # reader meets the damage; the rest damage the file as a whole.
        if rng.random() < 0.8:
            head, parts = sections(body)
            i = rng.choices(range(len(parts)), weights=[len(d) for _, d in parts])[0]
            parts[i] = (parts[i][0], damage(parts[i][1], rng))
            data = framed(head, parts)
        else:
            data = damage(body, rng)
        return with_checksum(data)

    # AddressSanitizer reserves terabytes of address space: under it (test_sanitizers.py,
    # tests/sanitize.sh) its max_allocation_size_mb bounds allocations instead.
    UNDER_ASAN = "libasan" in open("/proc/self/maps").read()

    def load_and_run(data):
        if not UNDER_ASAN:
            resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # huge sizes: bad_alloc, not the OOM killer
        signal.alarm(20)
        stage = "deserialize"
        try:
            exe = poplar.Executable.deserialize(data)
            stage = "engine"
            model = poplar.IPUModel("ipu2")
            model.tilesPerIPU = 4
            device = model.createDevice()
            engine = poplar.Engine(exe)
            stage = "run"
            engine.load(device)
            for prog in range(5):
                engine.run(prog)
            stage = "ran"
        except Exception:
            pass  # a clear error is what damaged input should give
        os._exit(STAGES.index(stage))

    STAGES = ["ran", "deserialize", "engine", "run"]  # exit status: where a mutation stopped
    original = open(sys.argv[1], "rb").read()
    body = original[:-8]
    rng = random.Random(int(sys.argv[2]))
    stopped = dict.fromkeys(STAGES, 0)
    for i in range(int(sys.argv[3])):
        data = mutate(body, rng)
        pid = os.fork()
        if pid == 0:
            load_and_run(data)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            name = signal.Signals(os.WTERMSIG(status)).name
            open(f"{sys.argv[4]}/crash{i}-{name}.popexe", "wb").write(data)
            print(f"mutation {i}: {name}", flush=True)
        else:
            stopped[STAGES[os.WEXITSTATUS(status)]] += 1
    print(" ".join(f"{k}={v}" for k, v in stopped.items()), flush=True)
""")


def executable_of_every_kind(device):
    """A graph using every kernel kind and control program, compiled (5 programs)."""
    g = pd.Graph(device)
    x = g.variable(pd.float32, (4, 8), name="x", init=np.linspace(-1, 1, 32).reshape(4, 8))
    w = g.constant(np.linspace(0, 1, 16, dtype=np.float32).reshape(8, 2), name="w")
    i = g.variable(pd.uint32, (1,), name="i", init=1)
    with pd.Sequence() as first:
        y = pd.matmul(x, w)
        z = pd.map(lambda a: pd.exp(a) * 2 - 1, y)
        pd.nonlinearity(z, "softmax")
        total = pd.reduce_sum(z, axis=1)
        with pd.Repeat(3):
            row = x.at[i].get()
            with pd.If(i == 1):
                row *= 2
            with pd.Else():
                row -= 1
            x.at[i].set(row)
    with pd.Sequence() as second:
        pd.cast(total, pd.int32)
        with pd.Switch(i) as sw:
            with sw.case(1):
                pd.fill(x, 3)
            with sw.default():
                pd.zero(x)
    with pd.Sequence() as third:
        pd.matmul_acc(y, x, w)
    with pd.Sequence() as fourth:
        x[1:3, ::2] += x[0:2, 1::2]
    image = g.variable(pd.float32, (1, 2, 5, 5), name="image", init=0.5)
    kernel = g.variable(pd.float32, (1, 3, 2, 3, 3), name="kernel", init=0.25)
    with pd.Sequence() as fifth:
        pd.nn.pool(pd.nn.conv(image, kernel, padding=1), "max", 2)
    programs = {"a": first, "b": second, "c": third, "d": fourth, "e": fifth}
    return pd.Session(g, programs, device=device).executable


@pytest.mark.parametrize("seed", [1, 2])
def test_mutated_executables_never_crash_or_hang(tmp_path, seed):
    device = pd.ipu_model(tiles=4)
    original = tmp_path / "original.popexe"
    original.write_bytes(executable_of_every_kind(device).serialize())
    path = os.pathsep.join([str(Path(pd.__file__).resolve().parents[1]), str(Path(__file__).parent)])  # + mutations.py
    env = dict(os.environ, PYTHONPATH=path, POPDSL_NUM_THREADS="1")
    result = subprocess.run([sys.executable, "-c", WORKER, str(original), str(seed), str(MUTATIONS // 2),
                             str(tmp_path)], capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    *crashes, summary = result.stdout.splitlines()
    assert not crashes, f"crashed or hung (inputs in {tmp_path}):\n{result.stdout}"
    stopped = {k: int(v) for k, v in (item.split("=") for item in summary.split())}
    assert sum(stopped.values()) == MUTATIONS // 2
    # Enough mutations get past the format checks to test the engine and the run as well.
    assert stopped["ran"] + stopped["run"] + stopped["engine"] >= MUTATIONS // 20, stopped
