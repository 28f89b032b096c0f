"""The weight update: each backward step's gate gradients dZ, kept or accumulated into the
weight gradients every steps_per_weight_update() steps (popnn's rnnStepsPerWU)."""
from __future__ import annotations

from typing import Optional

import popdsl as pd
from popdsl.dtypes import numpy_dtype
from popdsl.nn.lstm.params import (LstmParams, LstmState, LstmWeights, _check, _check_intermediates, _check_layer,
                                   _Options, _output_shape, _parse_options)
from popdsl.tensor import Tensor


def _previous_outputs(params: LstmParams, inter: Tensor, out: Tensor) -> Tensor:
    """h_0 .. h_{S-2}: the outputs that feed steps 1 .. S-1."""
    sequence = out if params.output_full_sequence else inter[:, -1]
    return sequence[:params.time_steps - 1]


class _GateGradSink:
    """Takes each backward step's gate gradients dZ [B, 4, H]; this one drops them."""

    def add(self, t, gate_grads):
        pass

    def finish(self):
        pass

    def every_step(self) -> Optional[Tensor]:
        """All steps' dZ as [S * B, 4H] once the loop is done, or None when it keeps fewer."""
        return None


class _GateGradSequence(_GateGradSink):
    """Keeps every step's dZ as popnn's backward intermediates [S, 4, B, H]."""

    def __init__(self, graph, params):
        shape = (params.time_steps, 4, params.batch_size, params.output_size)
        self.sequence = graph.variable(params.dtype, shape, name="bwdIntermediates")

    def add(self, t, gate_grads):
        self.sequence.at[t].set(gate_grads.transpose(1, 0, 2))

    def every_step(self):
        return self.sequence.transpose(0, 2, 1, 3).reshape(-1, 4 * self.sequence.shape[-1])


class _WeightGradAccumulator(_GateGradSink):
    """dW += [x_t, h_{t-1}, 1]^T @ dZ_t over a window of steps_per_wu steps at a time, the last
    column giving the bias gradient; steps_per_wu 0 (or >= S) means once, after the loop."""

    def __init__(self, graph, params, opts, state, x, previous_outputs, steps_per_wu):
        s, b, (i, h) = params.time_steps, params.batch_size, params.layer_sizes
        self.params, self.graph = params, graph
        self.window = steps_per_wu if 0 < steps_per_wu < s else s
        self.matmul_options = opts.matmul_options("TRAINING_WU")
        padded = -(-s // self.window) * self.window
        self.operands = graph.variable(params.dtype, (padded, b, i + h + 1), name="wuOperands")
        if padded > s:
            pd.zero(self.operands[s:])
        pd.copy(x, self.operands[:s, :, :i])
        pd.copy(state.output, self.operands[0, :, i:i + h])
        if s > 1:
            pd.copy(previous_outputs, self.operands[1:s, :, i:i + h])
        pd.fill(self.operands[:s, :, i + h], 1)
        self.operands = self.operands.reshape(padded // self.window, self.window * b, i + h + 1)
        accumulator_type = pd.float16 if opts.weight_accumulators_type == "half" else \
            pd.float32 if opts.weight_accumulators_type == "float" else params.dtype
        self.grads = graph.variable(accumulator_type, (i + h + 1, 4 * h), name="weightGrads")
        # One window of the accumulator's type is one product written over the gradients.
        self.overwrites = self.window == s and accumulator_type == params.dtype
        if not self.overwrites:
            pd.zero(self.grads)
        self.gate_grads = graph.variable(params.dtype, (self.window, b, 4 * h), name="gateGradWindow")
        if self.window < s:
            pd.zero(self.gate_grads)  # the slots of a partial first window stay zero

    def _accumulate(self, window_index):
        operands = self.operands[window_index] if isinstance(window_index, int) else \
            self.operands.at[window_index].get()
        gate_grads = self.gate_grads.reshape(-1, self.grads.shape[1])
        if self.overwrites:
            pd.matmul(operands.T, gate_grads, options=self.matmul_options, out=self.grads)
        else:
            pd.matmul_acc(self.grads, operands.T, gate_grads, options=self.matmul_options)

    def add(self, t, gate_grads):
        flat = gate_grads.reshape(gate_grads.shape[0], -1)
        if self.window == self.params.time_steps:
            self.gate_grads.at[t].set(flat)
            return
        slot = pd.map(lambda t: t % self.window, t)
        self.gate_grads.at[slot].set(flat)
        with pd.If(slot == 0):  # the window's earliest step: its gradients are complete
            self._accumulate(pd.map(lambda t: t / self.window, t))

    def finish(self):
        if self.window == self.params.time_steps:
            self._accumulate(0)

    def every_step(self):
        return self.gate_grads.reshape(-1, self.grads.shape[1]) if self.window == self.params.time_steps else None

    def weight_grads(self) -> LstmWeights:
        return _split_weight_grads(self.graph, self.params, self.grads)


def _split_weight_grads(graph, params, grads: Tensor) -> LstmWeights:
    """Copies the [I + H + 1, 4H] accumulator into LstmWeights-shaped tensors."""
    i, h = params.layer_sizes
    parts = [(grads[:i], (4, i, h), "inputWeights"), (grads[i:i + h], (4, h, h), "outputWeights"),
             (grads[i + h:], (4, h), "biases")]
    result = []
    for rows, shape, name in parts:
        target = graph.variable(grads.dtype, shape, name=f"weightGrads/{name}")
        view = rows.reshape(rows.shape[0], 4, h).transpose(1, 0, 2)
        pd.copy(view.reshape(shape), target)
        result.append(target)
    return LstmWeights(*result)


def weight_update(params: LstmParams, state: LstmState, inter: Tensor, bwd_inter: Tensor, weights: LstmWeights,
                  x: Tensor, out: Tensor, options: Optional[dict] = None) -> LstmWeights:
    """Weight gradients (dL/dW, not negated) from the saved gate gradients, summed over time and batch."""
    _check_layer(params, state, x, weights)
    graph = x.graph
    opts = _parse_options(options, params, graph)
    _check_intermediates(params, opts, inter)
    _check("output", out, _output_shape(params), params.dtype)
    s, b, h = params.time_steps, params.batch_size, params.output_size
    _check("backward intermediates", bwd_inter, (s, 4, b, h), params.dtype)
    with pd.name_scope("lstm/wu"):
        accumulator = _WeightGradAccumulator(graph, params, opts, state, x, _previous_outputs(params, inter, out), 0)
        pd.copy(bwd_inter.transpose(0, 2, 1, 3).reshape(s, b, 4 * h), accumulator.gate_grads)
        accumulator.finish()
        return accumulator.weight_grads()


def steps_per_weight_update(params: LstmParams, graph: pd.Graph, options: Optional[dict] = None) -> int:
    """The interleaved weight update's cadence in steps (0: after the backward loop), chosen as
    popnn does: rnnStepsPerWU if given; with disableWUPartialInterleaving 1 step when
    interleaving saves memory, else 0; otherwise as many steps as fit a tenth of the LSTM's
    memory share (availableMemoryProportion, default 0.2), rounded down to the data path.
    popnn then divides by its matmul plan's serial split, which the emulator's single
    BLAS call does not have."""
    return _steps_per_weight_update(params, graph, _parse_options(options, params, graph))


def _steps_per_weight_update(params: LstmParams, graph, opts: _Options) -> int:
    s, b, (i, h) = params.time_steps, params.batch_size, params.layer_sizes
    interleaving_saves_memory = (i + h) * h * 4 <= b * h * 4 * s
    if opts.disable_wu_partial_interleaving:
        return 1 if interleaving_saves_memory else 0
    if opts.rnn_steps_per_wu is not None:
        return opts.rnn_steps_per_wu
    target = graph.target
    type_size = numpy_dtype(params.dtype).itemsize
    bytes_per_step = -(-b * 4 * h * type_size // target.getNumTiles())  # spread over every tile
    budget = int(0.1 * target.getBytesPerTile() * (opts.available_memory_proportion or 0.2))
    max_steps = min(s, budget // bytes_per_step)
    if max_steps == 0:
        return 1 if interleaving_saves_memory else 0
    per_data_path = max(1, target.getDataPathWidth() // (type_size * 8))
    return max(1, max_steps - max_steps % per_data_path)
