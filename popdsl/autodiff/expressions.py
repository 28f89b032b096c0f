"""Symbolic reverse-mode differentiation of popops expression trees.

Every element-wise op of the layer (operators, pd.exp, pd.where, pd.cast, pd.map
lambdas) is one popops map of an expression over placeholders _1.._n. Its gradient
with respect to input i is another expression, over the inputs and the output
gradient G (placeholder _{n+1}), which pd.grad runs as one fused map.
"""
import math

from popdsl._core import poplar
from popdsl._core.popops import expr as pe
from popdsl.debug import BuildError

U, B, T = pe.UnaryOpType, pe.BinaryOpType, pe.TernaryOpType

# The local derivative of each unary function at x (the cotangent multiplies it).
_UNARY = {
    U.ABSOLUTE: lambda x: pe.Signum(x),
    U.ASIN: lambda x: pe.Rsqrt(1.0 - x * x),
    U.CBRT: lambda x: pe.Inv(3.0 * pe.Square(pe.Cbrt(x))),
    U.COS: lambda x: -pe.Sin(x),
    U.ERF: lambda x: 2.0 / math.sqrt(math.pi) * pe.Exp(-(x * x)),
    U.EXPONENT: lambda x: pe.Exp(x),
    U.EXPONENT_MINUS_ONE: lambda x: pe.Exp(x),
    U.EXPONENT2: lambda x: math.log(2.0) * pe.Exp2(x),
    U.GELU_ERF: lambda x: (0.5 * (1.0 + pe.Erf(x * (1 / math.sqrt(2.0))))
                           + x * pe.Exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))),
    U.INVERSE: lambda x: -pe.Square(pe.Inv(x)),
    U.LOGARITHM: lambda x: pe.Inv(x),
    U.LOGARITHM_ONE_PLUS: lambda x: pe.Inv(1.0 + x),
    U.SIN: lambda x: pe.Cos(x),
    U.TAN: lambda x: 1.0 + pe.Square(pe.Tan(x)),
    U.TANH: lambda x: 1.0 - pe.Square(pe.Tanh(x)),
    U.SQRT: lambda x: 0.5 * pe.Rsqrt(x),
    U.SQUARE: lambda x: 2.0 * x,
    U.SIGMOID: lambda x: pe.Sigmoid(x) * (1.0 - pe.Sigmoid(x)),
    U.RSQRT: lambda x: -0.5 * pe.Rsqrt(x) / x,
}
# Piecewise constant: zero gradient almost everywhere.
_UNARY_FLAT = {U.CEIL, U.FLOOR, U.ROUND, U.SIGNUM, U.TRUNC, U.NEARBY_INT}
# Integer or bool results: no gradient flows through them.
_UNARY_DISCRETE = {U.BITWISE_NOT, U.COUNT_LEADING_ZEROS, U.IS_FINITE, U.IS_INF, U.IS_NAN, U.LOGICAL_NOT, U.POPCOUNT}
_BINARY_DISCRETE = {B.BITWISE_AND, B.BITWISE_OR, B.BITWISE_XOR, B.BITWISE_XNOR, B.EQUAL, B.NOT_EQUAL,
                    B.GREATER_THAN, B.GREATER_THAN_EQUAL, B.LESS_THAN, B.LESS_THAN_EQUAL, B.LOGICAL_AND,
                    B.LOGICAL_OR, B.SHIFT_LEFT, B.SHIFT_RIGHT, B.SHIFT_RIGHT_SIGN_EXTEND}


def _tie_split(ct, wins, ties):
    """ct where this side wins, half of it where the two sides tie (as torch.maximum)."""
    return pe.Select(ct, pe.Select(0.5 * ct, 0.0, ties), wins)


def _binary(op, a, b, ct):
    """(cotangent of a, cotangent of b) of a `op` b."""
    if op == B.ADD:
        return ct, ct
    if op == B.SUBTRACT:
        return ct, -ct
    if op == B.MULTIPLY:
        return ct * b, ct * a
    if op == B.DIVIDE:
        return ct / b, -ct * a / (b * b)
    if op == B.POWER:
        return ct * b * pe.Pow(a, b - 1.0), ct * pe.Pow(a, b) * pe.Log(a)
    if op == B.MAXIMUM:
        return _tie_split(ct, pe.Gt(a, b), pe.Equal(a, b)), _tie_split(ct, pe.Gt(b, a), pe.Equal(a, b))
    if op == B.MINIMUM:
        return _tie_split(ct, pe.Lt(a, b), pe.Equal(a, b)), _tie_split(ct, pe.Lt(b, a), pe.Equal(a, b))
    if op == B.REMAINDER:
        return ct, -ct * pe.Trunc(a / b)
    if op == B.ATAN2:
        return ct * b / (a * a + b * b), -ct * a / (a * a + b * b)
    raise BuildError(f"pd.grad: the element-wise operation {op.name} has no gradient")


def _type_of(node, dtypes):
    """The element type of a sub-expression (None for a constant that adapts to its operand):
    that of its first typed leaf, left to right, where a relational or bitwise operation
    is BOOL. Walked on a list, not by recursion: trees nest up to popops' depth limit."""
    pending = [node]
    while pending:
        node = pending.pop()
        if isinstance(node, pe.PlaceHolder):
            return dtypes[node.getIndex() - 1]
        if isinstance(node, pe.Cast):
            return node.getRHSType()
        if isinstance(node, pe.UnaryOp):
            if node.getOpType() in _UNARY_DISCRETE:
                return poplar.BOOL
            pending.append(node.getArg())
        elif isinstance(node, pe.BinaryOp):
            if node.getOpType() in _BINARY_DISCRETE:
                return poplar.BOOL
            pending += [node.getRHS(), node.getLHS()]
        elif isinstance(node, pe.TernaryOp):  # its condition (SELECT) or bounds (CLAMP) do not type it
            pending += [node.getArg1(), node.getArg0()]
    return None


class _Backprop:
    """Walks an expression from its root, pushing cotangent expressions to the leaves."""

    def __init__(self, dtypes):
        self.dtypes = dtypes
        self.cotangents = [[] for _ in dtypes]

    def push(self, node, ct):
        """Walks the tree under `node` depth first, left to right, on a list of pending
        (node, cotangent) pairs rather than by recursion: trees nest up to popops' limit."""
        self.pending = [(node, ct)]
        while self.pending:
            self._step(*self.pending.pop())

    def _send(self, *pairs):
        """Queues (node, cotangent) pairs to be walked in the order given."""
        self.pending += reversed(pairs)

    def _step(self, node, ct):
        if isinstance(node, pe.PlaceHolder):
            self.cotangents[node.getIndex() - 1].append(ct)
        elif isinstance(node, pe.Cast):
            inner = node.getLHS()
            source_type = _type_of(inner, self.dtypes)
            if node.getRHSType().isFloatingPoint() and (source_type is None or source_type.isFloatingPoint()):
                self._send((inner, ct if source_type in (None, node.getRHSType()) else pe.Cast(ct, source_type)))
        elif isinstance(node, pe.UnaryOp):
            self._unary(node.getOpType(), node.getArg(), ct)
        elif isinstance(node, pe.BinaryOp):
            op, a, b = node.getOpType(), node.getLHS(), node.getRHS()
            if op not in _BINARY_DISCRETE:
                ct_a, ct_b = _binary(op, a, b, ct)
                self._send((a, ct_a), (b, ct_b))
        elif isinstance(node, pe.TernaryOp):
            self._ternary(node.getOpType(), node.getArg0(), node.getArg1(), node.getArg2(), ct)
        # constants have no gradient

    def _unary(self, op, x, ct):
        if op in _UNARY_FLAT or op in _UNARY_DISCRETE:
            return
        if op == U.NEGATE:
            self._send((x, -ct))
        elif op == U.RELU:
            self._send((x, pe.Select(ct, 0.0, pe.Gt(x, 0.0))))
        elif op in _UNARY:
            self._send((x, ct * _UNARY[op](x)))
        else:
            raise BuildError(f"pd.grad: the element-wise function {op.name} has no gradient")

    def _ternary(self, op, a, b, c, ct):
        if op == T.SELECT:  # c ? a : b
            self._send((a, pe.Select(ct, 0.0, c)), (b, pe.Select(0.0, ct, c)))
        else:  # CLAMP(a, lower b, upper c)
            self._send((a, pe.Select(ct, 0.0, pe.And(pe.Gte(a, b), pe.Lte(a, c)))),
                       (b, pe.Select(ct, 0.0, pe.Lt(a, b))), (c, pe.Select(ct, 0.0, pe.Gt(a, c))))


def input_cotangents(expression, dtypes) -> list:
    """For each placeholder _i of `expression` (of the given input dtypes), the expression
    of its gradient over the inputs and G = _{n+1}, or None when none flows to it."""
    walk = _Backprop(list(dtypes))
    walk.push(expression, pe.PlaceHolder(len(dtypes) + 1))
    result = []
    for parts in walk.cotangents:
        total = parts[0] if parts else None
        for p in parts[1:]:
            total = total + p
        result.append(total)
    return result


def placeholders(node) -> set:
    """The placeholder indices an expression uses."""
    found, pending = set(), [node]
    while pending:
        node = pending.pop()
        if isinstance(node, pe.PlaceHolder):
            found.add(node.getIndex())
        pending += _children(node)
    return found


def renumbered(node, new_index: dict):
    """The expression with placeholder _i replaced by _{new_index[i]}, rebuilt bottom up
    on lists rather than by recursion."""
    pending, built = [(node, False)], []  # (node, its children built yet?); finished subtrees
    while pending:
        node, children_built = pending.pop()
        children = _children(node)
        if children and not children_built:
            pending.append((node, True))
            pending += [(c, False) for c in reversed(children)]
            continue
        operands = built[len(built) - len(children):]
        del built[len(built) - len(children):]
        if isinstance(node, pe.PlaceHolder):
            built.append(pe.PlaceHolder(new_index[node.getIndex()]))
        elif isinstance(node, pe.Cast):
            built.append(pe.Cast(operands[0], node.getRHSType()))
        elif isinstance(node, pe.UnaryOp):
            built.append(pe.UnaryOp(node.getOpType(), *operands))
        elif isinstance(node, pe.BinaryOp):
            built.append(pe.BinaryOp(node.getOpType(), *operands))
        elif isinstance(node, pe.TernaryOp):
            built.append(pe.TernaryOp(node.getOpType(), *operands))
        else:
            built.append(node)
    return built[0]


def _children(node) -> list:
    if isinstance(node, pe.Cast):
        return [node.getLHS()]
    if isinstance(node, pe.UnaryOp):
        return [node.getArg()]
    if isinstance(node, pe.BinaryOp):
        return [node.getLHS(), node.getRHS()]
    if isinstance(node, pe.TernaryOp):
        return [node.getArg0(), node.getArg1(), node.getArg2()]
    return []
