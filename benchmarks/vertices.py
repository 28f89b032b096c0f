"""Per-vertex emulator overhead of custom vertices, and codelet compile/cache times.

A compute set of trivial vertices (one float copied) runs many times inside a
Repeat; the time per vertex execution is the emulator's overhead beyond
compute(). Budget: <= 1 us per vertex execution. Views that need gathering
(strided) are timed too.
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from popdsl import poplar, program

CODELETS = """
#include <poplar/Vertex.hpp>
class Copy1 : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;
  poplar::Output<poplar::Vector<float>> out;
  void compute() { out[0] = in[0]; }
};
"""
VERTICES = 1000
REPEATS = 200


def graph_with_codelets(tiles):
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = tiles
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    start = time.perf_counter()
    graph.addCodelets(CODELETS)
    return device, graph, time.perf_counter() - start


def seconds_per_vertex(tiles, strided):
    device, graph, _ = graph_with_codelets(tiles)
    x = graph.addVariable(poplar.FLOAT, [VERTICES, 2, 2], "x")
    y = graph.addVariable(poplar.FLOAT, [VERTICES, 2, 2], "y")
    cs = graph.addComputeSet("copies")
    for i in range(VERTICES):
        tile = i % tiles
        graph.setTileMapping(x[i], tile)
        graph.setTileMapping(y[i], tile)
        # strided: the transposed 2x2 block, gathered into scratch and scattered back
        src, dst = (x[i].transpose(), y[i].transpose()) if strided else (x[i], y[i])
        v = graph.addVertex(cs, "Copy1", {"in": src.flatten(), "out": dst.flatten()})
        graph.setTileMapping(v, tile)
    engine = poplar.Engine(graph, [program.Repeat(REPEATS, program.Execute(cs)), program.Repeat(REPEATS, program.Sequence())])
    engine.load(device)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        engine.run(0)
        work = time.perf_counter() - start
        start = time.perf_counter()
        engine.run(1)
        best = min(best, work - (time.perf_counter() - start))
    return best / (REPEATS * VERTICES)


# A new process that finds the compiled codelets in the disk cache.
DISK_HIT = f"""
import time
from popdsl import poplar
graph = poplar.Graph(poplar.IPUModel("ipu2").createDevice().getTarget())
start = time.perf_counter()
graph.addCodelets({CODELETS!r})
print(time.perf_counter() - start)
"""

with tempfile.TemporaryDirectory() as cache:
    os.environ["POPDSL_CACHE_DIR"] = cache
    _, _, compile_seconds = graph_with_codelets(1)
    disk_hit = float(subprocess.run([sys.executable, "-c", DISK_HIT], capture_output=True, text=True,
                                    check=True).stdout)
    del os.environ["POPDSL_CACHE_DIR"]
_, _, memory_hit = graph_with_codelets(1)
print(f"codelet compile (cold cache):              {compile_seconds * 1e3:8.1f} ms")
print(f"addCodelets in a new process (disk cache): {disk_hit * 1e3:8.1f} ms")
print(f"addCodelets again in the same process:     {memory_hit * 1e3:8.1f} ms")
for tiles in (1, 16):
    for strided in (False, True):
        us = seconds_per_vertex(tiles, strided) * 1e6
        kind = "strided (gathered)" if strided else "contiguous"
        print(f"per vertex, {tiles:2d} tile(s), {kind:18s}:     {us:8.3f} us (budget 1 us)")

# Tiles on the thread pool: compute-heavy vertices on 16 tiles, one thread vs every core.
PARALLEL = """
import time, numpy as np
from popdsl import poplar, program
model = poplar.IPUModel("ipu2"); model.tilesPerIPU = 16
device = model.createDevice()
graph = poplar.Graph(device.getTarget())
graph.addCodelets('''
#include <poplar/Vertex.hpp>
class Relax : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<float>> x;
  void compute() {
    for (int r = 0; r < 200; ++r)
      for (auto &v : x) v = v * 0.999f + 0.001f;
  }
};
''')
x = graph.addVariable(poplar.FLOAT, [64, 1024], "x")
cs = graph.addComputeSet("relax")
for r in range(64):
    graph.setTileMapping(x[r], r % 16)
    v = graph.addVertex(cs, "Relax", {"x": x[r]})
    graph.setTileMapping(v, r % 16)
engine = poplar.Engine(graph, program.Repeat(10, program.Execute(cs)))
engine.load(device)
best = float("inf")
for _ in range(3):
    start = time.perf_counter(); engine.run(0); best = min(best, time.perf_counter() - start)
print(best)
"""


def parallel_seconds(threads):
    env = dict(os.environ, **({"POPDSL_NUM_THREADS": str(threads)} if threads else {}))
    return float(subprocess.run([sys.executable, "-c", PARALLEL], capture_output=True, text=True, check=True,
                                env=env).stdout)


one, every = parallel_seconds(1), parallel_seconds(None)
print(f"16 tiles of heavy vertices, 1 thread: {one * 1e3:.1f} ms; {os.cpu_count()} cores: {every * 1e3:.1f} ms "
      f"(speedup {one / every:.2f}x)")
