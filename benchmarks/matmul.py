"""Emulator matmul vs numpy's on the same machine (budget: within 1.05x), its product
checked against float64 numpy.

Each case times engine.run of a program that only does the matmul, and numpy's
matmul of the same float32 arrays into a preallocated output, best of REPEATS.
The two are timed in separate blocks with a pause between: numpy and the emulator
each bring their own OpenBLAS, whose idle threads spin for a while after a call,
so interleaving the two measures each library's spinning threads, not its speed.
"""
import numpy as np
from ratios import report
from timing import best_times

from popdsl import poplar, poplin, poputil, program

REPEATS = 20
CASES = {  # name: (A shape, B shape)
    "matMul [1024,1024]x[1024,1024]": ((1024, 1024), (1024, 1024)),
    "matMulGrouped [8,256,128]x[8,128,256]": ((8, 256, 128), (8, 128, 256)),
}


def emulator_matmul(a, b):
    """A function that runs an engine whose program only computes a @ b, and one that reads the product."""
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
        product = poplin.matMulGrouped(graph, *operands, seq, poplar.FLOAT, "matmul")
    else:
        product = poplin.matMul(graph, *operands, seq, "matmul")
    graph.createHostRead("product", product)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    return (lambda: engine.run(0)), (lambda: engine.readTensor("product", np.zeros(product.shape(), np.float32)))


def numpy_matmul(a, b):
    out = np.empty(a.shape[:-1] + b.shape[-1:], np.float32)
    return lambda: np.matmul(a, b, out=out)


rng = np.random.default_rng(0)
for name, (a_shape, b_shape) in CASES.items():
    a = rng.standard_normal(a_shape, dtype=np.float32)
    b = rng.standard_normal(b_shape, dtype=np.float32)
    run, read = emulator_matmul(a, b)
    emulator, reference = best_times([run, numpy_matmul(a, b)], REPEATS)
    error = float(np.max(np.abs(read() - np.matmul(a.astype(np.float64), b.astype(np.float64)))))
    assert error < 1e-3, f"{name}: the product is off by {error}"
    print(f"{name}: emulator {emulator * 1e3:.2f} ms, numpy {reference * 1e3:.2f} ms, max |error| {error:.1e}")
    report(f"{name} / numpy", emulator / reference, 1.05)
