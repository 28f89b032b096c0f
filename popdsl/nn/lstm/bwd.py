"""The backward pass: the time loop from the last step to the first, which turns each
step's output and cell gradients into its gate gradients dZ and hands them to a sink
(wu.py), then the input gradients."""
from __future__ import annotations

from typing import Optional, Tuple

import popdsl as pd
from popdsl.debug import BuildError
from popdsl.nn.lstm import vertex
from popdsl.nn.lstm.cell import (_activation_grad, _advance_cell, _carry, _gate_rows, _stack, _step_counter,
                                 _step_mask, _update)
from popdsl.nn.lstm.params import (ACT_CELL, CANDIDATE, FORGET, INPUT, OUTPUT, PREV_CELL, LstmParams, LstmState,
                                   LstmWeights, _check, _check_intermediates, _check_layer, _output_shape,
                                   _parse_options, _positions)
from popdsl.nn.lstm.weights import _stacked_weights
from popdsl.nn.lstm.wu import (_GateGradSequence, _GateGradSink, _previous_outputs, _steps_per_weight_update,
                               _WeightGradAccumulator)
from popdsl.tensor import Tensor


def _recompute_cells(params: LstmParams, graph, state: LstmState, inter: Tensor) -> Tensor:
    """cellAndTanh: rebuilds [S, 2, B, H] of (c_{t-1}, act(c_t)) from the saved gates."""
    s, b, h = params.time_steps, params.batch_size, params.output_size
    with pd.name_scope("recompute"):
        cells = graph.variable(params.dtype, (s, 2, b, h), name="cells")
        cell = graph.variable(params.dtype, (b, h), name="cellState")
        pd.copy(state.cell_state, cell)
        step = graph.variable(params.dtype, (6, b, h), name="step")
        t = _step_counter(graph, 0)
        with pd.Repeat(s):
            pd.copy(inter.at[t].get()[:4], step[:4])
            _advance_cell(params, cell, step, _step_mask(params, graph, t))
            cells.at[t].set(pd.concat([step[PREV_CELL:], step[ACT_CELL:PREV_CELL]], axis=0))
            t += 1
    return cells


def _cell_grad_maps(params, opts, graph, state, inter, out_grad, output_grad, cell_grad, gate_grads):
    """cell_grad_step(t, saved, mask) as maps: step t's gate gradients into gate_grads [B, 4, H]
    from its saved rows and the output gradients, and cell_grad made the previous step's (in
    the batch rows where mask is 1)."""
    rec = _positions(params, ("forget", "input", "output"))
    candidate = params.position("candidate")
    cells = _recompute_cells(params, graph, state, inter) if opts.recomputation_mode == "cellAndTanh" else None
    cell_total = graph.variable(params.dtype, (params.batch_size, params.output_size), name="cellTotalGrad")

    def cell_grad_step(t, saved, mask):
        f, i_gate, g, o = saved[FORGET], saved[INPUT], saved[CANDIDATE], saved[OUTPUT]
        if cells is None:
            act_cell, prev_cell = saved[ACT_CELL], saved[PREV_CELL]
        else:
            recomputed = cells.at[t].get()
            prev_cell, act_cell = recomputed[0], recomputed[1]
        total_out_grad = pd.map(lambda dy, dh: dy + dh, out_grad.at[t].get(), output_grad) \
            if params.output_full_sequence else output_grad
        # dC = act'(c_t) * o * dh_t + dc_t; the gates' output gradients follow from dC and dh_t
        _activation_grad(params.activation, cell_total, act_cell, o, total_out_grad)
        pd.map_(lambda total, dc: total + dc, cell_total, cell_grad)
        _activation_grad(params.recurrent_activation, _gate_rows(gate_grads, rec), _stack(f, i_gate, o),
                         _stack(prev_cell, g, act_cell), _stack(cell_total, cell_total, total_out_grad))
        _activation_grad(params.activation, gate_grads[:, candidate], g, i_gate, cell_total)
        _update(cell_grad, mask, lambda f, d: f * d, f, cell_total)
    return cell_grad_step


def _check_backward(params, opts, state, inter, weights, x, out, out_grad, last_step_state_grad):
    """What backward needs besides _check_layer's checks (made first: options need the graph)."""
    _check_intermediates(params, opts, inter)
    _check("output", out, _output_shape(params), params.dtype)
    _check("output gradient", out_grad, _output_shape(params), params.dtype)
    if last_step_state_grad is not None:
        if params.variable_time_steps is not None:
            raise BuildError("with variable time steps the last-step state gradients are zero-initialised "
                             "inside (as popnn does); pass last_step_state_grad=None")
        for field, grad in zip(("output", "cell state"), last_step_state_grad):
            if grad is not None:
                _check(f"last-step {field} gradient", grad, (params.batch_size, params.output_size), params.dtype)


def _backward(params, opts, state, inter, weights, x, out, out_grad, last_step_state_grad, gate_grad_sink):
    """The backward time loop; gate_grad_sink.add(t, dZ [B, 4, H]) takes each step's gate gradients."""
    graph = x.graph
    s, b, (i, h), dtype = params.time_steps, params.batch_size, params.layer_sizes, params.dtype
    matmul_options = opts.matmul_options("TRAINING_BWD")
    # dZ @ W^T gives [dx_t, dh_{t-1}]; the loop needs only dh. When the sink keeps every
    # step's dZ, dx of all steps is one product after the loop (a step then reads W_out^T
    # alone); otherwise each step makes its dx_t from all of W^T. As in the forward pass, the
    # weights are copied as the products read them, row after row: W_in^T and W_out^T one at a
    # time, so that each copy is a plain transpose (which runs in blocks), and into a variable
    # of their own when a step reads W_out^T alone: as columns of W^T its rows would lie
    # 4H apart, and a step at B=1 then took twice as long ([1,1024]x[1024,256]: 21-23 us
    # against 10 on one thread), its cache lines half unused.
    stacked = _stacked_weights(weights)
    inputs_after_loop = params.calc_input_gradients and gate_grad_sink.every_step() is not None

    def transposed(parts, name):  # W^T of these row ranges of W, side by side
        t = graph.variable(dtype, (4 * h, sum(part.shape[0] for part in parts)), name=name)
        column = 0
        for part in parts:
            pd.copy(part.T, t[:, column:column + part.shape[0]])
            column += part.shape[0]
        return t
    if inputs_after_loop:
        input_weights = transposed([stacked[:i]], "inputWeightsT")
        step_weights = transposed([stacked[i:]], "outputWeightsT")
    else:
        parts = [stacked[:i], stacked[i:]] if params.calc_input_gradients else [stacked[i:]]
        step_weights = transposed(parts, "weightsT")
    output_grad = graph.variable(dtype, (b, h), name="outputGrad")
    cell_grad = graph.variable(dtype, (b, h), name="cellStateGrad")
    last = last_step_state_grad or LstmState(None, None)
    for grad, target in ((last.output, output_grad), (last.cell_state, cell_grad)):
        if grad is None:
            pd.zero(target)
        else:
            pd.copy(grad, target)
    if not params.output_full_sequence:
        output_grad += out_grad  # the last output's gradient flows in at the last (valid) step
    # The product lands in output_grad itself when it is dh alone and every row takes it.
    propagated = output_grad if step_weights.shape[1] == h and params.variable_time_steps is None else \
        graph.variable(dtype, (b, step_weights.shape[1]), name="propagated")
    input_grad = graph.variable(dtype, (s, b, i), name="inputGrad") if params.calc_input_gradients else None
    gate_grads = graph.variable(dtype, (b, 4, h), name="gateGrads")  # dZ, gates in cell order
    if vertex.fits_backward(params, opts.recomputation_mode):
        vertices = vertex.vertex_cell_grad(params, graph, cell_grad, gate_grads)

        def cell_grad_step(t, saved, mask):  # no time-step limits here: mask is None
            vertices(saved, out_grad.at[t].get(), output_grad)
    else:
        cell_grad_step = _cell_grad_maps(params, opts, graph, state, inter, out_grad, output_grad, cell_grad,
                                         gate_grads)
    t = _step_counter(graph, s - 1)
    with pd.Repeat(s):
        mask = _step_mask(params, graph, t)
        cell_grad_step(t, inter.at[t].get(), mask)
        pd.matmul(gate_grads.reshape(b, 4 * h), step_weights, options=matmul_options, out=propagated)
        if input_grad is not None and not inputs_after_loop:
            input_grad.at[t].set(propagated[:, :i])
        if propagated is not output_grad:
            _carry(output_grad, propagated[:, -h:], mask)
        gate_grad_sink.add(t, gate_grads)
        t -= 1
    gate_grad_sink.finish()
    if inputs_after_loop:
        pd.matmul(gate_grad_sink.every_step(), input_weights, options=matmul_options,
                  out=input_grad.reshape(s * b, i))
    return LstmState(output_grad, cell_grad), input_grad


def backward(params: LstmParams, state: LstmState, inter: Tensor, weights: LstmWeights, x: Tensor, out: Tensor,
             out_grad: Tensor, last_step_state_grad: LstmState = None, options: Optional[dict] = None,
             save_intermediates: bool = False) -> Tuple[LstmState, Optional[Tensor], Optional[Tensor]]:
    """Backpropagates out_grad through time. Returns (gradient of the initial state,
    input gradient [S, B, I] or None without calc_input_gradients, backward
    intermediates [S, 4, B, H] or None without save_intermediates)."""
    _check_layer(params, state, x, weights)
    opts = _parse_options(options, params, x.graph)
    _check_backward(params, opts, state, inter, weights, x, out, out_grad, last_step_state_grad)
    with pd.name_scope("lstm/bwd"):
        sink = _GateGradSequence(x.graph, params) if save_intermediates else _GateGradSink()
        state_grad, input_grad = _backward(params, opts, state, inter, weights, x, out, out_grad,
                                           last_step_state_grad, sink)
    return state_grad, input_grad, (sink.sequence if save_intermediates else None)


def backward_with_weight_update(params: LstmParams, state: LstmState, inter: Tensor, weights: LstmWeights,
                                x: Tensor, out: Tensor, out_grad: Tensor, last_step_state_grad: LstmState = None,
                                options: Optional[dict] = None) -> Tuple[LstmState, Optional[Tensor], LstmWeights]:
    """backward() with the weight gradients accumulated inside its loop every
    steps_per_weight_update() steps. Returns (initial state gradient, input gradient or None,
    weight gradients)."""
    _check_layer(params, state, x, weights)
    graph = x.graph
    opts = _parse_options(options, params, graph)
    _check_backward(params, opts, state, inter, weights, x, out, out_grad, last_step_state_grad)
    with pd.name_scope("lstm/bwdWithWU"):
        accumulator = _WeightGradAccumulator(graph, params, opts, state, x, _previous_outputs(params, inter, out),
                                             _steps_per_weight_update(params, graph, opts))
        state_grad, input_grad = _backward(params, opts, state, inter, weights, x, out, out_grad,
                                           last_step_state_grad, accumulator)
        return state_grad, input_grad, accumulator.weight_grads()
