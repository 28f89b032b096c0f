"""LSTM forward, backward and weight update as graph builders (popnn::lstm, Pythonic names).

Layouts follow popnn: input [S, B, I]; state h, c [B, H]; input weights [4, I, H],
output weights [4, H, H] and biases [4, H], whose gate axis follows `cell_order`.
Forward intermediates are [S, N, B, H] with rows forget, input, candidate, output,
act(c_t), c_{t-1} (N = 6; 4 with recomputationMode=cellAndTanh, which recomputes the
last two in the backward pass), plus h_t when only the last output is kept. Backward
intermediates are the gate gradients dZ [S, 4, B, H] in cell order.

Each time loop is one pd.Repeat whose body slices its step with t.at[step]: the graph
does not grow with the sequence length. Inside the loops the weights are one matrix
W = [[W_in], [W_out]] of shape [I + H, 4H], so a step is a single matmul (create_weights
makes both weight tensors views of a W from poplin's createMatMulInputRHS, laid out by the
library for the products, which read it in place; other weights are copied into that layout
once a run); with
preCalcWeights the input part of every step is one product before the forward loop, and
the backward pass (when every step's gate gradients are kept, as for the weight update)
makes the input gradients of all steps in one product after its loop. A forward pass that
saves intermediates for a float LSTM with tanh and sigmoid and no time-step limits runs its
cell as one compute set of custom vertices (vertex.py): gates, cell state, output and the
saved rows in one pass; its backward pass does the same for the gate gradients when it has
every step's output gradient and the saved act(c_t) and c_{t-1}. Otherwise the biases are
added by the cell's maps, and element-wise activations (and the tanh and sigmoid
gradients) are applied inside the maps that need them; without intermediates the forward
step is popnn's in-place inference cell: two fused passes.

Variable time steps follow popnn's reference model: at steps t >= limit (per batch
row) the gates are zero, so the step's outputs and intermediates are zero, and the
state (and, backwards, the state gradients) carries over unchanged.

Options take popnn's names and values (strings as in OptionFlags, or Python bools and
numbers): preCalcWeights (the input part of all steps in one matmul before the loop),
recomputationMode (none | cellAndTanh; popnn's `full` raises as popnn does),
weightAccumulatorsType (dtype of the weight gradients), rnnStepsPerWU and
disableWUPartialInterleaving (the weight-update cadence, see steps_per_weight_update),
partialsType, inferenceOnly and availableMemoryProportion (passed to the matmuls).
numShards is checked like popnn's but changes nothing here, as the sequences are
mapped over every tile; rnnCodeReuse is accepted: each loop body is built once anyway.

The modules: params (LstmParams, options, checks, FLOPs), weights (creation and the
weight matrix W), cell (one step's maps), fwd, bwd and wu (the passes).
"""

from popdsl.nn.lstm.bwd import backward, backward_with_weight_update
from popdsl.nn.lstm.fwd import forward
from popdsl.nn.lstm.params import (ACTIVATIONS, DEFAULT_CELL_ORDER, GATES, LstmParams, LstmState, LstmWeights, bwd_flops,
                                   fwd_flops, wu_flops)
from popdsl.nn.lstm.weights import create_initial_state, create_input, create_weights, zero_initial_state
from popdsl.nn.lstm.wu import steps_per_weight_update, weight_update

__all__ = ["ACTIVATIONS", "DEFAULT_CELL_ORDER", "GATES", "LstmParams", "LstmState", "LstmWeights", "backward",
           "backward_with_weight_update", "bwd_flops", "create_initial_state", "create_input", "create_weights",
           "forward", "fwd_flops", "steps_per_weight_update", "weight_update", "wu_flops", "zero_initial_state"]
