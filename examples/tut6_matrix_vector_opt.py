"""Poplar tutorial 6 (a matrix-vector product split into partial sums) in popdsl.

Each row is cut into `split` segments: one vertex per segment computes a partial dot
product, then one vertex per row adds the row's partials. The split is the one with
the lowest estimated cycles, estimated from the target's tile count, workers and
exchange bandwidth as the tutorial does. Prints what the C++ tutorial prints.

    python examples/tut6_matrix_vector_opt.py [rows cols] [--device model-ipu1|model-ipu2]
"""
import argparse
import sys
from typing import NamedTuple

import numpy as np

from popdsl import poplar, program

CODELETS = r"""
#include <poplar/Vertex.hpp>
using namespace poplar;

// The dot product of one row segment with the matching input segment.
class DotProductVertex : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<float> out;
  bool compute() {
    float sum = 0;
    for (unsigned i = 0; i < a.size(); ++i)
      sum += a[i] * b[i];
    *out = sum;
    return true;
  }
};

// The sum of one row's partial dot products.
class ReduceVertex : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  bool compute() {
    float sum = 0;
    for (float partial : in)
      sum += partial;
    *out = sum;
    return true;
  }
};
"""

FLOAT_BYTES = 4
VERTEX_START_CYCLES = 5  # the tutorial's guess for starting a vertex and its loop


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def vertex_cycles(elements: int) -> int:
    """A vertex adding or multiply-accumulating `elements` floats, 2 per cycle."""
    return VERTEX_START_CYCLES + (elements + 1) // 2


class Cost(NamedTuple):
    compute: int
    exchange: int
    reduce_exchange: int
    reduce_compute: int

    @property
    def total(self) -> int:
        return self.compute + self.exchange + self.reduce_exchange + self.reduce_compute


def estimate_cost(target, rows: int, cols: int, split: int) -> Cost:
    """Cycles of the busiest tile in both phases when rows are cut into `split` segments."""
    tiles, workers = target.getNumTiles(), target.getNumWorkerContexts()
    bytes_per_cycle = target.getExchangeBytesPerCycle()
    segment = ceil_div(cols, split)
    # Phase 1: rows * split dot products dealt evenly over the tiles; a tile's
    # workers take turns, so its vertex count rounds up to a multiple of them.
    dot_vertices = max(ceil_div(rows * split, tiles), 1)
    compute = ceil_div(dot_vertices, workers) * workers * vertex_cycles(segment)
    # A tile holds all rows of one segment before the next, so it receives about
    # dot_vertices / rows segments of the input vector.
    exchange = ceil_div(dot_vertices, rows) * segment * FLOAT_BYTES // bytes_per_cycle
    # Phase 2: one vertex per row adds its `split` partials, received from other tiles.
    reduce_vertices = max(ceil_div(rows, tiles), 1)
    reduce_compute = ceil_div(reduce_vertices, workers) * workers * vertex_cycles(split)
    reduce_exchange = reduce_vertices * split * FLOAT_BYTES // bytes_per_cycle
    return Cost(compute, exchange, reduce_exchange, reduce_compute)


def describe(split: int, cost: Cost) -> str:
    return (f"colsAxisSplit={split}, total cost={cost.total} (compute cost={cost.compute}, "
            f"exchange cost={cost.exchange}, reduce exchange cost={cost.reduce_exchange}, "
            f"reduce compute cost={cost.reduce_compute})")


def best_split(target, rows: int, cols: int) -> int:
    costs = {split: estimate_cost(target, rows, cols, split).total for split in range(1, cols)}
    best = min(costs, key=lambda split: (costs[split], split)) if costs else 1
    print("Best split chosen:")
    print(describe(best, estimate_cost(target, rows, cols, best)))
    print(f"Worst cost seen: {max(costs.values(), default=0)}")
    return best


def build_multiply(graph, matrix, vector, out) -> program.Program:
    rows, cols = matrix.shape()
    tiles = graph.getTarget().getNumTiles()
    split = best_split(graph.getTarget(), rows, cols)
    partials = graph.addVariable(poplar.FLOAT, [rows, split], "partials")
    for col in range(cols):  # every tile reads the vector: spread it for memory balance
        graph.setTileMapping(vector[col], col * tiles // cols)

    mul = graph.addComputeSet("mulCS")
    for segment in range(split):
        begin, end = segment * cols // split, (segment + 1) * cols // split
        if begin == end:
            continue
        for row in range(rows):
            tile = (segment * rows + row) * tiles // (split * rows)
            piece = matrix[row].slice(begin, end)
            v = graph.addVertex(mul, "DotProductVertex",
                                {"a": piece, "b": vector.slice(begin, end), "out": partials[row][segment]})
            graph.setTileMapping(v, tile)
            graph.setTileMapping(piece, tile)
            graph.setTileMapping(partials[row][segment], tile)
            graph.setPerfEstimate(v, vertex_cycles(end - begin))

    reduce = graph.addComputeSet("reduceCS")
    for row in range(rows):
        tile = row * tiles // rows
        v = graph.addVertex(reduce, "ReduceVertex", {"in": partials[row], "out": out[row]})
        graph.setTileMapping(v, tile)
        graph.setTileMapping(out[row], tile)
        graph.setPerfEstimate(v, vertex_cycles(split))
    return program.Sequence([program.Execute(mul), program.Execute(reduce)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int, nargs="?", default=10000)
    parser.add_argument("cols", type=int, nargs="?", default=1000)
    parser.add_argument("--device", choices=["model-ipu1", "model-ipu2"], default="model-ipu2")
    args = parser.parse_args()
    rows, cols = args.rows, args.cols
    print(f"Device {args.device}")
    print(f"Multiplying matrix of size {rows}x{cols} by vector of size {cols}")
    print("Constructing compute graph and control program")

    model = poplar.IPUModel(args.device.removeprefix("model-"))
    model.minIPUSyncDelay = 0
    model.relativeSyncDelay = poplar.IPUModel.RelativeSyncDelayType.NO_DELAY
    device = model.createDevice()
    graph = poplar.Graph(device)
    graph.addCodelets(CODELETS)

    matrix = graph.addVariable(poplar.FLOAT, [rows, cols], "matrix")
    vector = graph.addVariable(poplar.FLOAT, [cols], "inputVector")
    out = graph.addVariable(poplar.FLOAT, [rows], "outputVector")
    multiply = build_multiply(graph, matrix, vector, out)

    vector_in = graph.addHostToDeviceFIFO("inputVector", poplar.FLOAT, cols)
    matrix_in = graph.addHostToDeviceFIFO("inputMatrix", poplar.FLOAT, rows * cols)
    result_out = graph.addDeviceToHostFIFO("out", poplar.FLOAT, rows)
    engine = poplar.Engine(graph, program.Sequence([
        program.Copy(vector_in, vector), program.Copy(matrix_in, matrix),
        multiply, program.Copy(out, result_out)]))
    engine.load(device)
    host_vector = np.arange(cols, dtype=np.float32)
    host_matrix = np.outer(np.arange(rows), np.arange(cols)).astype(np.float32)
    host_out = np.zeros(rows, np.float32)
    engine.connectStream("inputVector", host_vector)
    engine.connectStream("inputMatrix", host_matrix)
    engine.connectStream("out", host_out)

    print("Running graph program to multiply matrix by vector")
    engine.run(0)
    expected = host_matrix.astype(np.float64) @ host_vector.astype(np.float64)
    relative_error = np.abs(1 - host_out / np.where(expected == 0, 1, expected))
    relative_error[expected == 0] = np.abs(host_out[expected == 0])
    if np.any(relative_error > 1e-5):
        bad = int(np.argmax(relative_error))
        print(f"ERROR: output {bad}: expected={expected[bad]}, actual={host_out[bad]}")
        return 1
    print("Multiplication result OK")
    engine.printProfileSummary(sys.stdout, {"showExecutionSteps": "true"})
    print("Program complete")
    return 0


if __name__ == "__main__":
    sys.exit(main())
