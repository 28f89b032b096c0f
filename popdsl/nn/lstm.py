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
lays both weight tensors out in W's memory order, which the products read in place; other
weights are copied into that order once a run); with
preCalcWeights the input part of every step is one product before the forward loop, and
the backward pass (when every step's gate gradients are kept, as for the weight update)
makes the input gradients of all steps in one product after its loop. The biases are
added by the cell's maps, and element-wise activations (and the tanh and sigmoid
gradients) are applied inside the maps that need them. Without intermediates the forward
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
"""

from __future__ import annotations

import dataclasses
import functools
import math
import operator
from typing import TYPE_CHECKING, NamedTuple, Optional, Tuple

import popdsl as pd
from popdsl.debug import LARGEST_INT, BuildError, describe, expect_int, expect_str
from popdsl.dtypes import as_type, numpy_dtype
from popdsl.popops import expr as pe
from popdsl.tensor import Tensor

if TYPE_CHECKING:  # names for annotations only: popdsl's modules import each other
    from popdsl.control import Block

GATES = ("forget", "input", "candidate", "output")
DEFAULT_CELL_ORDER = GATES
ACTIVATIONS = ("tanh", "sigmoid", "hard_sigmoid", "relu", "softmax", "softmax_stable", "softmax_scaled")

# Rows of the per-step buffer, in popnn's intermediate order (the last only without a full sequence).
FORGET, INPUT, CANDIDATE, OUTPUT, ACT_CELL, PREV_CELL, STEP_OUTPUT = range(7)


class LstmState(NamedTuple):
    output: Optional[Tensor]      # h [B, H]
    cell_state: Optional[Tensor]  # c [B, H]


class LstmWeights(NamedTuple):
    input_weights: Tensor   # [4, I, H]
    output_weights: Tensor  # [4, H, H]
    biases: Tensor          # [4, H]


@dataclasses.dataclass(eq=False)
class LstmParams:
    """popnn::lstm::LstmParams: one layer of `layer_sizes = (input_size, output_size)`."""

    dtype: object
    batch_size: int
    time_steps: int
    layer_sizes: tuple
    activation: str = "tanh"
    recurrent_activation: str = "sigmoid"
    cell_order: tuple = DEFAULT_CELL_ORDER
    output_full_sequence: bool = True
    calc_input_gradients: bool = True
    variable_time_steps: object = None  # None, an int, or an UNSIGNED_INT [B] (or [1]) tensor

    def __post_init__(self):
        self.dtype = as_type(self.dtype, "LstmParams: dtype")
        if self.dtype not in (pd.float32, pd.float16):
            raise BuildError(f"LstmParams: dtype must be pd.float32 or pd.float16, not {self.dtype}")
        for field in ("batch_size", "time_steps"):
            expect_int(getattr(self, field), f"LstmParams: {field} (a positive int)", 1)
        sizes = tuple(self.layer_sizes) if isinstance(self.layer_sizes, (tuple, list)) else ()
        if len(sizes) != 2 or not all(isinstance(s, int) and 0 < s <= LARGEST_INT for s in sizes):
            raise BuildError(f"LstmParams: layer_sizes must be (input_size, output_size), two positive ints "
                             f"for one layer, not {self.layer_sizes!r}")
        self.layer_sizes = sizes
        self.activation = _activation_name("activation", self.activation)
        self.recurrent_activation = _activation_name("recurrent_activation", self.recurrent_activation)
        self.cell_order = tuple(self.cell_order)
        if sorted(self.cell_order) != sorted(GATES):
            raise BuildError(f"LstmParams: cell_order must order the gates {GATES}, not {self.cell_order!r}")
        self._check_time_steps()

    def _check_time_steps(self):
        steps = self.variable_time_steps
        if isinstance(steps, Tensor):
            if steps.dtype != pd.uint32 or steps.shape not in ((self.batch_size,), (1,)):
                raise BuildError(f"LstmParams: variable_time_steps must be an UNSIGNED_INT tensor of shape "
                                 f"({self.batch_size},) or (1,), not {steps!r}")
        elif steps is not None and (not isinstance(steps, int) or isinstance(steps, bool)
                                   or not 0 <= steps <= self.time_steps):
            raise BuildError(f"LstmParams: variable_time_steps must be None, an int in [0, {self.time_steps}] "
                             f"or an UNSIGNED_INT tensor, not {steps!r}")

    @property
    def input_size(self) -> int:
        """I, the size of each input vector (layer_sizes[0])."""
        return self.layer_sizes[0]

    @property
    def output_size(self) -> int:
        """H, the size of the hidden state and output (layer_sizes[1])."""
        return self.layer_sizes[1]

    def position(self, gate: str) -> int:
        """Where `gate` lies on the gate axis of the weights, the biases and dZ."""
        return self.cell_order.index(gate)


def _activation_name(field, value) -> str:
    name = getattr(value, "name", value)  # also accepts popnn.NonLinearityType
    name = name.lower() if isinstance(name, str) else name
    if name not in ACTIVATIONS:
        raise BuildError(f"LstmParams: {field} must be one of {ACTIVATIONS}, not {value!r}")
    return name


# --- options -------------------------------------------------------------------------------
@dataclasses.dataclass
class _Options:
    inference_only: bool = False
    pre_calc_weights: bool = False
    partials_type: str = "float"
    weight_accumulators_type: Optional[str] = None  # None: the LSTM's dtype
    recomputation_mode: str = "none"
    available_memory_proportion: Optional[float] = None
    num_shards: Optional[int] = None
    rnn_code_reuse: bool = False
    rnn_steps_per_wu: Optional[int] = None
    disable_wu_partial_interleaving: bool = False

    def matmul_options(self, fully_connected_pass: str) -> dict:
        options = {"partialsType": self.partials_type, "fullyConnectedPass": fully_connected_pass}
        if self.available_memory_proportion is not None:
            options["availableMemoryProportion"] = str(self.available_memory_proportion)
        return options


def _parse_bool(key, value):
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise BuildError(f"LSTM options: {key}={value!r}: expected true or false")


def _parse_choice(choices):
    def parse(key, value):
        if value not in choices:
            raise BuildError(f"LSTM options: {key}={value!r}: expected one of {', '.join(choices)}")
        return value
    return parse


def _parse_number(kind, minimum, maximum=math.inf):
    def parse(key, value):
        try:
            number = kind(value)
            valid = number == float(value) and minimum <= number <= maximum
        except (TypeError, ValueError):
            valid = False
        if not valid or isinstance(value, bool):
            raise BuildError(f"LSTM options: {key}={value!r}: expected {kind.__name__} "
                             f"in [{minimum}, {maximum}]")
        return number
    return parse


_OPTION_PARSERS = {  # popnn's key -> (field of _Options, parser)
    "inferenceOnly": ("inference_only", _parse_bool),
    "preCalcWeights": ("pre_calc_weights", _parse_bool),
    "partialsType": ("partials_type", _parse_choice(("half", "float"))),
    "weightAccumulatorsType": ("weight_accumulators_type", _parse_choice(("half", "float"))),
    "recomputationMode": ("recomputation_mode", _parse_choice(("none", "cellAndTanh", "full"))),
    "availableMemoryProportion": ("available_memory_proportion", _parse_number(float, 0.0, 1.0)),
    "numShards": ("num_shards", _parse_number(int, 1)),
    "rnnCodeReuse": ("rnn_code_reuse", _parse_bool),
    "rnnStepsPerWU": ("rnn_steps_per_wu", _parse_number(int, 0)),
    "disableWUPartialInterleaving": ("disable_wu_partial_interleaving", _parse_bool),
}


def _parse_options(options, params: LstmParams, graph) -> _Options:
    if options is not None and not isinstance(options, dict):
        raise BuildError(f"LSTM options must be a dict of popnn option names to values, got {describe(options)}")
    parsed = _Options()
    for key, value in (options or {}).items():
        if key not in _OPTION_PARSERS:
            raise BuildError(f"unknown LSTM option '{key}'; popnn's LSTM options are {sorted(_OPTION_PARSERS)}")
        field, parse = _OPTION_PARSERS[key]
        setattr(parsed, field, parse(key, value))
    if parsed.recomputation_mode == "full":
        raise BuildError("LSTM option recomputationMode='full' is not supported: popnn parses it but throws "
                         "'Unhandled recomputation type'; use 'none' or 'cellAndTanh'")
    # Sequences are mapped linearly over every tile here, so the shard count changes no
    # result; it is checked like popnn's against the most shards the sequence allows.
    max_shards = max(1, min(params.time_steps, graph.target.getNumTiles()))
    if parsed.num_shards is not None and parsed.num_shards > max_shards:
        raise BuildError(f"LSTM option numShards={parsed.num_shards}: LSTM numShards must be within "
                         f"interval [1,{max_shards}]")
    return parsed


# --- creation ------------------------------------------------------------------------------
def _check_creation(graph, params, name, what: str):
    if not isinstance(graph, pd.Graph):
        raise BuildError(f"{what}: graph must be a pd.Graph, got {describe(graph)}")
    _check_params(params, what)
    expect_str(name, f"{what}: name")


def _check_params(params, what: str):
    if not isinstance(params, LstmParams):
        raise BuildError(f"{what}: params must be an lstm.LstmParams, got {describe(params)}")


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


# --- FLOPs, counted as popnn does ----------------------------------------------------------
def fwd_flops(params: LstmParams) -> int:
    """Floating-point operations of `forward` (as popnn::lstm::getFwdFlops counts them)."""
    _check_params(params, "lstm.fwd_flops")
    i, h = params.layer_sizes
    steps = params.time_steps * params.batch_size
    return (i + h) * 4 * h * steps * 2 + 3 * steps * h + steps * h


def bwd_flops(params: LstmParams) -> int:
    """Floating-point operations of `backward` (as popnn::lstm::getBwdFlops counts them)."""
    _check_params(params, "lstm.bwd_flops")
    i, h = params.layer_sizes
    steps = params.time_steps * params.batch_size
    return 6 * steps * h + (i * 4 * h * steps * 2 if params.calc_input_gradients else 0) + h * 4 * h * steps * 2


def wu_flops(params: LstmParams) -> int:
    """Floating-point operations of `weight_update` (as popnn::lstm::getWuFlops counts them)."""
    _check_params(params, "lstm.wu_flops")
    i, h = params.layer_sizes
    steps = params.time_steps * params.batch_size
    return (i + h) * 4 * h * steps * 2 + h * 4 * steps * 2


# --- checks ----------------------------------------------------------------------------------
def _check(what: str, t, shape, dtype):
    if not isinstance(t, Tensor):
        raise BuildError(f"LSTM {what} must be a pd.Tensor of shape {shape}, not {type(t).__name__}")
    if t.shape != tuple(shape) or t.dtype != dtype:
        raise BuildError(f"LSTM {what} must have shape {tuple(shape)} and dtype {dtype}, not {t!r}")


def _check_layer(params: LstmParams, state: LstmState, x: Tensor, weights: LstmWeights):
    _check_params(params, "LSTM")
    if not isinstance(state, LstmState):
        raise BuildError(f"LSTM state must be an lstm.LstmState (create_initial_state's), got {describe(state)}")
    if not isinstance(weights, LstmWeights):
        raise BuildError(f"LSTM weights must be an lstm.LstmWeights (create_weights'), got {describe(weights)}")
    s, b, (i, h), dtype = params.time_steps, params.batch_size, params.layer_sizes, params.dtype
    _check("input x", x, (s, b, i), dtype)
    _check("initial output", state.output, (b, h), dtype)
    _check("initial cell state", state.cell_state, (b, h), dtype)
    _check("input weights", weights.input_weights, (4, i, h), dtype)
    _check("output weights", weights.output_weights, (4, h, h), dtype)
    _check("biases", weights.biases, (4, h), dtype)


def _num_intermediates(params: LstmParams, opts: _Options) -> int:
    return (6 if opts.recomputation_mode == "none" else 4) + (0 if params.output_full_sequence else 1)


def _check_intermediates(params, opts, inter):
    n = _num_intermediates(params, opts)
    if isinstance(inter, Tensor) and inter.ndim == 4 and inter.shape[1] != n:
        raise BuildError(f"LSTM intermediates have {inter.shape[1]} rows per step but recomputationMode="
                         f"'{opts.recomputation_mode}' needs {n}: pass the options given to forward()")
    _check("forward intermediates", inter, (params.time_steps, n, params.batch_size, params.output_size),
           params.dtype)


def _output_shape(params: LstmParams) -> tuple:
    state = (params.batch_size, params.output_size)
    return (params.time_steps, *state) if params.output_full_sequence else state


# --- pieces of the cell ------------------------------------------------------------------------
def _gate_rows(t3: Tensor, positions) -> Tensor:
    """The [len(positions), B, H] view of the gates at `positions` of a [B, 4, H] tensor."""
    return pd.concat([t3[:, p:p + 1] for p in positions], axis=1).transpose(1, 0, 2)


def _positions(params: LstmParams, gates) -> list:
    return [params.position(g) for g in gates]


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


def _gate_units(params: LstmParams, opts: _Options, x: Tensor, weights: LstmWeights, matmul_options: dict):
    """(output, units_step): the output h [B, H] a step reads, and units_step(t), which adds
    the products of the step's gate units [B, 4, H] (cell order, without the biases) and
    returns them. The weights are one matrix W = [[W_in], [W_out]] stored as the products
    read it, row after row of 4H columns (padded, _weight_matrix), which the emulator's kernel
    for products of few rows reads in place: weights from create_weights lie so, others are
    copied so."""
    graph = x.graph
    s, b, (i, h), dtype = params.time_steps, params.batch_size, params.layer_sizes, params.dtype
    weights_matrix = _stacked_weights(weights)
    if not _rows_in_place(weights_matrix):
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


# --- forward ---------------------------------------------------------------------------------
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


@pd.custom_grad(_forward_vjp, reads_outputs=True)
def forward(params: LstmParams, state: LstmState, x: Tensor, weights: LstmWeights, save_intermediates: bool = True,
            options: Optional[dict] = None) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
    """Runs the LSTM over x. Returns (output, final cell state, intermediates or None):
    output is [S, B, H] with output_full_sequence, else the final output [B, H]."""
    _check_layer(params, state, x, weights)
    graph = x.graph
    opts = _parse_options(options, params, graph)
    s, b, h, dtype = params.time_steps, params.batch_size, params.output_size, params.dtype
    matmul_options = opts.matmul_options("INFERENCE_FWD" if opts.inference_only else "TRAINING_FWD")
    fico = _positions(params, GATES)
    with pd.name_scope("lstm/fwd"):
        output, units_step = _gate_units(params, opts, x, weights, matmul_options)
        cell = graph.variable(dtype, (b, h), name="cellState")
        pd.copy(state.output, output)
        pd.copy(state.cell_state, cell)
        sequence = graph.variable(dtype, (s, b, h), name="outputSequence") if params.output_full_sequence else None
        inter = graph.variable(dtype, (s, _num_intermediates(params, opts), b, h), name="intermediates") \
            if save_intermediates else None
        # The biases in FICO order, once for every batch row: operands the cell's maps read in place.
        biases = pd.copy(_stack(*(weights.biases[p] for p in fico)).expand(1).broadcast((4, b, h)),
                         graph.variable(dtype, (4, b, h), name="biases"))
        saves_nothing = inter is None and params.variable_time_steps is None
        fused = _fused_cell(params, cell, output, biases) if saves_nothing else None
        cell_step = fused or _saving_cell(params, opts, graph, cell, output, biases, inter)
        t = _step_counter(graph, 0)
        with pd.Repeat(s):
            units = units_step(t)
            step_output = cell_step(t, _stack(*(units[:, p] for p in fico)))
            if sequence is not None:
                sequence.at[t].set(step_output)
            t += 1
    return (sequence if sequence is not None else output), cell, inter


# --- backward --------------------------------------------------------------------------------
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
    rec = _positions(params, ("forget", "input", "output"))
    candidate = params.position("candidate")
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
    cells = _recompute_cells(params, graph, state, inter) if opts.recomputation_mode == "cellAndTanh" else None
    input_grad = graph.variable(dtype, (s, b, i), name="inputGrad") if params.calc_input_gradients else None
    gate_grads = graph.variable(dtype, (b, 4, h), name="gateGrads")  # dZ, gates in cell order
    cell_total = graph.variable(dtype, (b, h), name="cellTotalGrad")
    t = _step_counter(graph, s - 1)
    with pd.Repeat(s):
        saved = inter.at[t].get()
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
        cell_total += cell_grad
        _activation_grad(params.recurrent_activation, _gate_rows(gate_grads, rec), _stack(f, i_gate, o),
                         _stack(prev_cell, g, act_cell), _stack(cell_total, cell_total, total_out_grad))
        _activation_grad(params.activation, gate_grads[:, candidate], g, i_gate, cell_total)
        pd.matmul(gate_grads.reshape(b, 4 * h), step_weights, options=matmul_options, out=propagated)
        if input_grad is not None and not inputs_after_loop:
            input_grad.at[t].set(propagated[:, :i])
        mask = _step_mask(params, graph, t)
        if propagated is not output_grad:
            _carry(output_grad, propagated[:, -h:], mask)
        _update(cell_grad, mask, lambda f, d: f * d, f, cell_total)
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
