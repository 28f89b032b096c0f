"""Cost of one tiny program step inside a long Repeat (budget: 20 ns).

The body copies one element; the program runs it 10**6 times. A second engine runs
an empty Repeat of the same length, so the loop's own cost is reported separately.
"""
import time

from ratios import report

from popdsl import poplar, program

ITERATIONS = 10**6


def run_once(body_factory):
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    a = graph.addVariable(poplar.FLOAT, [2], "a")
    graph.setTileMapping(a, 0)
    engine = poplar.Engine(graph, program.Repeat(ITERATIONS, body_factory(a)))
    engine.load(device)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        engine.run(0)
        best = min(best, time.perf_counter() - start)
    return best / ITERATIONS


copy_step = run_once(lambda a: program.Copy(a[0], a[1]))
empty_loop = run_once(lambda a: program.Sequence())
print(f"one-element Copy per iteration: {copy_step * 1e9:.1f} ns")
print(f"empty Repeat iteration:         {empty_loop * 1e9:.1f} ns")
report("tiny step in a Repeat", copy_step * 1e9, 20, unit=" ns")
