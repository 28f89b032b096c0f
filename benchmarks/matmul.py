"""Emulator matmul vs numpy's on the same machine (budget: within 1.2x).

Each case times engine.run of a program that only does the matmul, and numpy's
matmul of the same float32 arrays into a preallocated output, best of REPEATS.
The two are timed in separate blocks with a pause between: numpy and the emulator
each bring their own OpenBLAS, whose idle threads spin for a while after a call,
so interleaving the two measures each library's spinning threads, not its speed.
"""
import numpy as np
from timing import best_times

from popdsl import poplar, poplin, poputil, program

REPEATS = 20
CASES = {  # name: (A shape, B shape)
    "matMul [1024,1024]x[1024,1024]": ((1024, 1024), (1024, 1024)),
    "matMulGrouped [8,256,128]x[8,128,256]": ((8, 256, 128), (8, 128, 256)),
}


def emulator_matmul(a, b):
    """A function that runs an engine whose program only computes a @ b."""
    device = poplar.IPUModel("ipu2").createDevice()
    graph = poplar.Graph(device.getTarget())
    operands = []
    for name, values in (("a", a), ("b", b)):
        tensor = graph.addVariable(poplar.FLOAT, list(values.shape), name)
        poputil.mapTensorLinearly(graph, tensor)
        graph.setInitialValue(tensor, values)
        operands.append(tensor)
    seq = program.Sequence()
    if a.ndim == 3:
        poplin.matMulGrouped(graph, *operands, seq, poplar.FLOAT, "matmul")
    else:
        poplin.matMul(graph, *operands, seq, "matmul")
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    return lambda: engine.run(0)


def numpy_matmul(a, b):
    out = np.empty(a.shape[:-1] + b.shape[-1:], np.float32)
    return lambda: np.matmul(a, b, out=out)


rng = np.random.default_rng(0)
for name, (a_shape, b_shape) in CASES.items():
    a = rng.standard_normal(a_shape, dtype=np.float32)
    b = rng.standard_normal(b_shape, dtype=np.float32)
    emulator, reference = best_times([emulator_matmul(a, b), numpy_matmul(a, b)], REPEATS)
    print(f"{name}: emulator {emulator * 1e3:.2f} ms, numpy {reference * 1e3:.2f} ms, "
          f"ratio {emulator / reference:.2f}x (budget 1.2x)")
