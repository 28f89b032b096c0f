"""Causal flash attention on the embedded device, checked against numpy.

Builds the forward (with its log-sum-exp stash) and the backward of
pd.nn.flash_attention_qkv_packed for a packed qkv [3, G, L, D], runs both on the
IPU-model emulator, compares them with float64 numpy and prints host timings and a
short profile (`python -m popdsl profile examples/flash_attention.py` for the full one).
"""
import time

import numpy as np

import popdsl as pd
from popdsl.testing.attention import causal_attention, causal_attention_grad

GROUPS, LENGTH, HEAD_DIM = 4, 256, 32  # G = batch * heads


def main():
    num_chunks = pd.nn.chunk_counts(LENGTH, HEAD_DIM)
    started = time.perf_counter()
    device = pd.ipu_model(tiles=16)
    g = pd.Graph(device)
    qkv = g.variable(pd.float32, (3, GROUPS, LENGTH, HEAD_DIM), name="qkv")
    d_out = g.variable(pd.float32, (GROUPS, LENGTH, HEAD_DIM), name="d_out")
    with pd.Sequence("forward") as forward:
        out, log_sum_exp = pd.nn.flash_attention_qkv_packed_with_stash(qkv, *num_chunks)
    with pd.Sequence("backward") as backward:
        dqkv = pd.nn.flash_attention_qkv_packed_grad(d_out, qkv, *num_chunks)
    built = time.perf_counter()
    session = pd.Session(g, {"forward": forward, "backward": backward}, device=device)
    compiled = time.perf_counter()

    rng = np.random.default_rng(0)
    qkv_values = rng.standard_normal(qkv.shape).astype(np.float32) * np.float32(HEAD_DIM ** -0.25)
    d_out_values = rng.standard_normal(d_out.shape).astype(np.float32)
    with session:
        session.write(qkv, qkv_values)
        session.write(d_out, d_out_values)
        seconds = {}
        for name in ("forward", "backward"):
            start = time.perf_counter()
            session.run(name)
            seconds[name] = time.perf_counter() - start
        results = session.read(out), session.read(log_sum_exp), session.read(dqkv)
        profile = session.profile

    expected_out, expected_lse, p = causal_attention(qkv_values)
    expected_dqkv = causal_attention_grad(qkv_values, d_out_values, probabilities=p)
    expected_lse = expected_lse.reshape(GROUPS, num_chunks[0], -1).transpose(1, 0, 2)  # chunk-major
    errors = [np.abs(got - want).max() for got, want in zip(results, (expected_out, expected_lse, expected_dqkv))]
    assert max(errors) < 1e-4, errors

    print(f"flash attention, qkv [3, {GROUPS}, {LENGTH}, {HEAD_DIM}] float, "
          f"{num_chunks[0]} x {num_chunks[1]} chunks, on {device.getTarget().getNumTiles()} emulated tiles")
    print(f"  host time: build {1e3 * (built - started):.0f} ms, compile {1e3 * (compiled - built):.0f} ms, "
          f"forward {1e3 * seconds['forward']:.1f} ms, backward {1e3 * seconds['backward']:.1f} ms")
    print(f"  max |error| vs float64 numpy: out {errors[0]:.1e}, log-sum-exp {errors[1]:.1e}, dqkv {errors[2]:.1e}")
    print(f"  profile: {profile.total_cycles:,} cycles (estimated, {1e6 * profile.estimated_seconds:.0f} us), "
          f"fullest tile {max(profile.memory.tile_bytes):,} bytes; costliest builder lines:")
    for line in profile.by_line()[:3]:
        print(f"    {line.total_cycles:>10,} cycles  {line.label}")
    print("Program complete")


if __name__ == "__main__":
    main()
