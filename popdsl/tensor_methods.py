"""Every pd.Tensor method that emits ops, in one table, installed on the class in one place.

popdsl.tensor defines what a tensor is (its facts, views and guards), which needs no ops.
The operators and methods below are ops of the modules above it (popdsl.ops, reductions,
linalg, indexing), which import popdsl.tensor and so cannot be named in its class body;
JAX's array_methods.py gives jax.Array its methods the same way. popdsl/__init__.py imports
this module before anything else builds, so every pd.Tensor has them.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from popdsl._core.popops import expr as pe
from popdsl.control import Block
from popdsl.debug import BuildError
from popdsl.dtypes import DType
from popdsl.indexing import _AtIndexer
from popdsl.linalg import matmul
from popdsl.ops import Operand, abs, apply, cast, copy, fill, neg
from popdsl.reductions import mean, reduce_max, reduce_min, reduce_prod, reduce_sum, var
from popdsl.tensor import Axes, Tensor

# operator name -> popops op: `t op u`, `u op t` (reflected) and `t op= u` (in place)
_ARITHMETIC = {
    "add": pe.BinaryOpType.ADD, "sub": pe.BinaryOpType.SUBTRACT, "mul": pe.BinaryOpType.MULTIPLY,
    "truediv": pe.BinaryOpType.DIVIDE, "mod": pe.BinaryOpType.REMAINDER, "pow": pe.BinaryOpType.POWER,
    "and": pe.BinaryOpType.BITWISE_AND, "or": pe.BinaryOpType.BITWISE_OR, "xor": pe.BinaryOpType.BITWISE_XOR,
}
# comparison name -> popops op: `t op u` only (Python reflects them itself)
_COMPARISONS = {
    "eq": pe.BinaryOpType.EQUAL, "ne": pe.BinaryOpType.NOT_EQUAL, "lt": pe.BinaryOpType.LESS_THAN,
    "le": pe.BinaryOpType.LESS_THAN_EQUAL, "gt": pe.BinaryOpType.GREATER_THAN,
    "ge": pe.BinaryOpType.GREATER_THAN_EQUAL,
}


def _binary_operator(op, reflected=False):
    def method(self, other):
        if not isinstance(other, (Tensor, bool, int, float, np.ndarray, np.generic)):
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        _check_same_dtype(a, b)
        return apply(lambda x, y: pe.BinaryOp(op, x, y), a, b, what=("left operand", "right operand"))
    return method


def _check_same_dtype(a, b) -> None:
    """popdsl does not promote dtypes (Poplar's maps need one): name both tensors and the fix."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype != b.dtype:
        raise BuildError(f"the operands differ in dtype: left {a!r}, right {b!r}; popdsl does not promote "
                         f"dtypes: convert one with pd.cast(t, dtype) or t.astype(dtype)")


def _in_place_operator(op):
    def method(self, other):
        return apply(lambda x, y: pe.BinaryOp(op, x, y), self, other,
                     what=("in-place operator: target", "in-place operator: other"), in_place=True)
    return method


def _invert(self: Tensor) -> Tensor:
    """~t: the bitwise NOT of an integer tensor (logical NOT of a bool one)."""
    return apply(lambda a: pe.UnaryOp(pe.UnaryOpType.BITWISE_NOT, a), self, what=("operand",))


def _set_item(self: Tensor, key, value) -> None:
    """t[key] = value copies into the view; after `t[key] op= v` it is already written."""
    view = self[key]
    if isinstance(value, Tensor) and value.raw == view.raw:
        return
    if isinstance(value, Tensor):
        copy(value.broadcast(view.shape) if value.shape != view.shape else value, view)
    else:
        fill(view, value)


def _assign(self: Tensor, value: Operand) -> Tensor:
    """Copies `value` (a tensor, broadcast to t's shape, or a number) into t; returns t.
    Inside a loop body `acc.assign(acc + 1)` updates acc for the next iteration, where
    `acc = acc + 1` would only bind the name to a new tensor."""
    self[...] = value
    return self


def _astype(self: Tensor, dtype: DType, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """pd.cast(t, dtype) as a method: a new tensor with t's values converted to dtype."""
    return cast(self, dtype, name, prog)


def _matmul(self: Tensor, other: Tensor) -> Tensor:
    """a @ b: pd.matmul(a, b)."""
    return matmul(self, other)


def _reduction(reduction):
    """`reduction` as a Tensor method: t.sum(axis) is pd.reduce_sum(t, axis)."""
    def method(self: Tensor, axis: Axes = None, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
        return reduction(self, axis, name, prog)
    method.__doc__ = f"pd.{reduction.__name__}(t, axis, name, prog): {reduction.__doc__}"
    return method


def _at(self: Tensor) -> _AtIndexer:
    """Dynamic indexing along the first axis: t.at[i].get(), t.at[i].set(v) (popops dynamicSlice/Update)."""
    return _AtIndexer(self)


# method name -> what pd.Tensor's method does (the operators of _ARITHMETIC and
# _COMPARISONS join them below)
_METHODS = {
    "__neg__": lambda self: neg(self),
    "__abs__": lambda self: abs(self),
    "__invert__": _invert,
    "__matmul__": _matmul,
    "__setitem__": _set_item,
    "assign": _assign,
    "astype": _astype,
    "sum": _reduction(reduce_sum),
    "max": _reduction(reduce_max),
    "min": _reduction(reduce_min),
    "mean": _reduction(mean),
    "var": _reduction(var),
    "prod": _reduction(reduce_prod),
    "at": property(_at),
}
for _name, _op in _ARITHMETIC.items():
    _METHODS.update({f"__{_name}__": _binary_operator(_op), f"__r{_name}__": _binary_operator(_op, reflected=True),
                     f"__i{_name}__": _in_place_operator(_op)})
_METHODS.update({f"__{_name}__": _binary_operator(_op) for _name, _op in _COMPARISONS.items()})

for _name, _method in _METHODS.items():
    setattr(Tensor, _name, _method)
