"""Flash attention on the emulator: speed against numpy, memory, build + compile time.

1. Build + compile time of forward and grad at L=16384 with 16 x 16 chunks (budget: well
   under a second).
2. Memory at L=16384, G=1, D=64: that flash graph compiles with strict memory accounting
   ("debug.allowOutOfMemory": "false") and runs forward and backward; the Engine's
   per-tile figures (session.profile.memory) and the process's peak resident memory
   (this part runs first, so the peak is its own) grow with L (the Engine's totals at L/4
   and L/2 too, compiled only: linear, plus the chunk-squared blocks), while the L x L
   matrices of vanilla attention's forward alone make the Engine refuse its graph.
3. Forward + backward at G=8, L=2048, D=128, float, 4 x 4 chunks, against numpy doing
   the same causal attention forward + backward in float32 (budget: 0.7x). The
   emulator runs the forward program (with its stash), then the grad program given that
   stash (out= and log_sum_exp=, so it does not recompute the forward); numpy computes
   the whole L x L matrices once. Best of REPEATS runs in each of ROUNDS rounds that
   alternate the two, each library timed in its own block:
   both bring an OpenBLAS whose idle threads spin for a while after a call (see
   matmul.py). OPENBLAS_NUM_THREADS sets the BLAS threads of both.
"""
import os
import resource
import time

import numpy as np
from ratios import report
from timing import best_times

import popdsl as pd
from popdsl.testing.attention import causal_attention, causal_attention_grad

REPEATS, ROUNDS = 2, 3
STRICT_MEMORY = {"debug.allowOutOfMemory": "false"}


def flash_graph(shape, num_chunks, device):
    """A graph with programs "forward" and "backward" (the grad) for qkv [3, *shape]."""
    g = pd.Graph(device)
    qkv = g.variable(pd.float32, (3, *shape), name="qkv")
    d_out = g.variable(pd.float32, shape, name="d_out")
    with pd.Sequence("forward") as forward:
        out, log_sum_exp = pd.nn.flash_attention_qkv_packed_with_stash(qkv, *num_chunks)
    with pd.Sequence("backward") as backward:
        dqkv = pd.nn.flash_attention_qkv_packed_grad(d_out, qkv, *num_chunks, out=out, log_sum_exp=log_sum_exp)
    return g, {"forward": forward, "backward": backward}, (qkv, d_out, out, dqkv)


def speed_against_numpy():
    shape, num_chunks = (8, 2048, 128), (4, 4)
    device = pd.ipu_model()
    g, programs, (qkv, d_out, out, dqkv) = flash_graph(shape, num_chunks, device)
    rng = np.random.default_rng(0)
    qkv_values = (rng.standard_normal((3, *shape)) * shape[-1] ** -0.25).astype(np.float32)
    d_out_values = rng.standard_normal(shape).astype(np.float32)

    def numpy_forward_backward():
        p = causal_attention(qkv_values, np.float32)[2]
        causal_attention_grad(qkv_values, d_out_values, probabilities=p, dtype=np.float32)

    with pd.Session(g, programs, device=device) as s:
        s.write(qkv, qkv_values)
        s.write(d_out, d_out_values)
        # Rounds alternate the two, so a neighbour's load that comes and goes hits both.
        rounds = [best_times([lambda: s.run("forward"), lambda: s.run("backward"), numpy_forward_backward], REPEATS)
                  for _ in range(ROUNDS)]
        error = np.abs(s.read(out) - causal_attention(qkv_values)[0]).max()
    forward, backward, reference = (min(column) for column in zip(*rounds))
    emulator = forward + backward
    assert error < 1e-4, f"the flash attention output is off by {error}"
    print(f"3. fwd+bwd G=8 L=2048 D=128 float, 4x4 chunks: emulator {emulator:.2f} s (forward {forward:.2f} s, "
          f"backward {backward:.2f} s), numpy float32 {reference:.2f} s; max |out error| {error:.1e}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    report("flash attention fwd+bwd L=2048 / numpy vanilla", emulator / reference, 0.7)


def describe(session, bytes_per_tile):
    """The Engine's memory per tile (variables and constants, from the tile mapping)."""
    per_tile = np.array(session.profile.memory.tile_bytes)
    top = per_tile.max()
    return f"max {top:,} bytes/tile ({100 * top / bytes_per_tile:.0f}% of a tile), total {per_tile.sum() / 2**20:,.0f} MiB"


def long_sequences():
    shape, num_chunks = (1, 16384, 64), (16, 16)
    device = pd.ipu_model()
    bytes_per_tile = device.getTarget().getBytesPerTile()
    start = time.perf_counter()
    g, programs, (qkv, d_out, out, dqkv) = flash_graph(shape, num_chunks, device)
    built = time.perf_counter()
    session = pd.Session(g, programs, device=device, options=STRICT_MEMORY)
    compiled = time.perf_counter()
    print(f"1. build + compile, forward and grad, L=16384 with 16x16 chunks: build {1e3 * (built - start):.0f} ms, "
          f"compile {1e3 * (compiled - built):.0f} ms, total {1e3 * (compiled - start):.0f} ms (budget: well under 1 s)")

    rng = np.random.default_rng(1)
    with session as s:
        s.write(qkv, (rng.standard_normal((3, *shape)) * shape[-1] ** -0.25).astype(np.float32))
        s.write(d_out, rng.standard_normal(shape).astype(np.float32))
        seconds = {}
        for name in programs:
            begin = time.perf_counter()
            s.run(name)
            seconds[name] = time.perf_counter() - begin
        assert np.isfinite(s.read(dqkv)).all()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    scores = shape[1] ** 2 * 4
    print(f"2. memory at L=16384, G=1, D=64, float: peak resident memory of this process {peak / 2**20:,.0f} MiB "
          f"(vanilla's L x L float scores alone: {scores / 2**20:,.0f} MiB); per tile "
          f"({device.getTarget().getNumTiles()} tiles of {bytes_per_tile:,} bytes):")
    print(f"   flash 16x16 chunks, forward + grad: {describe(session, bytes_per_tile)}; compiled with strict "
          f"memory and ran: forward {seconds['forward']:.1f} s, grad {seconds['backward']:.1f} s")
    totals = {}
    for length in (shape[1] // 4, shape[1] // 2):  # compiled only
        g, programs, _ = flash_graph((1, length, shape[2]), num_chunks, device)
        totals[length] = sum(pd.Session(g, programs, device=device).profile.memory.tile_bytes)
    totals[shape[1]] = sum(session.profile.memory.tile_bytes)
    print("   flash forward + grad, 16x16 chunks, by L: " + ", ".join(
        f"L={length}: {total / 2**20:,.0f} MiB (vanilla's scores {length**2 * 4 / 2**20:,.0f} MiB)"
        for length, total in totals.items()))

    g = pd.Graph(device)
    qkv = g.variable(pd.float32, (3, *shape), name="qkv")
    with pd.Sequence() as vanilla:
        pd.nn.vanilla_attention(qkv)
    figures = describe(pd.Session(g, vanilla, device=device), bytes_per_tile)  # the IPUModel default: accounted only
    try:
        pd.Session(g, vanilla, device=device, options=STRICT_MEMORY)
        outcome = "the Engine accepted it (unexpected)"
    except pd.poplar.graph_memory_allocation_error as e:
        outcome = f"with strict memory the Engine refuses it: {e}"
    print(f"   vanilla, forward only: {figures}; {outcome}")


if __name__ == "__main__":
    long_sequences()  # first: the process's peak memory is then its own
    speed_against_numpy()
