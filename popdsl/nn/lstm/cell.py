"""One time step's cell: the gates from their units, the cell state and the output, as
the cell's vertices (vertex.py) or fused maps, and the pieces the backward pass shares
(masks, activations, derivatives)."""
from __future__ import annotations

import functools
import operator
from typing import Optional

import popdsl as pd
from popdsl.nn.lstm import vertex
from popdsl.nn.lstm.params import (ACT_CELL, CANDIDATE, FORGET, GATES, INPUT, OUTPUT, PREV_CELL, STEP_OUTPUT,
                                   LstmParams, _Options, _positions)
from popdsl.popops import expr as pe
from popdsl.tensor import Tensor


def _gate_rows(t3: Tensor, positions) -> Tensor:
    """The [len(positions), B, H] view of the gates at `positions` of a [B, 4, H] tensor."""
    return pd.concat([t3[:, p:p + 1] for p in positions], axis=1).transpose(1, 0, 2)


def _stack(*tensors) -> Tensor:
    """A view stacking same-shaped tensors along a new first axis."""
    return pd.concat([t.expand(0) for t in tensors], axis=0)


def _step_counter(graph, first: int) -> Tensor:
    """The device-side step index of a time loop, set to `first`."""
    return pd.fill(graph.variable(pd.uint32, (1,), name="step"), first)


def _step_mask(params: LstmParams, graph, t: Tensor):
    """[B, 1] (or [1, 1]) of 1 where step t is within the sequence, 0 beyond; None without limits."""
    limit = params.variable_time_steps
    if limit is None:
        return None
    if isinstance(limit, int):
        limit = graph.constant([limit], pd.uint32, name="lstm/timeSteps")
    return pd.map(lambda t, limit: pe.Cast(t < limit, params.dtype), t, limit).expand(1)


def _update(state: Tensor, mask, fn, *operands):
    """state <- fn(*operands) in one map, only in the batch rows where mask is 1 (all without one)."""
    if mask is None:
        pd.map_(lambda s, *xs: fn(*xs), state, *operands)
    else:
        pd.map_(lambda s, m, *xs: m * fn(*xs) + (1 - m) * s, state, mask, *operands)


def _carry(state: Tensor, new: Tensor, mask):
    """state <- new, only in the batch rows where mask is 1."""
    if mask is None:
        pd.copy(new, state)
    else:
        _update(state, mask, lambda n: n, new)


# Activations as expressions a fused map can apply (the softmaxes need a reduction: none),
# and the derivatives of some from their outputs, as popnn's nonLinearityInputGradient has them.
_ELEMENTWISE_ACTIVATIONS = {
    "tanh": pd.tanh,
    "sigmoid": pd.sigmoid,
    "relu": pd.relu,
    "hard_sigmoid": lambda x: pd.min(pd.max(x * 0.2 + 0.5, 0.0), 1.0),
}
_ELEMENTWISE_DERIVATIVES = {
    "tanh": lambda y: 1 - y * y,
    "sigmoid": lambda y: y * (1 - y),
}


def _activate(kind: str, out: Tensor, x: Tensor, bias: Optional[Tensor] = None):
    """out = kind(x + bias) (or kind(x)): one map where the activation is element-wise."""
    operands = (x,) if bias is None else (x, bias)
    fn = _ELEMENTWISE_ACTIVATIONS.get(kind)
    if fn is not None:
        pd.map_(lambda o, *xs: fn(sum(xs[1:], xs[0])), out, *operands)
        return
    pd.map_(lambda o, *xs: sum(xs[1:], xs[0]), out, *operands)
    pd.nonlinearity_(out, kind)


def _activation_grad(kind: str, out: Tensor, activation: Tensor, *factors: Tensor):
    """out = the gradient of `kind` at its output `activation`, times the factors: one map
    where the derivative is element-wise."""
    def product(xs):
        return functools.reduce(operator.mul, xs)
    derivative = _ELEMENTWISE_DERIVATIVES.get(kind)
    if derivative is not None:
        pd.map_(lambda o, y, *xs: derivative(y) * product(xs), out, activation, *factors)
    else:
        pd.copy(pd.nonlinearity_grad(activation, pd.map(lambda *xs: product(xs), *factors), kind), out)


def _advance_cell(params: LstmParams, cell: Tensor, step: Tensor, mask):
    """c_t = f * c_{t-1} + i * candidate from the gates in step; writes c_{t-1} and act(c_t)
    into step and advances `cell` (only where mask is 1: masked gates are zero, so masked
    rows of step stay zero)."""
    f, i, g = step[FORGET], step[INPUT], step[CANDIDATE]
    prev, act = step[PREV_CELL], step[ACT_CELL]
    if mask is None:
        pd.copy(cell, prev)
        pd.map_(lambda c, f, i, g: f * c + i * g, cell, f, i, g)
        _activate(params.activation, act, cell)
    else:
        pd.map_(lambda p, c, m: c * m, prev, cell, mask)
        pd.map_(lambda a, f, i, g, c: f * c + i * g, act, f, i, g, cell)
        pd.map_(lambda c, n, m: n + (1 - m) * c, cell, act, mask)
        pd.nonlinearity_(act, params.activation)
        pd.map_(lambda a, m: a * m, act, mask)


def _saved_rows(params: LstmParams, opts: _Options, step: Tensor, step_output: Tensor) -> Tensor:
    """The rows popnn saves as a step's intermediates: rows of the step buffer, then the
    step's output without a full output sequence."""
    kept = step[:6] if opts.recomputation_mode == "none" else step[:4]
    return kept if params.output_full_sequence else pd.concat([kept, step_output.expand(0)], axis=0)


def _cell_from_units(params: LstmParams, opts: _Options, graph, t: Tensor, cell: Tensor, output: Tensor,
                     step: Tensor, units: Tensor, biases: Tensor, inter: Optional[Tensor]) -> Tensor:
    """One step's gates, cell and output from its gate units and biases [4, B, H] (FICO order),
    keeping every row popnn saves in step and, with `inter`, saving them at step t. Returns
    the step's output (zero beyond a row's time steps, where `output` keeps the last)."""
    fio = (FORGET, INPUT, OUTPUT)
    _activate(params.recurrent_activation, _stack(*(step[p] for p in fio)), _stack(*(units[p] for p in fio)),
              _stack(*(biases[p] for p in fio)))
    _activate(params.activation, step[CANDIDATE], units[CANDIDATE], biases[CANDIDATE])
    mask = _step_mask(params, graph, t)
    if mask is not None:
        pd.map_(lambda gate, m: gate * m, step[:4], mask)
    _advance_cell(params, cell, step, mask)
    step_output = output if mask is None else step[STEP_OUTPUT]  # with a mask, output keeps the last
    pd.map_(lambda y, o, a: o * a, step_output, step[OUTPUT], step[ACT_CELL])
    if mask is not None:
        _carry(output, step_output, mask)
    if inter is not None:
        inter.at[t].set(_saved_rows(params, opts, step, step_output))
    return step_output


def _fused_cell(params: LstmParams, cell: Tensor, output: Tensor, biases: Tensor):
    """cell_step(t, units) for a step that saves nothing: c = f * c + i * g, then h = o * act(c)
    (returned) from the gate units [4, B, H] and their biases (FICO order), in two passes that
    add the biases and apply the activations on the way (popnn's in-place inference cell);
    None when an activation is not element-wise."""
    act = _ELEMENTWISE_ACTIVATIONS.get(params.activation)
    rec = _ELEMENTWISE_ACTIVATIONS.get(params.recurrent_activation)
    if act is None or rec is None:
        return None
    bf, bi, bg, bo = (biases[gate] for gate in (FORGET, INPUT, CANDIDATE, OUTPUT))

    def cell_step(t, units):
        pd.map_(lambda c, f, i, g, bf, bi, bg: rec(f + bf) * c + rec(i + bi) * act(g + bg), cell,
                units[FORGET], units[INPUT], units[CANDIDATE], bf, bi, bg)
        return pd.map_(lambda h, o, bo, c: rec(o + bo) * act(c), output, units[OUTPUT], bo, cell)
    return cell_step


def _saving_cell(params: LstmParams, opts: _Options, graph, cell: Tensor, output: Tensor, biases: Tensor,
                 inter: Optional[Tensor]):
    """cell_step(t, units) keeping every row popnn saves in a step buffer and, with `inter`,
    saving them at step t; returns the step's output."""
    step = graph.variable(params.dtype, (7, params.batch_size, params.output_size), name="step")

    def cell_step(t, units):
        return _cell_from_units(params, opts, graph, t, cell, output, step, units, biases, inter)
    return cell_step


def _vertex_saving_cell(params: LstmParams, opts: _Options, graph, cell: Tensor, output: Tensor, biases: Tensor,
                        inter: Tensor):
    """cell_step(t, units) of the cell's vertices writing the saved rows into a step buffer,
    which is then saved at step t."""
    step = graph.variable(params.dtype, (6, params.batch_size, params.output_size), name="step")
    vertices = vertex.vertex_cell(params, graph, cell, output, biases, step)

    def cell_step(t, units):
        step_output = vertices(t, units)
        inter.at[t].set(_saved_rows(params, opts, step, step_output))
        return step_output
    return cell_step


def _cell_step(params: LstmParams, opts: _Options, graph, cell: Tensor, output: Tensor, biases: Tensor,
               inter: Optional[Tensor]):
    """cell_step(t, units) -> the step's output, for the gate units [B, 4, H] and biases [4, H]
    in cell order: the cell's vertices where they serve a step that saves intermediates, else
    maps (popnn's in-place inference cell when nothing is saved and there are no time-step
    limits)."""
    if inter is not None and vertex.fits(params):
        return _vertex_saving_cell(params, opts, graph, cell, output, biases, inter)
    b, h = params.batch_size, params.output_size
    fico = _positions(params, GATES)
    # The biases in FICO order, once for every batch row: operands the cell's maps read in place.
    biases = pd.copy(_stack(*(biases[p] for p in fico)).expand(1).broadcast((4, b, h)),
                     graph.variable(params.dtype, (4, b, h), name="biases"))
    saves_nothing = inter is None and params.variable_time_steps is None
    cell_step = (_fused_cell(params, cell, output, biases) if saves_nothing else None) or \
        _saving_cell(params, opts, graph, cell, output, biases, inter)
    return lambda t, units: cell_step(t, _stack(*(units[:, p] for p in fico)))
