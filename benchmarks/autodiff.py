"""What pd.grad's recording costs while building, and what building the backward costs.

Builds a stack of dense layers (matmul, bias add, tanh, a slice and a reshape view) with
the tape recording as usual, then with Tape.add replaced by a no-op, and prints the
ratio; then the time pd.grad takes to append the backward, against the forward's.

Then pd.grad's time per layer for chains of 25, 50, 100 and 200 causal attention layers
(projections, flash attention with its chunked loops and in-place writes, a residual
add): the backward's build should be linear in depth (goal: seconds per layer flat within
1.5x from 25 to 200 layers).
"""
import time

import popdsl as pd
from popdsl import recording as tape

LAYERS = 300


def build(with_grad=False):
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (16, 16), name="x")
    weights = [g.variable(pd.float32, (16, 16), name=f"w{i}") for i in range(LAYERS)]
    start = time.perf_counter()
    with pd.Sequence():
        h = x
        for w in weights:
            h = pd.tanh(h @ w + 1.0)[::1, :].reshape(16, 16)
        forward = time.perf_counter() - start
        if with_grad:
            start = time.perf_counter()
            pd.grad(h.sum(), weights)
            return forward, time.perf_counter() - start
    return forward, 0.0


def best(fn, repeats=3):
    return min((fn() for _ in range(repeats)), key=lambda times: times[1])


def unrecorded_build():
    original = tape.Tape.add
    tape.Tape.add = lambda self, record, sources=None, of_a_view=False: [(record, k) for k in
                                                                           range(len(record.outputs))]
    try:
        return build()
    finally:
        tape.Tape.add = original


recorded = unrecorded = float("inf")
for _ in range(3):  # interleaved, so both see the same machine
    recorded = min(recorded, build()[0])
    unrecorded = min(unrecorded, unrecorded_build()[0])
forward, backward = best(lambda: build(with_grad=True))
print(f"forward of {LAYERS} layers: {recorded * 1e3:.0f} ms recorded, {unrecorded * 1e3:.0f} ms unrecorded "
      f"(recording costs {recorded / unrecorded:.2f}x)")
print(f"pd.grad appending the backward: {backward * 1e3:.0f} ms ({backward / forward:.2f}x the forward's build)")


def attention_chain_grad_seconds(layers, shape=(2, 64, 16)):
    """Seconds pd.grad takes to differentiate `layers` attention layers."""
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, shape, name="x")
    projections = [g.variable(pd.float32, (3, shape[-1], shape[-1]), name=f"wqkv{i}") for i in range(layers)]
    with pd.Sequence():
        h = x
        for w in projections:
            h = h + pd.nn.scaled_dot_product_attention(h @ w[0], h @ w[1], h @ w[2], num_chunks=(2, 2))
        start = time.perf_counter()
        pd.grad(h.sum(), projections)
    return time.perf_counter() - start


per_layer = {n: attention_chain_grad_seconds(n) / n for n in (25, 50, 100, 200)}
print("pd.grad of an attention chain, ms per layer: "
      + ", ".join(f"{n} layers {seconds * 1e3:.1f}" for n, seconds in per_layer.items())
      + f" (200 against 25: {per_layer[200] / per_layer[25]:.2f}x)")
