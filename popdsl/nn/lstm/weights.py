"""Creating the LSTM's tensors, and the weights as the steps' products read them: one
matrix W = [[W_in], [W_out]] [I + H, 4H]."""
from __future__ import annotations

from typing import Optional

import popdsl as pd
from popdsl.debug import BuildError, describe, expect_str
from popdsl.nn.lstm.params import LstmParams, LstmState, LstmWeights, _check_params
from popdsl.tensor import Tensor
from popdsl.control import Block


def _check_creation(graph, params, name, what: str):
    if not isinstance(graph, pd.Graph):
        raise BuildError(f"{what}: graph must be a pd.Graph, got {describe(graph)}")
    _check_params(params, what)
    expect_str(name, f"{what}: name")


def create_input(graph: pd.Graph, params: LstmParams, name: str = "lstm/input") -> Tensor:
    """The input sequence [S, B, I]."""
    _check_creation(graph, params, name, "lstm.create_input")
    return graph.variable(params.dtype, (params.time_steps, params.batch_size, params.input_size), name=name)


def create_initial_state(graph: pd.Graph, params: LstmParams, name: str = "lstm/initialState") -> LstmState:
    """The initial output h and cell state c, [B, H] each."""
    _check_creation(graph, params, name, "lstm.create_initial_state")
    shape = (params.batch_size, params.output_size)
    return LstmState(graph.variable(params.dtype, shape, name=f"{name}/output"),
                     graph.variable(params.dtype, shape, name=f"{name}/cellState"))


def create_weights(graph: pd.Graph, params: LstmParams, name: str = "lstm/weights") -> LstmWeights:
    """Input weights [4, I, H], output weights [4, H, H] and biases [4, H] (gates in cell order).
    The two weight tensors are views of one variable, `name`: the matrix W = [[W_in], [W_out]]
    [I + H, 4H] the steps multiply, as popnn lays weights out for its matmuls, so the forward
    reads them where they lie instead of copying them at every run (in column panels, as
    _weight_matrix says)."""
    _check_creation(graph, params, name, "lstm.create_weights")
    i, h = params.layer_sizes
    stacked = _weight_matrix(graph, params, name).reshape(i + h, 4, h)
    return LstmWeights(stacked[:i].transpose(1, 0, 2), stacked[i:].transpose(1, 0, 2),
                       graph.variable(params.dtype, (4, h), name=f"{name}/biases"))


def zero_initial_state(state: LstmState, prog: Optional[Block] = None) -> None:
    """Sets the initial output and cell state to zero."""
    pd.zero(state.output, prog=prog)
    pd.zero(state.cell_state, prog=prog)


# The width of the column panels create_weights lays W out in: the emulator's kernel for a
# product of one row (a step at B=1) reads a panel of 256 floats a row as one stream, where
# over rows 4 KB apart it also read the parts of them other blocks read (Zen5, [1,256]x[256,1024]
# on two threads: 4.2 us over padded rows, 2.5 us over panels; no change at 32 rows).
PANEL_COLUMNS = 256


def _weight_matrix(graph, params: LstmParams, name: str) -> Tensor:
    """W [I + H, 4H] in a variable `name` of column panels of PANEL_COLUMNS, one after the
    other, each with its rows back to back (the last panel's columns past 4H unused; one
    panel: plain rows): the layout the step's products read fastest."""
    i, h = params.layer_sizes
    panels = -(-4 * h // PANEL_COLUMNS)
    if panels == 1:
        return graph.variable(params.dtype, (i + h, 4 * h), name=name)
    stored = graph.variable(params.dtype, (panels, i + h, PANEL_COLUMNS), name=name)
    return stored.transpose(1, 0, 2).reshape(i + h, panels * PANEL_COLUMNS)[:, :4 * h]


def _in_place(matrix: Tensor) -> bool:
    """Whether a product reads `matrix` where it lies: in one variable, as column panels side
    by side (or one, plain rows), each with its rows at one stride, as the emulator's products
    take them (poplin's Gemm.cpp: panels of at least 16 columns but the last)."""
    regions = matrix.raw.getVarRegions()
    rows, cols = matrix.shape
    if len(regions) == 1:
        return True  # contiguous
    if len(regions) % rows:
        return False
    per_row = len(regions) // rows
    intervals = [r.interval for r in regions]  # each access makes an object: once a region
    spans = [(interval.begin(), interval.size()) for interval in intervals]
    if len({r.var.id for r in regions}) != 1 or sum(size for _, size in spans[:per_row]) != cols:
        return False
    for panel in range(per_row):
        starts, sizes = zip(*spans[panel::per_row])
        width = sizes[0]
        if any(size != width for size in sizes) or (panel < per_row - 1 and width < 16):
            return False
        if rows > 1:
            stride = starts[1] - starts[0]
            if stride < width or any(b - a != stride for a, b in zip(starts, starts[1:])):
                return False
    return True


def _stacked_weights(weights: LstmWeights) -> Tensor:
    """W = [[W_in], [W_out]] as an [I + H, 4H] view (columns in cell order)."""
    def flat(w):
        return w.transpose(1, 0, 2).reshape(w.shape[1], -1)
    return pd.concat([flat(weights.input_weights), flat(weights.output_weights)], axis=0)
