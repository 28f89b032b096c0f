"""Reductions through popops::reduce: pd.reduce_sum(t, axis) or t.sum(axis).

The reduced dimensions are dropped, as poplibs does; axis=None reduces everything.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from popdsl._core import popops
from popdsl.control import record, Block
from popdsl.debug import BuildError
from popdsl.ops import _run_library, map as _map, square
from popdsl.tensor import Tensor, _check_axes, expect_tensor, Axes


def _axes(t: Tensor, axis):
    if axis is None:
        return list(range(t.ndim))
    given = axis if isinstance(axis, (tuple, list)) else [axis]
    given = _check_axes(t, given)
    axes = sorted({a % t.ndim for a in given}) if t.ndim else []
    if not axes and t.ndim:
        raise BuildError(f"no axis to reduce over in {t!r}")
    return axes


def _reducer(function_name, operation, doc):
    def reduce(t: Tensor, axis: Axes = None, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
        expect_tensor(t, f"pd.{function_name}: t")
        dims = _axes(t, axis)
        raw = _run_library(lambda seq, dc: popops.reduce(t.graph.raw, t.raw, dims,
                                                         popops.ReduceParams(operation), seq, dc), name, prog,
                           f"pd.{function_name}")
        out = t.graph.track(Tensor(raw, t.graph))
        record(f"pd.{function_name}", [t], [out], prog, axes=dims)
        return out
    reduce.__name__ = reduce.__qualname__ = function_name
    reduce.__doc__ = doc
    return reduce


reduce_sum = _reducer("reduce_sum", popops.Operation.ADD, "Sum over axis (all axes when None).")
reduce_max = _reducer("reduce_max", popops.Operation.MAX,
                      "Maximum over axis; NaN where a NaN is reduced (as numpy.max).")
reduce_min = _reducer("reduce_min", popops.Operation.MIN,
                      "Minimum over axis; NaN where a NaN is reduced (as numpy.min).")
reduce_prod = _reducer("reduce_prod", popops.Operation.MUL, "Product over axis.")
reduce_sum_squares = _reducer("reduce_sum_squares", popops.Operation.SQUARE_ADD, "Sum of squares over axis.")
reduce_logsumexp = _reducer("reduce_logsumexp", popops.Operation.LOG_ADD, "log(sum(exp(t))) over axis.")
reduce_all = _reducer("reduce_all", popops.Operation.LOGICAL_AND, "True where every element is (bool tensors).")
reduce_any = _reducer("reduce_any", popops.Operation.LOGICAL_OR, "True where any element is (bool tensors).")



def mean(t: Tensor, axis: Axes = None, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """The mean over axis (all axes when None): the sum times 1 / the count reduced."""
    total = reduce_sum(t, axis, name, prog)
    count = int(np.prod([t.shape[a] for a in _axes(t, axis)]))
    return _map(lambda s: s * (1.0 / max(count, 1)), total, prog=prog)


def var(t: Tensor, axis: Axes = None, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """The variance over axis (all axes when None) about the mean, as numpy.var (ddof=0)."""
    axes = _axes(expect_tensor(t, "pd.var: t"), axis)
    centre = mean(t, axis, prog=prog).reshape([1 if i in axes else d for i, d in enumerate(t.shape)])
    return mean(_map(lambda x, m: square(x - m), t, centre, prog=prog), axis, name, prog)
