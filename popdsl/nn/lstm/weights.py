"""Creating the LSTM's tensors, and the weights as the steps' products read them: one
matrix W = [[W_in], [W_out]] [I + H, 4H]."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import popdsl as pd
from popdsl.debug import BuildError, describe, expect_str
from popdsl.dtypes import numpy_dtype
from popdsl.nn.lstm.params import LstmParams, LstmState, LstmWeights, _check_params
from popdsl.tensor import Tensor

if TYPE_CHECKING:  # names for annotations only: popdsl's modules import each other
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
    The two weight tensors are views of one variable, `name`: the rows of the matrix
    W = [[W_in], [W_out]] [I + H, 4H] the steps multiply, as popnn lays weights out for its
    matmuls, so the forward reads them where they lie instead of copying them at every run
    (each row padded as _weight_matrix says)."""
    _check_creation(graph, params, name, "lstm.create_weights")
    i, h = params.layer_sizes
    stacked = _weight_matrix(graph, params, name).reshape(i + h, 4, h)
    return LstmWeights(stacked[:i].transpose(1, 0, 2), stacked[i:].transpose(1, 0, 2),
                       graph.variable(params.dtype, (4, h), name=f"{name}/biases"))


def zero_initial_state(state: LstmState, prog: Optional[Block] = None) -> None:
    """Sets the initial output and cell state to zero."""
    pd.zero(state.output, prog=prog)
    pd.zero(state.cell_state, prog=prog)


def _weight_matrix(graph, params: LstmParams, name: str) -> Tensor:
    """W [I + H, 4H], the first 4H columns of a variable `name` whose rows of a multiple of 4 KB
    get 64 bytes of padding: rows exactly 4 KB apart all fall in the same few sets of a cache,
    so a step's product, which reads every row, kept losing them to the step's other work
    ([32,512]x[512,1024] with 1 MB of maps between products: 207-258 -> 171-231 us)."""
    i, h = params.layer_sizes
    itemsize = numpy_dtype(params.dtype).itemsize
    pad = 64 // itemsize if 4 * h * itemsize % 4096 == 0 else 0
    return graph.variable(params.dtype, (i + h, 4 * h + pad), name=name)[:, :4 * h]


def _rows_in_place(matrix: Tensor) -> bool:
    """Whether `matrix`'s rows lie in one variable, each contiguous, at one stride (as a
    product can read them in place)."""
    regions = matrix.raw.getVarRegions()
    rows, cols = matrix.shape
    if len(regions) == 1:
        return True  # contiguous
    if len(regions) != rows or len({r.var.id for r in regions}) != 1:
        return False
    starts = [r.interval.begin() for r in regions]  # two or more rows
    stride = starts[1] - starts[0]
    return all(r.interval.size() == cols for r in regions) and stride >= cols and \
        all(b - a == stride for a, b in zip(starts, starts[1:]))


def _stacked_weights(weights: LstmWeights) -> Tensor:
    """W = [[W_in], [W_out]] as an [I + H, 4H] view (columns in cell order)."""
    def flat(w):
        return w.transpose(1, 0, 2).reshape(w.shape[1], -1)
    return pd.concat([flat(weights.input_weights), flat(weights.output_weights)], axis=0)
