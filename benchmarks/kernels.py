"""The emulator's kernels beyond the budgeted benchmarks, against numpy doing the same work.

Casts and maps in half, row kernels (arg-max, top-k, softmax, log-softmax), float maps that
were library calls (log, sqrt), a column reduction, products with B stored transposed
(x @ W^T) and random numbers, each on about a million elements. Each case runs REPEATS
times in a Repeat on the emulator (every core) and is checked against numpy in float64
before it is timed; numpy does the same work its own way. Prints microseconds and the ratio
for each; no budgets (run_all.py's benchmarks have those): this shows where a kernel stands.

    python benchmarks/kernels.py [--only SUBSTRING]
"""
import argparse
from typing import Callable, NamedTuple, Optional

import numpy as np
from timing import best_times

import popdsl as pd

REPEATS = 50
rng = np.random.default_rng(0)
X = rng.standard_normal((1024, 1024)).astype(np.float32)
POSITIVE = np.abs(X) + np.float32(0.1)
HALF = X.astype(np.float16)
W = rng.standard_normal((512, 512)).astype(np.float32)  # used as W^T: [out, in] row-major
A4, A32 = X[:4, :512].copy(), X[:32, :512].copy()


class Case(NamedTuple):
    """`build(graph)` adds the op to the open program and returns its result; `numpy()`
    computes the same in numpy; `reference()` the float64 values the result is checked
    against, within `tolerance` of the largest (None: only the statistics `check` asserts)."""
    name: str
    build: Callable
    numpy: Callable
    reference: Optional[Callable]
    tolerance: float = 1e-6
    check: Optional[Callable] = None


def log_softmax(x):
    shifted = x - x.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def uniform_looks_right(values):
    assert values.min() >= -1 and values.max() < 1 and abs(values.mean()) < 0.01, "uniform draws off"


X64, HALF64 = X.astype(np.float64), HALF.astype(np.float64)
CASES = [
    Case("cast float -> half [1024,1024]", lambda g: pd.cast(g.constant(X, name="x"), pd.float16),
         lambda: X.astype(np.float16), lambda: X.astype(np.float16).astype(np.float64), 0),
    Case("half map x*x+x [1024,1024]", lambda g: (lambda h: h * h + h)(g.constant(HALF, name="h")),
         lambda: HALF * HALF + HALF, lambda: (HALF * HALF + HALF).astype(np.float64), 0),
    Case("half exp [1024,1024]", lambda g: pd.exp(g.constant(HALF, name="h")), lambda: np.exp(HALF),
         lambda: np.exp(HALF64), 1e-3),
    Case("argmax along rows [1024,1024]", lambda g: pd.argmax(g.constant(X, name="x"), axis=1),
         lambda: X.argmax(1), lambda: X64.argmax(1), 0),
    Case("top-8 along rows [1024,1024]", lambda g: pd.topk(g.constant(X, name="x"), 8)[0],
         lambda: -np.partition(-X, 8, axis=1)[:, :8], lambda: -np.sort(-X64, axis=1)[:, :8], 0),
    Case("softmax along rows [1024,1024]", lambda g: pd.nonlinearity(g.constant(X, name="x"), "softmax"),
         lambda: softmax(X), lambda: softmax(X64)),
    Case("log_softmax along rows [1024,1024]", lambda g: pd.nn.log_softmax(g.constant(X, name="x")),
         lambda: log_softmax(X), lambda: log_softmax(X64)),
    Case("log [1024,1024]", lambda g: pd.log(g.constant(POSITIVE, name="p")), lambda: np.log(POSITIVE),
         lambda: np.log(POSITIVE.astype(np.float64))),
    Case("sqrt [1024,1024]", lambda g: pd.sqrt(g.constant(POSITIVE, name="p")), lambda: np.sqrt(POSITIVE),
         lambda: np.sqrt(POSITIVE.astype(np.float64))),
    Case("sum of columns [1024,1024]", lambda g: pd.reduce_sum(g.constant(X, name="x"), 0), lambda: X.sum(0),
         lambda: X64.sum(0)),
    Case("x @ W^T [4,512]x[512,512]^T", lambda g: pd.matmul(g.constant(A4, name="a"), g.constant(W, name="w").T),
         lambda: A4 @ W.T, lambda: A4.astype(np.float64) @ W.T.astype(np.float64), 1e-5),
    Case("x @ W^T [32,512]x[512,512]^T", lambda g: pd.matmul(g.constant(A32, name="a"), g.constant(W, name="w").T),
         lambda: A32 @ W.T, lambda: A32.astype(np.float64) @ W.T.astype(np.float64), 1e-5),
    Case("uniform [1024,1024]", lambda g: pd.random.uniform(g, (1024, 1024), -1.0, 1.0),
         lambda: rng.uniform(-1, 1, (1024, 1024)).astype(np.float32), None, check=uniform_looks_right),
]


def timed(case):
    """(emulator seconds a repeat, numpy seconds), after checking the emulator's result. Each
    case's session is closed before the next opens: an attached one left behind slowed the next."""
    device = pd.ipu_model()
    graph = pd.Graph(device)
    with pd.Sequence("kernel") as program:
        with pd.Repeat(REPEATS):
            out = case.build(graph)
    with pd.Session(graph, program, device=device) as session:
        session.run()
        checked(case, np.asarray(session.read(out)))
        emulator, reference = best_times([session.run, case.numpy], 10)
    return emulator / REPEATS, reference


def checked(case, result):
    """Exits naming the case when its result is off its reference."""
    if case.check is not None:
        case.check(result)
    if case.reference is None:
        return
    want = case.reference()
    error = float(np.max(np.abs(result.astype(np.float64) - want)))
    if not error <= case.tolerance * max(1.0, float(np.max(np.abs(want)))):
        raise SystemExit(f"{case.name}: off its reference by {error}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    args = parser.parse_args()
    print(f"{'case':40s} {'emulator':>10s} {'numpy':>10s}  ratio  (us; results checked against float64 numpy)")
    for case in CASES:
        if args.only not in case.name:
            continue
        emulator, reference = timed(case)
        print(f"{case.name:40s} {emulator * 1e6:10.1f} {reference * 1e6:10.1f}  {emulator / reference:5.2f}x",
              flush=True)
