"""Creating the LSTM's tensors, and the weights as the steps' products read them: one
matrix W = [[W_in], [W_out]] [I + H, 4H]."""
from __future__ import annotations

from typing import Optional

import popdsl as pd
from popdsl import poplar, poplin
from popdsl.debug import BuildError, describe, expect_str, plain_name
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
    reads them where they lie instead of copying them at every run (in the layout poplin's
    createMatMulInputRHS chooses, _weight_matrix)."""
    _check_creation(graph, params, name, "lstm.create_weights")
    i, h = params.layer_sizes
    stacked = _weight_matrix(graph, params, name).reshape(i + h, 4, h)
    return LstmWeights(stacked[:i].transpose(1, 0, 2), stacked[i:].transpose(1, 0, 2),
                       graph.variable(params.dtype, (4, h), name=f"{name}/biases"))


def zero_initial_state(state: LstmState, prog: Optional[Block] = None) -> None:
    """Sets the initial output and cell state to zero."""
    pd.zero(state.output, prog=prog)
    pd.zero(state.cell_state, prog=prog)


def _step_product_shapes(params: LstmParams):
    """The shapes of a step's product [x_t, h] W: A [B, I + H] and W [I + H, 4H]."""
    i, h = params.layer_sizes
    return [params.batch_size, i + h], [i + h, 4 * h]


def _weight_matrix(graph, params: LstmParams, name: str) -> Tensor:
    """W [I + H, 4H] in a variable `name`, laid out as poplin's createMatMulInputRHS lays out
    the right-hand side of a step's product (as popnn's createWeightsKernel has it): the
    library that runs the products chooses the layout they read fastest."""
    a_shape, w_shape = _step_product_shapes(params)
    raw = poplin.createMatMulInputRHS(graph.raw, params.dtype, a_shape, w_shape, plain_name(name))
    return graph.track(Tensor(raw, graph))


def _laid_out_for_products(matrix: Tensor, params: LstmParams) -> bool:
    """Whether `matrix` (W [I + H, 4H]) lies as _weight_matrix lays W out: in one variable, at
    the places in it where createMatMulInputRHS puts W's elements, which the library is asked
    on a scratch graph of the same target (creating nothing in matrix's graph)."""
    a_shape, w_shape = _step_product_shapes(params)
    scratch = poplar.Graph(matrix.graph.target)
    library = poplin.createMatMulInputRHS(scratch, params.dtype, a_shape, w_shape, "W").getVarRegions()
    regions = matrix.raw.getVarRegions()
    if len(regions) != len(library) or len({r.var.id for r in regions}) != 1:
        return False

    def places(rs):
        return [(interval.begin(), interval.end()) for interval in (r.interval for r in rs)]  # one object a region
    return places(regions) == places(library)


def _stacked_weights(weights: LstmWeights) -> Tensor:
    """W = [[W_in], [W_out]] as an [I + H, 4H] view (columns in cell order)."""
    def flat(w):
        return w.transpose(1, 0, 2).reshape(w.shape[1], -1)
    return pd.concat([flat(weights.input_weights), flat(weights.output_weights)], axis=0)
