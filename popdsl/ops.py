"""Ops: element-wise functions, traced maps, copies. Each emits into the open block.

Element-wise functions work on tensors (emitting one popops map each) and on
popops expressions inside functions traced by pd.map (building one fused map).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from popdsl._core import poplar, popnn, popops, poputil
from popdsl._core import program as _program
from popdsl._core.popops import expr as pe
from popdsl.debug import BuildError, debug_name, describe, expect_callable, expect_int, expect_str
from popdsl.dtypes import DType, as_type, bool_, is_floating
from popdsl.control import current_block, emit, record, Block
from popdsl.tensor import Tensor, expect_tensor

# The public names (the API reference's); the module's other functions serve the package.
__all__ = ["exp", "log", "tanh", "sigmoid", "sqrt", "rsqrt", "abs", "neg", "square", "relu", "sin", "cos", "floor",
           "ceil", "logical_not", "max", "min", "pow", "where", "logical_and", "logical_or", "map", "map_", "cast",
           "copy", "fill", "zero", "concat", "print_tensor", "nonlinearity", "nonlinearity_", "nonlinearity_grad"]

_PLACEHOLDERS = [getattr(pe, f"_{i}") for i in range(1, 21)]
_LIBRARY_ERRORS = (poputil.poplibs_error, poplar.poplar_error, RuntimeError)

# An operand of the element-wise functions: a tensor or a number (typed as the tensors are).
Operand = Union[Tensor, float]


def _graph_of(tensors, what: str):
    """The one graph of `tensors` (a list); a non-tensor or a tensor of another graph
    raises a BuildError naming `what`[i]."""
    first = expect_tensor(tensors[0], f"{what}[0]")
    for i, t in enumerate(tensors[1:], 1):
        expect_tensor(t, f"{what}[{i}]", first.graph, f"{what}[0]")
    return first.graph


def _run_library(build, name, prog, op=None):
    """Calls build(raw_sequence, debug_name) and emits the sequence it filled; `op` (the op's
    kind) ends the debug name."""
    current_block(prog)  # fail before touching the graph when no program is open
    seq = _program.Sequence()
    try:
        result = build(seq, debug_name(name, op))
    except _LIBRARY_ERRORS as e:
        raise BuildError(str(e)) from None
    emit(seq, prog)
    return result


def _operands(args, what):
    """Splits arguments into tensors (which become placeholders) and an expression builder;
    what[i] names args[i] in errors. A numpy array becomes a constant of the tensors' dtype,
    a numpy scalar a Python number."""
    args = [a.item() if isinstance(a, np.generic) else a for a in args]
    args = _arrays_as_constants(args, what)
    tensors, exprs, first_label = [], [], None
    for a, label in zip(args, what):
        if isinstance(a, Tensor):
            expect_tensor(a, label, tensors[0].graph if tensors else None, first_label)
            first_label = first_label or label
            tensors.append(a)
            exprs.append(_PLACEHOLDERS[len(tensors) - 1])
        elif isinstance(a, (bool, int, float)):
            exprs.append(a)
        elif isinstance(a, pe.Expr):
            raise BuildError(f"{label}: popops expressions only make sense inside a function traced by pd.map")
        else:
            raise BuildError(f"{label} must be a pd.Tensor, a Python number or a numpy array, got {describe(a)}")
    return tensors, exprs


def _arrays_as_constants(args, what) -> list:
    """args with each numpy array made a graph constant: a bool array of bools, any other in
    the dtype of the first non-bool tensor among args (pd.where's condition does not decide);
    an array of non-integers beside an integer tensor is refused, as a float is."""
    if not any(isinstance(a, np.ndarray) for a in args):
        return args
    tensors = [a for a in args if isinstance(a, Tensor)]
    if not tensors:
        return args  # only arrays and numbers: refused below, naming them
    like = next((t for t in tensors if t.dtype != bool_), tensors[0])
    converted = []
    for a, label in zip(args, what):
        if isinstance(a, np.ndarray):
            if a.dtype.kind not in "biuf":
                raise BuildError(f"{label} must be a pd.Tensor, a Python number or a numpy array of numbers, "
                                 f"got an array of {a.dtype}")
            if not is_floating(like.dtype) and a.dtype.kind == "f" and not np.all(np.mod(a, 1) == 0):
                raise BuildError(f"{label}: the float array would be truncated to combine with integer tensor "
                                 f"{like!r}; pass integers or pd.cast the tensor first")
            a = like.graph.constant(a, dtype=bool_ if a.dtype.kind == "b" else like.dtype)
        converted.append(a)
    return converted


def _expression_operands(args, what):
    """Inside pd.map: every operand is an expression of fn's arguments or a Python number."""
    for a, label in zip(args, what):
        if not isinstance(a, (pe.Expr, bool, int, float)):
            raise BuildError(f"{label} must be an expression of pd.map's arguments or a Python number, "
                             f"got {describe(a)}")
    return args


def _check_scalars(tensors, args):
    integral = [t for t in tensors if not is_floating(t.dtype)]
    for a in args:
        if integral and isinstance(a, float) and not float(a).is_integer():
            raise BuildError(f"the float {a} would be truncated to combine with integer tensor {integral[0]!r}; "
                             "use an integer or pd.cast the tensor first")


def _map(expression, tensors, name=None, prog=None) -> Tensor:
    graph = _graph_of(tensors, "tensors")
    raw = _run_library(lambda seq, dc: popops.map(graph.raw, expression, [t.raw for t in tensors], seq, dc),
                       name, prog, _map_kind(expression))
    out = graph.track(Tensor(raw, graph))
    record("pd.map", tensors, [out], prog, expression=expression)
    return out


def _map_kind(expression) -> str:
    """The op kind a map's debug name ends with: pd.map and its expression, shortened."""
    text = str(expression)
    return f"pd.map {text if len(text) <= 48 else text[:45] + '...'}"


def _map_in_place(expression, tensors, name=None, prog=None) -> Tensor:
    graph = _graph_of(tensors, "tensors")
    _run_library(lambda seq, dc: popops.mapInPlace(graph.raw, expression, [t.raw for t in tensors], seq, dc),
                 name, prog, _map_kind(expression))
    record("pd.map", tensors, tensors[:1], prog, written=tensors[:1], expression=expression)
    return tensors[0]


def apply(op_builder, *args, what, name=None, prog=None, in_place=False):
    """Applies an expression builder to tensors and numbers, or builds an expression;
    what[i] names args[i] in errors ("pd.max: b")."""
    if any(isinstance(a, pe.Expr) for a in args):
        return op_builder(*_expression_operands(args, what))
    tensors, exprs = _operands(args, what)
    if not tensors:
        raise BuildError(f"{' or '.join(what)} must be a pd.Tensor, got only numbers {args}")
    _check_scalars(tensors, args)
    expression = op_builder(*exprs)
    return (_map_in_place if in_place else _map)(expression, tensors, name, prog)


def _unary(function_name, op, doc):
    def fn(x: Operand, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
        return apply(lambda a: pe.UnaryOp(op, a), x, what=(f"pd.{function_name}: x",), name=name, prog=prog)
    fn.__name__ = fn.__qualname__ = function_name
    fn.__doc__ = doc
    return fn


exp = _unary("exp", pe.UnaryOpType.EXPONENT, "e**x")
log = _unary("log", pe.UnaryOpType.LOGARITHM, "natural logarithm")
tanh = _unary("tanh", pe.UnaryOpType.TANH, "hyperbolic tangent")
sigmoid = _unary("sigmoid", pe.UnaryOpType.SIGMOID, "1 / (1 + e**-x)")
sqrt = _unary("sqrt", pe.UnaryOpType.SQRT, "square root")
rsqrt = _unary("rsqrt", pe.UnaryOpType.RSQRT, "1 / sqrt(x)")
abs = _unary("abs", pe.UnaryOpType.ABSOLUTE, "absolute value")
neg = _unary("neg", pe.UnaryOpType.NEGATE, "-x")
square = _unary("square", pe.UnaryOpType.SQUARE, "x * x")
relu = _unary("relu", pe.UnaryOpType.RELU, "max(x, 0)")
sin = _unary("sin", pe.UnaryOpType.SIN, "sine")
cos = _unary("cos", pe.UnaryOpType.COS, "cosine")
floor = _unary("floor", pe.UnaryOpType.FLOOR, "round down")
ceil = _unary("ceil", pe.UnaryOpType.CEIL, "round up")
logical_not = _unary("logical_not", pe.UnaryOpType.LOGICAL_NOT, "not x (bool)")


def max(a: Operand, b: Operand, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Element-wise maximum; NaN when either operand is NaN (as numpy.maximum)."""
    return apply(pe.Max, a, b, what=("pd.max: a", "pd.max: b"), name=name, prog=prog)


def min(a: Operand, b: Operand, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Element-wise minimum; NaN when either operand is NaN (as numpy.minimum)."""
    return apply(pe.Min, a, b, what=("pd.min: a", "pd.min: b"), name=name, prog=prog)


def pow(a: Operand, b: Operand, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """a ** b, element-wise."""
    return apply(pe.Pow, a, b, what=("pd.pow: a", "pd.pow: b"), name=name, prog=prog)


def where(condition: Operand, a: Operand, b: Operand, name: Optional[str] = None,
          prog: Optional[Block] = None) -> Tensor:
    """condition ? a : b, element-wise."""
    return apply(lambda c, x, y: pe.Select(x, y, c), condition, a, b,
                 what=("pd.where: condition", "pd.where: a", "pd.where: b"), name=name, prog=prog)


def logical_and(a: Operand, b: Operand, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """a and b, element-wise (bool tensors)."""
    return apply(pe.And, a, b, what=("pd.logical_and: a", "pd.logical_and: b"), name=name, prog=prog)


def logical_or(a: Operand, b: Operand, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """a or b, element-wise (bool tensors)."""
    return apply(pe.Or, a, b, what=("pd.logical_or: a", "pd.logical_or: b"), name=name, prog=prog)


def _trace(fn, count, what):
    expect_callable(fn, f"{what}: fn")
    try:
        inspect.signature(fn).bind(*_PLACEHOLDERS[:count])
    except TypeError as e:
        raise BuildError(f"{what}: fn cannot take the {count} tensor(s) given: {e}") from None
    except ValueError:  # a builtin without a signature: calling it tells
        pass
    try:
        result = fn(*_PLACEHOLDERS[:count])
    except poputil.poplibs_error as e:  # popops refused an expression fn built (nested too deep)
        raise BuildError(f"{what}: {e}") from None
    if not isinstance(result, pe.Expr):
        raise BuildError(f"the function given to pd.map must return an expression of its arguments, "
                         f"not {type(result).__name__}")
    return result


def map(fn: Callable[..., Any], *tensors, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Traces fn over placeholders into ONE fused popops map of the tensors (broadcast numpy-style)."""
    if not tensors:
        raise BuildError("pd.map(fn, *tensors) needs one or more pd.Tensor arguments")
    _graph_of(list(tensors), "pd.map: tensors")
    return _map(_trace(fn, len(tensors), "pd.map"), list(tensors), name, prog)


def map_(fn: Callable[..., Any], target: Tensor, *others, name: Optional[str] = None,
         prog: Optional[Block] = None) -> Tensor:
    """Like pd.map, writing the result into `target` (the first argument of fn)."""
    expect_tensor(target, "pd.map_: target")
    _graph_of([target, *others], "pd.map_: [target, *others]")
    return _map_in_place(_trace(fn, len(others) + 1, "pd.map_"), [target, *others], name, prog)


def cast(t: Tensor, dtype: DType, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """A new tensor with t's values converted to dtype."""
    expect_tensor(t, "pd.cast: t")
    return _map(pe.Cast(pe._1, as_type(dtype, "pd.cast: dtype")), [t], name, prog)


def copy(src: Tensor, dst: Tensor, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Copies src into dst (same dtype and element count)."""
    expect_tensor(dst, "pd.copy: dst", expect_tensor(src, "pd.copy: src").graph, "src")
    if src.dtype != dst.dtype or src.size != dst.size:
        raise BuildError(f"cannot copy {src!r} into {dst!r}: dtypes and element counts must match")
    emit(_program.Copy(src.raw, dst.raw, False, debug_name(name, "pd.copy")), prog)
    record("pd.copy", [src, dst], [dst], prog, written=[dst])
    return dst


def fill(t: Tensor, value: float, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Sets every element of t to value (popops::fill)."""
    expect_tensor(t, "pd.fill: t")
    if not isinstance(value, (bool, int, float)):
        raise BuildError(f"pd.fill: value must be a Python number, got {describe(value)}")
    _check_scalars([t], [value])
    _run_library(lambda seq, dc: popops.fill(t.graph.raw, t.raw, seq, value, dc), name, prog, "pd.fill")
    record("pd.fill", [t], [t], prog, written=[t])
    return t


def zero(t: Tensor, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Sets every element of t to zero."""
    expect_tensor(t, "pd.zero: t")
    return fill(t, 0, name=name, prog=prog)


def concat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """A view joining tensors along axis (no copy; writes go to the originals)."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)) or not tensors:
        raise BuildError(f"pd.concat: tensors must be a non-empty list of pd.Tensors, got {describe(tensors)}")
    graph = _graph_of(list(tensors), "pd.concat: tensors")
    rank = tensors[0].ndim
    axis = expect_int(axis, "pd.concat: axis", -rank, rank - 1)
    try:
        joined = Tensor(poplar.concat([t.raw for t in tensors], axis % rank), graph)
    except poplar.poplar_error as e:
        raise BuildError(str(e)) from None
    joined.view_of = ("pd.concat", tuple(tensors), {"axis": axis % rank})
    return joined


def print_tensor(t: Tensor, title: Optional[str] = None, prog: Optional[Block] = None) -> None:
    """Prints t's values when the program runs, in Poplar's PrintTensor format."""
    expect_tensor(t, "pd.print_tensor: t")
    if title is not None:
        expect_str(title, "pd.print_tensor: title")
    emit(_program.PrintTensor(title if title is not None else t.name, t.raw, debug_name(None)), prog)


_NONLINEARITIES = {name: getattr(popnn.NonLinearityType, name) for name in
                   ["SIGMOID", "HARD_SIGMOID", "RELU", "TANH", "GELU", "GELU_ERF", "SWISH",
                    "SOFTMAX", "SOFTMAX_STABLE", "SOFTMAX_SCALED"]}


def _nonlinearity_type(kind: str, what: str):
    try:
        return _NONLINEARITIES[kind.upper()]
    except (KeyError, AttributeError):
        raise BuildError(f"{what}: kind: unknown non-linearity {kind!r}; choose from "
                         f"{sorted(k.lower() for k in _NONLINEARITIES)}") from None


def nonlinearity(t: Tensor, kind: str, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """popnn's non-linearity `kind` of t: "sigmoid", "hard_sigmoid", "relu", "tanh", "gelu" (popnn's
    GELU: the tanh approximation), "gelu_erf" (the exact form), "swish", "softmax",
    "softmax_stable", "softmax_scaled" (softmaxes over the last axis). pd.gelu and pd.softmax
    give them by their common names."""
    expect_tensor(t, "pd.nonlinearity: t")
    kind = _nonlinearity_type(kind, "pd.nonlinearity")
    raw = _run_library(lambda seq, dc: popnn.nonLinearity(t.graph.raw, kind, t.raw, seq, dc), name, prog,
                       "pd.nonlinearity")
    out = t.graph.track(Tensor(raw, t.graph))
    record("pd.nonlinearity", [t], [out], prog, function=kind.name)
    return out


def nonlinearity_(t: Tensor, kind: str, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Like pd.nonlinearity, writing the result over t (popnn nonLinearityInPlace); returns t."""
    expect_tensor(t, "pd.nonlinearity_: t")
    kind = _nonlinearity_type(kind, "pd.nonlinearity_")
    _run_library(lambda seq, dc: popnn.nonLinearityInPlace(t.graph.raw, kind, t.raw, seq, dc), name, prog,
                 "pd.nonlinearity_")
    record("pd.nonlinearity_", [t], [t], prog, written=[t], function=kind.name)
    return t


def nonlinearity_grad(activation: Tensor, out_grad: Tensor, kind: str, name: Optional[str] = None,
                      prog: Optional[Block] = None) -> Tensor:
    """Input gradient of `kind`: activation is its output (its input for gelu and swish)."""
    graph = expect_tensor(activation, "pd.nonlinearity_grad: activation").graph
    expect_tensor(out_grad, "pd.nonlinearity_grad: out_grad", graph, "activation")
    kind = _nonlinearity_type(kind, "pd.nonlinearity_grad")
    raw = _run_library(lambda seq, dc: popnn.nonLinearityInputGradient(
        graph.raw, kind, activation.raw, out_grad.raw, seq, dc), name, prog)
    out = activation.graph.track(Tensor(raw, activation.graph))
    record("pd.nonlinearity_grad", [activation, out_grad], [out], prog)
    return out
