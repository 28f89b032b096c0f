"""Selecting elements: pd.argmax/argmin and pd.topk (popnn, along any axis) and pd.gather
(popops multiSlice; the embedding lookup), whose gradient is a scatter-add (multiUpdateAdd)."""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from popdsl._core import popnn, popops
from popdsl.control import record, Block
from popdsl.debug import BuildError, expect_int
from popdsl.dtypes import bool_, is_floating, uint32
from popdsl.ops import _run_library, cast, zero
from popdsl.tensor import Tensor, expect_tensor


# The public names (the API reference's); the module's other functions serve the package.
__all__ = ["argmax", "argmin", "topk", "gather"]


def _rows(t: Tensor, axis: int, what: str):
    """t with `axis` moved last and the other axes flattened: [rows, t.shape[axis]] (a view),
    the axis (non-negative) and the other axes' sizes."""
    expect_tensor(t, f"{what}: t")
    if t.ndim == 0:
        raise BuildError(f"{what}: t must have an axis to select along, got {t!r}")
    axis = expect_int(axis, f"{what}: axis", -t.ndim, t.ndim - 1) % t.ndim
    others = [d for i, d in enumerate(t.shape) if i != axis]
    moved = t.transpose([i for i in range(t.ndim) if i != axis] + [axis])
    return moved.reshape(int(np.prod(others)), t.shape[axis]), axis, others


def _arg_extreme(function, kind):
    def arg(t: Tensor, axis: int = -1, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
        rows, _, others = _rows(t, axis, f"pd.{kind}")
        raw = _run_library(lambda seq, dc: function(t.graph.raw, rows.raw, seq, dc), name, prog, f"pd.{kind}")
        indices = t.graph.track(Tensor(raw, t.graph))
        record(f"pd.{kind}", [rows], [indices], prog)  # no gradient: its output is integral
        return indices.reshape(others)
    arg.__name__ = arg.__qualname__ = kind
    arg.__doc__ = (f"The index (uint32) of the first {kind[3:]}imum along axis (popnn {function.__name__}); "
                   "the axis is dropped.")
    return arg


argmax = _arg_extreme(popnn.argMax, "argmax")
argmin = _arg_extreme(popnn.argMin, "argmin")


def topk(t: Tensor, k: int, axis: int = -1, sort: bool = True, name: Optional[str] = None,
         prog: Optional[Block] = None) -> Tuple[Tensor, Tensor]:
    """The k largest elements along axis and their indices (uint32), as (values, indices)
    with that axis of size k (popnn topK): in descending order when `sort`, else in the
    order they stand in t; ties go to the lower index. values is differentiable."""
    rows, axis, others = _rows(t, axis, "pd.topk")
    k = expect_int(k, "pd.topk: k", 1, t.shape[axis])
    raw_values, raw_indices = _run_library(lambda seq, dc: popnn.topK(t.graph.raw, rows.raw, k, bool(sort), seq, dc),
                                           name, prog)
    values, indices = (t.graph.track(Tensor(r, t.graph)) for r in (raw_values, raw_indices))
    record("pd.topk", [rows], [values, indices], prog, k=k)
    back = list(range(axis)) + [t.ndim - 1] + list(range(axis, t.ndim - 1))  # the last axis back to `axis`
    return tuple(r.reshape(others + [k]).transpose(back) for r in (values, indices))


def gather(t: Tensor, indices: Tensor, axis: int = 0, name: Optional[str] = None,
           prog: Optional[Block] = None) -> Tensor:
    """numpy's take(t, indices, axis): the slices of t at `indices` (an integer tensor of any
    shape) along axis, shaped t.shape[:axis] + indices.shape + t.shape[axis + 1:]
    (popops multiSlice). With axis 0 it is an embedding lookup, t the table. An index
    outside [0, t.shape[axis]) gives zeros and, in the gradient, is left out."""
    expect_tensor(t, "pd.gather: t")
    expect_tensor(indices, "pd.gather: indices", t.graph, "t")
    if is_floating(indices.dtype) or indices.dtype == bool_:
        raise BuildError(f"pd.gather: indices must be an integer tensor, got {indices!r}")
    if t.ndim == 0:
        raise BuildError(f"pd.gather: t must have an axis to gather along, got {t!r}")
    axis = expect_int(axis, "pd.gather: axis", -t.ndim, t.ndim - 1) % t.ndim
    front = t.transpose([axis] + [i for i in range(t.ndim) if i != axis])  # gathered along dim 0
    offsets = indices if indices.dtype == uint32 else cast(indices, uint32, prog=prog)
    offsets = offsets.reshape(indices.size, 1)
    raw = _run_library(lambda seq, dc: popops.multiSlice(t.graph.raw, front.raw, offsets.raw, [0], [1], seq,
                                                         popops.SlicePlan(), {}, dc), name, prog, "pd.gather")
    sliced = t.graph.track(Tensor(raw, t.graph))  # [indices.size, 1, the other dimensions]
    record("pd.gather", [front, offsets], [sliced], prog)
    rest = list(front.shape[1:])
    gathered = sliced.reshape(list(indices.shape) + rest)
    # front's other dimensions were t's without axis: put the indices' dimensions at axis.
    lead = indices.ndim
    return gathered.transpose([lead + i for i in range(axis)] + list(range(lead))
                              + [lead + i for i in range(axis, t.ndim - 1)])


def scatter_add(shape, updates: Tensor, offsets: Tensor, prog=None) -> Tensor:
    """A new tensor of `shape`: zeros plus, for each row i of offsets ([n, 1] uint32),
    updates[i] added at offsets[i] along dim 0 (popops multiUpdateAdd; repeated offsets
    accumulate, an offset out of range is left out). updates is [n, 1, shape[1:]]."""
    graph, dtype = updates.graph, updates.dtype
    total = zero(graph.variable(dtype, shape, name="pd.grad/scatter_add"), prog=prog)
    one = graph.constant(1.0, dtype=dtype, name="pd.grad/one")
    _run_library(lambda seq, dc: popops.multiUpdateAdd(graph.raw, total.raw, updates.raw, offsets.raw, one.raw,
                                                       [0], [1], seq, popops.SlicePlan(), {}, dc), None, prog)
    record("pd.scatter_add", [total, updates, offsets], [total], prog, written=[total])
    return total
