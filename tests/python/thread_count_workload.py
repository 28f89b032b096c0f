"""Graphs whose compute sets are big enough to run on the emulator's thread pool:
element-wise maps (plain, through transposed views, in place, in half precision, and one
of few elements but much work per element),
reductions along rows and columns, casts, copies, dynamic slices and updates, a
multi-slice, row kernels (sort, top-k, arg-max, softmax) and random numbers. test_thread_counts.py
runs them with several thread counts.

`python thread_count_workload.py OUT.npz` (POPDSL_NUM_THREADS in the environment)
saves the inputs and the results."""
import sys

import numpy as np

from popdsl import poplar, popnn, popops, poprand, poputil, program
from popdsl.popops import expr as pe

ROWS, COLS = 256, 512  # 131,072 elements: several blocks of every kernel
CELL_ROWS = 16  # 8,192 elements
CELL = pe.Add(pe.Mul(pe.Sigmoid(pe._1), pe._2), pe.Mul(pe.Sigmoid(pe._2), pe.Tanh(pe._1)))


def inputs():
    rng = np.random.default_rng(15)
    offsets = rng.integers(0, 2 * ROWS, size=(200, 1)).astype(np.uint32)  # half out of range
    offsets[:2, 0] = [200, 17]  # the dynamic slice's (its slice wraps past the end) and update's
    return {"x": rng.standard_normal((ROWS, COLS)).astype(np.float32),
            "y": rng.standard_normal((ROWS, COLS)).astype(np.float32), "offsets": offsets,
            "seed": np.array([12345, 678], np.uint32)}


def run(options=None):
    """Runs the graphs with engine `options`; returns the inputs and {name: result}."""
    values = inputs()
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    seq = program.Sequence()

    def variable(name, array):
        t = graph.addVariable(poplar.FLOAT if array.dtype == np.float32 else poplar.UNSIGNED_INT,
                              list(array.shape), name)
        poputil.mapTensorLinearly(graph, t)
        graph.setInitialValue(t, array)
        return t

    x, y, offsets, seed = (variable(name, values[name]) for name in ("x", "y", "offsets", "seed"))
    fused = pe.Add(pe.Mul(pe.Tanh(pe._1), pe._2), pe.Exp(pe.Neg(pe.Mul(pe._1, pe._1))))
    results = {
        "map": popops.map(graph, fused, [x, y], seq),
        "map_transposed": popops.map(graph, fused, [x.transpose(), y.transpose()], seq),
        "map_half": popops.map(graph, fused, [popops.cast(graph, x, poplar.HALF, seq),
                                              popops.cast(graph, y, poplar.HALF, seq)], seq),
        # 8K elements, as an LSTM step's gates: few elements, but work enough to split.
        "map_cell": popops.map(graph, CELL, [x.slice(0, CELL_ROWS, 0), y.slice(0, CELL_ROWS, 0)], seq),
        "sum_rows": popops.reduce(graph, x, [1], popops.ReduceParams(popops.Operation.ADD), seq),
        "sum_columns": popops.reduce(graph, x, [0], popops.ReduceParams(popops.Operation.ADD), seq),
        "max_columns": popops.reduce(graph, y, [0], popops.ReduceParams(popops.Operation.MAX), seq),
        "cast_half": popops.cast(graph, y, poplar.HALF, seq),
        "slice": popops.dynamicSlice(graph, x, offsets[0], [0], [ROWS // 2], seq),
        "multi_slice": popops.multiSlice(graph, x, offsets, [0], [1], seq, popops.SlicePlan(), {}),
        "sorted_rows": popops.sort(graph, x, 1, seq),
        "top_8": popops.topK(graph, seq, y, popops.TopKParams(8, True, popops.SortOrder.DESCENDING)),
        "arg_max": popnn.argMax(graph, x, seq),
        "softmax": popnn.nonLinearity(graph, popnn.NonLinearityType.SOFTMAX_STABLE, x, seq),
        "uniform": poprand.uniform(graph, seed, 7, x, poplar.FLOAT, -1.0, 1.0, seq),
        "normal": poprand.normal(graph, seed, 7, x, poplar.FLOAT, 0.0, 1.0, seq),
    }
    in_place = graph.clone(x, "in_place")
    seq.add(program.Copy(x, in_place))
    popops.mapInPlace(graph, pe.Add(pe.Mul(pe._1, pe._1), pe._2), [in_place, y], seq)
    transposed = graph.addVariable(poplar.FLOAT, [COLS, ROWS], "transposed")
    poputil.mapTensorLinearly(graph, transposed)
    seq.add(program.Copy(y.transpose(), transposed))
    updated = graph.clone(x, "updated")
    seq.add(program.Copy(x, updated))
    popops.dynamicUpdate(graph, updated, y.slice(0, ROWS // 2, 0), offsets[1], [0], [ROWS // 2], seq)
    results.update(in_place=in_place, transposed=transposed, updated=updated)

    for name, t in results.items():
        graph.createHostRead(name, t)
    engine = poplar.Engine(graph, seq, options or {})
    engine.load(device)
    engine.run(0)
    return values, {name: engine.readTensor(name, np.zeros(t.shape(), t.elementType().numpy_dtype))
                    for name, t in results.items()}


if __name__ == "__main__":
    values, results = run()
    np.savez(sys.argv[1], **results)
