"""The forward pass: the gate units of each step (one product, or with preCalcWeights the
input part of every step before the loop) and the time loop over the cell."""
from __future__ import annotations

from typing import Optional, Tuple

import popdsl as pd
from popdsl.debug import BuildError
from popdsl.nn.lstm.bwd import backward_with_weight_update
from popdsl.nn.lstm.cell import _cell_step, _step_counter
from popdsl.nn.lstm.params import (LstmParams, LstmState, LstmWeights, _check_layer, _num_intermediates,
                                   _Options, _parse_options)
from popdsl.nn.lstm.weights import _laid_out_for_products, _stacked_weights, _weight_matrix
from popdsl.tensor import Tensor


def _gate_units(params: LstmParams, opts: _Options, x: Tensor, weights: LstmWeights, matmul_options: dict):
    """(output, units_step): the output h [B, H] a step reads, and units_step(t), which adds
    the products of the step's gate units [B, 4, H] (cell order, without the biases) and
    returns them. The weights are one matrix W = [[W_in], [W_out]] stored as the products
    read it, in the layout poplin's createMatMulInputRHS chooses (_weight_matrix): weights
    from create_weights lie so, others are copied so once a run, not read apart at every step."""
    graph = x.graph
    s, b, (i, h), dtype = params.time_steps, params.batch_size, params.layer_sizes, params.dtype
    weights_matrix = _stacked_weights(weights)
    if not _laid_out_for_products(weights_matrix, params):
        weights_matrix = pd.copy(weights_matrix, _weight_matrix(graph, params, "weights"))
    output = graph.variable(dtype, (b, h), name="output")
    if opts.pre_calc_weights:  # x_t W_in of every step in one product before the loop; a step adds h W_out
        weighted_in = graph.variable(dtype, (s, b, 4, h), name="weightedInput")
        pd.matmul(x.reshape(s * b, i), weights_matrix[:i], options=matmul_options,
                  out=weighted_in.reshape(s * b, 4 * h))

        def units_step(t):
            units = weighted_in.at[t].get()
            pd.matmul_acc(units.reshape(b, 4 * h), output, weights_matrix[i:], options=matmul_options)
            return units
        return output, units_step

    units = graph.variable(dtype, (b, 4, h), name="gateUnits")

    def units_step(t):  # [x_t, h] W
        pd.matmul(pd.concat([x.at[t].get(), output], axis=1), weights_matrix, options=matmul_options,
                  out=units.reshape(b, 4 * h))
        return units
    return output, units_step


def _forward_vjp(grads, outputs, params, state, x, weights, save_intermediates=True, options=None):
    """pd.grad's gradient of forward: backward_with_weight_update, from the saved intermediates."""
    if not save_intermediates:
        raise BuildError("pd.grad through pd.nn.lstm.forward needs save_intermediates=True: the backward reads them")
    out, cell, inter = outputs
    out_grad, cell_grad, inter_grad = grads
    if inter_grad is not None:
        raise BuildError("pd.grad: the intermediates of pd.nn.lstm.forward have no gradient")
    last = None
    if cell_grad is not None:  # the final output's gradient is part of out_grad
        no_output_grad = pd.zero(x.graph.variable(params.dtype, cell.shape, name="lstm/noOutputGrad"))
        last = LstmState(no_output_grad, cell_grad)
    if out_grad is None:
        out_grad = pd.zero(x.graph.variable(params.dtype, out.shape, name="lstm/noOutGrad"))
    state_grad, input_grad, weight_grads = backward_with_weight_update(params, state, inter, weights, x, out,
                                                                       out_grad, last, options)
    return [*state_grad, input_grad, *weight_grads]


@pd.custom_grad(_forward_vjp, reads_outputs=True, name="pd.nn.lstm.forward")
def forward(params: LstmParams, state: LstmState, x: Tensor, weights: LstmWeights, save_intermediates: bool = True,
            options: Optional[dict] = None) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
    """Runs the LSTM over x. Returns (output, final cell state, intermediates or None):
    output is [S, B, H] with output_full_sequence, else the final output [B, H]."""
    _check_layer(params, state, x, weights)
    graph = x.graph
    opts = _parse_options(options, params, graph)
    s, b, h, dtype = params.time_steps, params.batch_size, params.output_size, params.dtype
    matmul_options = opts.matmul_options("INFERENCE_FWD" if opts.inference_only else "TRAINING_FWD")
    with pd.name_scope("lstm/fwd"):
        output, units_step = _gate_units(params, opts, x, weights, matmul_options)
        cell = graph.variable(dtype, (b, h), name="cellState")
        pd.copy(state.output, output)
        pd.copy(state.cell_state, cell)
        sequence = graph.variable(dtype, (s, b, h), name="outputSequence") if params.output_full_sequence else None
        inter = graph.variable(dtype, (s, _num_intermediates(params, opts), b, h), name="intermediates") \
            if save_intermediates else None
        cell_step = _cell_step(params, opts, graph, cell, output, weights.biases, inter)
        t = _step_counter(graph, 0)
        with pd.Repeat(s):
            units = units_step(t)
            step_output = cell_step(t, units)
            if sequence is not None:
                sequence.at[t].set(step_output)
            t += 1
    return (sequence if sequence is not None else output), cell, inter
