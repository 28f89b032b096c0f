"""Fused element-wise maps on the emulator's thread pool vs numpy.

1. `tanh(x) * y + exp(-x*x)` over 8M floats as one fused popops map, against numpy's
   separate ufuncs (budget: 1.2 / cores of numpy's time), and the same engine limited
   to one thread (the engine option emulator.numThreads), whose ratio to the pool is
   the speed-up. The results are checked against float64 numpy. On a busy machine the
   wall time cannot show the pool at work, so the CPU time the pool's workers spent on
   the map (from /proc) is printed too.
2. A small map (256 floats, a few hundred cycles of work) inside a Repeat: with the pool
   and with one thread, which must cost the same (budget 1.1x): small compute sets do
   not wake the pool.
"""
import os
import threading

import numpy as np
from ratios import report
from timing import best_times, cpu_seconds_of_threads

from popdsl import poplar, popops, poputil, program
from popdsl.popops import expr as pe

N = 8 * 1024 * 1024
SMALL, SMALL_STEPS = 256, 20000
REPEATS = 5
CORES = os.cpu_count() or 1
FUSED = pe.Add(pe.Mul(pe.Tanh(pe._1), pe._2), pe.Exp(pe.Neg(pe.Mul(pe._1, pe._1))))

rng = np.random.default_rng(0)


def engines(size, repeat=1):
    """The fused map over `size` floats, `repeat` times, as engines with the pool and one thread."""
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 16
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    values = [rng.standard_normal(size).astype(np.float32) for _ in range(2)]
    inputs = []
    for name, array in zip("xy", values):
        t = graph.addVariable(poplar.FLOAT, [size], name)
        poputil.mapTensorLinearly(graph, t)
        graph.setInitialValue(t, array)
        inputs.append(t)
    body = program.Sequence()
    out = popops.map(graph, FUSED, inputs, body, "fused")
    graph.createHostRead("out", out)
    prog = program.Sequence([program.Repeat(repeat, body)]) if repeat > 1 else body
    built = []
    for threads in ("auto", "1"):
        engine = poplar.Engine(graph, prog, {"emulator.numThreads": threads})
        engine.load(device)
        built.append(engine)
    return values, built


(x, y), (pooled, single) = engines(N)
numpy_time, pooled_time, single_time = best_times(
    [lambda: np.tanh(x) * y + np.exp(-x * x), lambda: pooled.run(0), lambda: single.run(0)], REPEATS)
result = pooled.readTensor("out", np.zeros(N, np.float32))
x64, y64 = x.astype(np.float64), y.astype(np.float64)
error = float(np.max(np.abs(result - (np.tanh(x64) * y64 + np.exp(-x64 * x64)))))
assert error < 1e-5, f"the fused map is off by {error}"
print(f"1. tanh(x)*y + exp(-x*x) over {N} floats: emulator {pooled_time * 1e3:.1f} ms on {CORES} core(s), "
      f"{single_time * 1e3:.1f} ms on one thread, numpy {numpy_time * 1e3:.1f} ms; max |error| {error:.1e}")
before = cpu_seconds_of_threads()
pooled.run(0)
after = cpu_seconds_of_threads()
caller = threading.get_native_id()
spent = {t: after[t] - before.get(t, 0) for t in after}
workers = sum(s for t, s in spent.items() if t != caller)
if spent:
    print(f"   one pooled run's CPU time: {spent[caller] * 1e3:.0f} ms on the calling thread, "
          f"{workers * 1e3:.0f} ms on the others")
report("fused map 8M floats / numpy", pooled_time / numpy_time, 1.2 / CORES)
report("fused map 8M floats, pool / one thread", pooled_time / single_time, None)

_, (pooled, single) = engines(SMALL, SMALL_STEPS)
pooled_time, single_time = best_times([lambda: pooled.run(0), lambda: single.run(0)], 3 * REPEATS)
print(f"2. {SMALL}-float map x {SMALL_STEPS} in a Repeat: pool {pooled_time / SMALL_STEPS * 1e9:.0f} ns a step, "
      f"one thread {single_time / SMALL_STEPS * 1e9:.0f} ns")
report(f"small map ({SMALL} floats), pool / one thread", pooled_time / single_time, 1.1)
