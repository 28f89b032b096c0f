"""Emulator convolution vs a numpy im2col convolution on the same machine.

Each case times engine.run of a program that only does the convolution (forward, or
the weight deltas), and numpy's im2col (a strided window view copied into columns)
with one float32 matmul per group, best of REPEATS. The two are timed in separate
blocks with a pause between, as benchmarks/matmul.py explains.
"""
import numpy as np
from timing import best_times

from popdsl import poplar, poplin, poputil, program

REPEATS = 10
CASES = {  # name: (batch, in channels, out channels, groups, field, kernel, padding)
    "conv 3x3 [8,64,32,32] -> 64": (8, 64, 64, 1, (32, 32), (3, 3), 1),
    "conv 3x3 groups=4 [8,64,32,32] -> 64": (8, 64, 64, 4, (32, 32), (3, 3), 1),
    "conv 1x1 [16,256,14,14] -> 128": (16, 256, 128, 1, (14, 14), (1, 1), 0),
}


def conv_params(batch, in_chans, out_chans, groups, field, kernel, padding):
    dims = len(field)
    params = poplin.ConvParams(poplar.FLOAT, batch, list(field), list(kernel), in_chans // groups,
                               out_chans // groups, groups)
    params.inputTransform = poplin.ConvParams.InputTransform(
        [0] * dims, [0] * dims, [1] * dims, [padding] * dims, [padding] * dims, [False] * dims)
    return params


def emulator_pass(params, x, w, dy, weight_deltas):
    """A function that runs an engine whose program only does one pass."""
    device = poplar.IPUModel("ipu2").createDevice()
    graph = poplar.Graph(device.getTarget())
    tensors = []
    for name, values in (("x", x), ("w", w), ("dy", dy)):
        tensor = graph.addVariable(poplar.FLOAT, list(values.shape), name)
        poputil.mapTensorLinearly(graph, tensor)
        graph.setInitialValue(tensor, values)
        tensors.append(tensor)
    seq = program.Sequence()
    if weight_deltas:
        poplin.calculateWeightDeltas(graph, tensors[2], tensors[0], params, seq, "wu")
    else:
        poplin.convolution(graph, tensors[0], tensors[1], params, False, seq, "fwd")
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    return lambda: engine.run(0)


def numpy_columns(x, groups, kernel, padding):
    """[batch, groups, in_chans * taps, positions] columns of a stride-1 2-D convolution."""
    batch, chans = x.shape[:2]
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, kernel, axis=(2, 3))  # [b, c, oh, ow, kh, kw]
    oh, ow = windows.shape[2:4]
    columns = windows.transpose(0, 1, 4, 5, 2, 3).reshape(batch, groups, -1, oh * ow)
    return np.ascontiguousarray(columns)


def numpy_pass(x, w, dy, groups, kernel, padding, weight_deltas):
    g_w = w.reshape(groups, w.shape[1], -1)  # [groups, out, in * taps]
    if weight_deltas:
        g_dy = dy.reshape(dy.shape[0], groups, dy.shape[1] // groups, -1)
        return lambda: np.einsum("ngop,ngkp->gok", g_dy, numpy_columns(x, groups, kernel, padding), optimize=True)
    return lambda: np.matmul(g_w, numpy_columns(x, groups, kernel, padding))


rng = np.random.default_rng(0)
for name, case in CASES.items():
    batch, in_chans, out_chans, groups, field, kernel, padding = case
    params = conv_params(*case)
    x = rng.standard_normal((batch, in_chans, *field), dtype=np.float32)
    w = rng.standard_normal((groups, out_chans // groups, in_chans // groups, *kernel), dtype=np.float32)
    dy = rng.standard_normal((batch, out_chans, *params.getOutputFieldShape()), dtype=np.float32)
    for weight_deltas, pass_name in ((False, "forward"), (True, "weight deltas")):
        emulator, reference = best_times([emulator_pass(params, x, w, dy, weight_deltas),
                                          numpy_pass(x, w, dy, groups, kernel, padding, weight_deltas)],
                                         REPEATS)
        print(f"{name} {pass_name}: emulator {emulator * 1e3:.2f} ms, numpy im2col {reference * 1e3:.2f} ms, "
              f"ratio {emulator / reference:.2f}x")
