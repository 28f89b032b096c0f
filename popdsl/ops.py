"""Ops: element-wise functions, traced maps, copies. Each emits into the open block.

Element-wise functions work on tensors (emitting one popops map each) and on
popops expressions inside functions traced by pd.map (building one fused map).
"""
from popdsl._core import poplar, popnn, popops, poputil
from popdsl._core import program as _program
from popdsl._core.popops import expr as pe
from popdsl.debug import BuildError, debug_name
from popdsl.dtypes import as_type, is_floating
from popdsl.control import current_block, emit
from popdsl.tensor import Tensor

_PLACEHOLDERS = [getattr(pe, f"_{i}") for i in range(1, 21)]
_LIBRARY_ERRORS = (poputil.poplibs_error, poplar.poplar_error, RuntimeError)


def _graph_of(tensors):
    graphs = {id(t.graph): t.graph for t in tensors}
    if len(graphs) != 1:
        raise BuildError(f"tensors {tensors} belong to different graphs")
    return tensors[0].graph


def _run_library(build, name, prog):
    """Calls build(raw_sequence, debug_name) and emits the sequence it filled."""
    current_block(prog)  # fail before touching the graph when no program is open
    seq = _program.Sequence()
    try:
        result = build(seq, debug_name(name))
    except _LIBRARY_ERRORS as e:
        raise BuildError(str(e)) from None
    emit(seq, prog)
    return result


def _operands(args):
    """Splits arguments into tensors (which become placeholders) and an expression builder."""
    tensors, exprs = [], []
    for a in args:
        if isinstance(a, Tensor):
            tensors.append(a)
            exprs.append(_PLACEHOLDERS[len(tensors) - 1])
        elif isinstance(a, (bool, int, float)):
            exprs.append(a)
        elif isinstance(a, pe.Expr):
            raise BuildError("popops expressions only make sense inside a function traced by pd.map")
        else:
            raise BuildError(f"expected a pd.Tensor or a Python number, not {type(a).__name__}")
    return tensors, exprs


def _check_scalars(tensors, args):
    integral = [t for t in tensors if not is_floating(t.dtype)]
    for a in args:
        if integral and isinstance(a, float) and not float(a).is_integer():
            raise BuildError(f"the float {a} would be truncated to combine with integer tensor {integral[0]!r}; "
                             "use an integer or pd.cast the tensor first")


def _map(expression, tensors, name=None, prog=None) -> Tensor:
    graph = _graph_of(tensors)
    raw = _run_library(lambda seq, dc: popops.map(graph.raw, expression, [t.raw for t in tensors], seq, dc),
                       name, prog)
    return graph.track(Tensor(raw, graph))


def _map_in_place(expression, tensors, name=None, prog=None) -> Tensor:
    graph = _graph_of(tensors)
    _run_library(lambda seq, dc: popops.mapInPlace(graph.raw, expression, [t.raw for t in tensors], seq, dc),
                 name, prog)
    return tensors[0]


def apply(op_builder, *args, name=None, prog=None, in_place=False):
    """Applies an expression builder to tensors and numbers, or builds an expression."""
    if any(isinstance(a, pe.Expr) for a in args):
        return op_builder(*args)
    tensors, exprs = _operands(args)
    if not tensors:
        raise BuildError("at least one operand must be a pd.Tensor")
    _check_scalars(tensors, args)
    expression = op_builder(*exprs)
    return (_map_in_place if in_place else _map)(expression, tensors, name, prog)


def _unary(op, doc):
    def fn(x, name=None, prog=None):
        return apply(lambda a: pe.UnaryOp(op, a), x, name=name, prog=prog)
    fn.__doc__ = doc
    return fn


exp = _unary(pe.UnaryOpType.EXPONENT, "e**x")
log = _unary(pe.UnaryOpType.LOGARITHM, "natural logarithm")
tanh = _unary(pe.UnaryOpType.TANH, "hyperbolic tangent")
sigmoid = _unary(pe.UnaryOpType.SIGMOID, "1 / (1 + e**-x)")
sqrt = _unary(pe.UnaryOpType.SQRT, "square root")
rsqrt = _unary(pe.UnaryOpType.RSQRT, "1 / sqrt(x)")
abs = _unary(pe.UnaryOpType.ABSOLUTE, "absolute value")
neg = _unary(pe.UnaryOpType.NEGATE, "-x")
square = _unary(pe.UnaryOpType.SQUARE, "x * x")
relu = _unary(pe.UnaryOpType.RELU, "max(x, 0)")
sin = _unary(pe.UnaryOpType.SIN, "sine")
cos = _unary(pe.UnaryOpType.COS, "cosine")
floor = _unary(pe.UnaryOpType.FLOOR, "round down")
ceil = _unary(pe.UnaryOpType.CEIL, "round up")
logical_not = _unary(pe.UnaryOpType.LOGICAL_NOT, "not x (bool)")


def max(a, b, name=None, prog=None):
    """Element-wise maximum; NaN when either operand is NaN (as numpy.maximum)."""
    return apply(pe.Max, a, b, name=name, prog=prog)


def min(a, b, name=None, prog=None):
    """Element-wise minimum; NaN when either operand is NaN (as numpy.minimum)."""
    return apply(pe.Min, a, b, name=name, prog=prog)


def pow(a, b, name=None, prog=None):
    return apply(pe.Pow, a, b, name=name, prog=prog)


def where(condition, a, b, name=None, prog=None):
    """condition ? a : b, element-wise."""
    return apply(lambda c, x, y: pe.Select(x, y, c), condition, a, b, name=name, prog=prog)


def logical_and(a, b, name=None, prog=None):
    return apply(pe.And, a, b, name=name, prog=prog)


def logical_or(a, b, name=None, prog=None):
    return apply(pe.Or, a, b, name=name, prog=prog)


def _trace(fn, count):
    result = fn(*_PLACEHOLDERS[:count])
    if not isinstance(result, pe.Expr):
        raise BuildError(f"the function given to pd.map must return an expression of its arguments, "
                         f"not {type(result).__name__}")
    return result


def map(fn, *tensors, name=None, prog=None) -> Tensor:
    """Traces fn over placeholders into ONE fused popops map of the tensors (broadcast numpy-style)."""
    if not tensors or not all(isinstance(t, Tensor) for t in tensors):
        raise BuildError("pd.map(fn, *tensors) needs one or more pd.Tensor arguments")
    return _map(_trace(fn, len(tensors)), list(tensors), name, prog)


def map_(fn, target, *others, name=None, prog=None) -> Tensor:
    """Like pd.map, writing the result into `target` (the first argument of fn)."""
    tensors = [target, *others]
    if not all(isinstance(t, Tensor) for t in tensors):
        raise BuildError("pd.map_(fn, target, *others) needs pd.Tensor arguments")
    return _map_in_place(_trace(fn, len(tensors)), tensors, name, prog)


def cast(t: Tensor, dtype, name=None, prog=None) -> Tensor:
    """A new tensor with t's values converted to dtype."""
    return _map(pe.Cast(pe._1, as_type(dtype)), [t], name, prog)


def copy(src: Tensor, dst: Tensor, name=None, prog=None) -> Tensor:
    """Copies src into dst (same dtype and element count)."""
    if src.dtype != dst.dtype or src.size != dst.size:
        raise BuildError(f"cannot copy {src!r} into {dst!r}: dtypes and element counts must match")
    emit(_program.Copy(src.raw, dst.raw, False, debug_name(name)), prog)
    return dst


def fill(t: Tensor, value, name=None, prog=None) -> Tensor:
    """Sets every element of t to value (popops::fill)."""
    _check_scalars([t], [value])
    _run_library(lambda seq, dc: popops.fill(t.graph.raw, t.raw, seq, value, dc), name, prog)
    return t


def zero(t: Tensor, name=None, prog=None) -> Tensor:
    """Sets every element of t to zero."""
    return fill(t, 0, name=name, prog=prog)


def concat(tensors, axis: int = 0) -> Tensor:
    """A view joining tensors along axis (no copy; writes go to the originals)."""
    graph = _graph_of(list(tensors))
    try:
        return Tensor(poplar.concat([t.raw for t in tensors], axis % tensors[0].ndim), graph)
    except poplar.poplar_error as e:
        raise BuildError(str(e)) from None


# --- operators on pd.Tensor -------------------------------------------------------------
def _binary_operator(op, reflected=False):
    def method(self, other):
        if not isinstance(other, (Tensor, bool, int, float)):
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        return apply(lambda x, y: pe.BinaryOp(op, x, y), a, b)
    return method


def _in_place_operator(op):
    def method(self, other):
        return apply(lambda x, y: pe.BinaryOp(op, x, y), self, other, in_place=True)
    return method


_OPERATORS = {
    "add": pe.BinaryOpType.ADD, "sub": pe.BinaryOpType.SUBTRACT, "mul": pe.BinaryOpType.MULTIPLY,
    "truediv": pe.BinaryOpType.DIVIDE, "mod": pe.BinaryOpType.REMAINDER, "pow": pe.BinaryOpType.POWER,
    "and": pe.BinaryOpType.BITWISE_AND, "or": pe.BinaryOpType.BITWISE_OR, "xor": pe.BinaryOpType.BITWISE_XOR,
}
for _name, _op in _OPERATORS.items():
    setattr(Tensor, f"__{_name}__", _binary_operator(_op))
    setattr(Tensor, f"__r{_name}__", _binary_operator(_op, reflected=True))
    setattr(Tensor, f"__i{_name}__", _in_place_operator(_op))
for _name, _op in {"eq": pe.BinaryOpType.EQUAL, "ne": pe.BinaryOpType.NOT_EQUAL,
                   "lt": pe.BinaryOpType.LESS_THAN, "le": pe.BinaryOpType.LESS_THAN_EQUAL,
                   "gt": pe.BinaryOpType.GREATER_THAN, "ge": pe.BinaryOpType.GREATER_THAN_EQUAL}.items():
    setattr(Tensor, f"__{_name}__", _binary_operator(_op))
Tensor.__neg__ = lambda self: neg(self)
Tensor.__abs__ = lambda self: abs(self)
Tensor.__invert__ = lambda self: apply(lambda a: pe.UnaryOp(pe.UnaryOpType.BITWISE_NOT, a), self)


def _set_item(self, key, value):
    """t[key] = value copies into the view; after `t[key] op= v` it is already written."""
    view = self[key]
    if isinstance(value, Tensor) and value.raw == view.raw:
        return
    if isinstance(value, Tensor):
        copy(value.broadcast(view.shape) if value.shape != view.shape else value, view)
    else:
        fill(view, value)


Tensor.__setitem__ = _set_item


def print_tensor(t: Tensor, title=None, prog=None):
    """Prints t's values when the program runs, in Poplar's PrintTensor format."""
    emit(_program.PrintTensor(title if title is not None else t.name, t.raw, debug_name(None)), prog)


_NONLINEARITIES = {name: getattr(popnn.NonLinearityType, name) for name in
                   ["SIGMOID", "HARD_SIGMOID", "RELU", "TANH", "GELU", "GELU_ERF", "SWISH",
                    "SOFTMAX", "SOFTMAX_STABLE", "SOFTMAX_SCALED"]}


def _nonlinearity_type(kind: str):
    try:
        return _NONLINEARITIES[kind.upper()]
    except (KeyError, AttributeError):
        raise BuildError(f"unknown non-linearity {kind!r}; choose from {sorted(k.lower() for k in _NONLINEARITIES)}") from None


def nonlinearity(t: Tensor, kind: str, name=None, prog=None) -> Tensor:
    """popnn's non-linearity `kind` ("sigmoid", "tanh", "relu", "gelu", "softmax", ...) of t."""
    raw = _run_library(lambda seq, dc: popnn.nonLinearity(t.graph.raw, _nonlinearity_type(kind), t.raw, seq, dc),
                       name, prog)
    return t.graph.track(Tensor(raw, t.graph))


def nonlinearity_(t: Tensor, kind: str, name=None, prog=None) -> Tensor:
    """Like pd.nonlinearity, writing the result over t (popnn nonLinearityInPlace); returns t."""
    _run_library(lambda seq, dc: popnn.nonLinearityInPlace(t.graph.raw, _nonlinearity_type(kind), t.raw, seq, dc),
                 name, prog)
    return t


def nonlinearity_grad(activation: Tensor, out_grad: Tensor, kind: str, name=None, prog=None) -> Tensor:
    """Input gradient of `kind`: activation is its output (its input for gelu and swish)."""
    raw = _run_library(lambda seq, dc: popnn.nonLinearityInputGradient(
        activation.graph.raw, _nonlinearity_type(kind), activation.raw, out_grad.raw, seq, dc), name, prog)
    return activation.graph.track(Tensor(raw, activation.graph))
