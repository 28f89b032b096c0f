"""Emulator matmuls vs numpy's at the shapes of an LSTM's products (S=100, I=H=256) and
around the few-rows kernel's limit, each product checked against float64 numpy.

The emulator runs each product STEPS times in a Repeat, on the same operands, as an LSTM
runs its per-step products (the weights stay in cache from one step to the next); numpy
runs it STEPS times into a preallocated output. Prints the time of one product and the
ratio; no budget: this is for choosing where the kernel is used.

    python benchmarks/gemm_shapes.py [--threads N]
"""
import argparse
import os

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
THREADS = parser.parse_args().threads
os.environ["OPENBLAS_NUM_THREADS"] = str(THREADS)  # both OpenBLAS builds read it when they load
os.environ["POPDSL_NUM_THREADS"] = str(THREADS)

import numpy as np  # noqa: E402
from timing import best_times  # noqa: E402

import popdsl as pd  # noqa: E402
from popdsl.tensor import Tensor  # noqa: E402

STEPS, REPEATS = 5, 200
# name: (m, k, n, how B is stored: "rows" as [k, n], "transposed" as [n, k], "created" as
# poplin's createMatMulInputRHS lays it out for the product, as an SDK program has it)
CASES = {}
for batch in (32, 1):  # an LSTM step's products: forward with and without preCalcWeights, backward
    CASES.update({
        f"fwd step preCalc B={batch} [{batch},256]x[256,1024]": (batch, 256, 1024, "rows"),
        f"fwd step B={batch} [{batch},512]x[512,1024]": (batch, 512, 1024, "rows"),
        f"bwd step B={batch} [{batch},1024]x[1024,256]": (batch, 1024, 256, "rows"),
        f"bwd step B={batch}, B transposed": (batch, 1024, 256, "transposed"),
        f"fwd step B={batch}, B created": (batch, 512, 1024, "created"),
    })
CASES.update({  # around the kernel's limits
    "m=7 [7,256]x[256,1000]": (7, 256, 1000, "rows"),
    "m=4, B transposed [4,512]x[512,512]": (4, 512, 512, "transposed"),
    "m=64 [64,256]x[256,1024]": (64, 256, 1024, "rows"),
    "m=65 [65,256]x[256,1024]": (65, 256, 1024, "rows"),
    "m=128 [128,256]x[256,1024]": (128, 256, 1024, "rows"),
    "m=256 [256,256]x[256,1024]": (256, 256, 1024, "rows"),
    "m=257 [257,256]x[256,1024]": (257, 256, 1024, "rows"),
    "input projection [3200,256]x[256,1024]": (3200, 256, 1024, "rows"),
})


def emulator_products(a, b_stored, layout):
    """A function running STEPS products a @ b in a Repeat, and one reading the product."""
    device = pd.ipu_model()
    graph = pd.Graph(device)
    a_t = graph.constant(a, name="a")
    if layout == "created":
        b_raw = pd.poplin.createMatMulInputRHS(graph.raw, pd.float32, list(a.shape), list(b_stored.shape), "b")
        graph.raw.setInitialValue(b_raw, b_stored)
        b_t = Tensor(b_raw, graph)
    else:
        b_t = graph.constant(b_stored, name="b")
        b_t = b_t.T if layout == "transposed" else b_t
    c = graph.variable(pd.float32, (a.shape[0], b_t.shape[1]), name="c")
    with pd.Sequence("products") as products:
        with pd.Repeat(STEPS):
            pd.matmul(a_t, b_t, out=c)
    session = pd.Session(graph, products, device=device).__enter__()
    return session.run, lambda: session.read(c)


def numpy_products(a, b):
    out = np.empty((a.shape[0], b.shape[1]), np.float32)

    def run():
        for _ in range(STEPS):
            np.matmul(a, b, out=out)
    return run


rng = np.random.default_rng(0)
print(f"{THREADS} thread(s); microseconds per product, emulator / numpy")
for name, (m, k, n, layout) in CASES.items():
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    b_stored = np.ascontiguousarray(b.T) if layout == "transposed" else b
    run, read = emulator_products(a, b_stored, layout)
    emulator, reference = best_times([run, numpy_products(a, b_stored.T if layout == "transposed" else b)],
                                     REPEATS)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    bound = 1e-5 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert np.all(np.abs(read() - expected) <= bound), f"{name}: the product is off"
    print(f"  {name:45} {emulator / STEPS * 1e6:8.1f} {reference / STEPS * 1e6:8.1f}  "
          f"{emulator / reference:5.2f}x", flush=True)
