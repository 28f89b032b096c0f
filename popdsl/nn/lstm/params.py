"""The LSTM's parameters (popnn::lstm::LstmParams), state and weights, popnn's options,
the checks of what the builders take, and the FLOPs popnn counts."""
from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple, Optional

import popdsl as pd
from popdsl.debug import LARGEST_INT, BuildError, describe, expect_int
from popdsl.dtypes import as_type
from popdsl.tensor import Tensor


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
def _check_params(params, what: str):
    if not isinstance(params, LstmParams):
        raise BuildError(f"{what}: params must be an lstm.LstmParams, got {describe(params)}")


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


def _positions(params: LstmParams, gates) -> list:
    """Where `gates` lie among the cell's gates (params.cell_order)."""
    return [params.position(g) for g in gates]


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
