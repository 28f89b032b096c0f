"""Matrix products through poplin: `a @ b`, pd.matmul, pd.matmul_acc (C += k * A @ B)."""

from __future__ import annotations

from typing import Optional

import numpy as np

from popdsl._core import poplin
from popdsl.control import record, Block
from popdsl.debug import BuildError, describe, expect_options
from popdsl.ops import _run_library
from popdsl.tensor import Tensor, expect_tensor


def _check(a: Tensor, b: Tensor, what: str):
    expect_tensor(b, f"{what}: b", expect_tensor(a, f"{what}: a").graph, "a")
    if a.ndim != b.ndim or a.ndim not in (2, 3):
        raise BuildError(f"{what}: a and b must be two 2-D tensors or two 3-D (grouped) tensors, got {a!r} and {b!r}")
    if a.shape[-1] != b.shape[-2] or (a.ndim == 3 and a.shape[0] != b.shape[0]):
        raise BuildError(f"{what}: matmul shapes do not agree: {a.shape} @ {b.shape} (the last dimension of a "
                         "must be the next to last of b, and groups must match)")
    return a.graph


def _is_plain(a, b) -> bool:
    """Two matrices, or two stacks of as many matrices: what poplin multiplies as they are."""
    return a.ndim == b.ndim and (a.ndim == 2 or (a.ndim == 3 and a.shape[0] == b.shape[0]))


def matmul(a: Tensor, b: Tensor, name: Optional[str] = None, prog: Optional[Block] = None,
           options: Optional[dict] = None, out: Tensor = None) -> Tensor:
    """a @ b by numpy's rules: 2-D operands are matrices (poplin matMul); 3-D ones multiply
    group by group (poplin matMulGrouped); a 1-D operand is a vector (a row on the left, a
    column on the right, its dimension dropped from the result); more dimensions are stacks
    of matrices, broadcast against each other (views, no copies) and multiplied as groups.
    With `out` (2-D or grouped operands only), the product is written there (poplin
    matMul*WithOutput) and `out` is returned: the caller chooses its layout, e.g. a
    transposed view, which the emulator's BLAS call uses in place."""
    expect_tensor(b, "pd.matmul: b", expect_tensor(a, "pd.matmul: a").graph, "a")
    if not _is_plain(a, b):
        if out is not None:
            raise BuildError(f"pd.matmul: out= needs two 2-D tensors or two 3-D tensors of as many groups, "
                             f"got {a!r} and {b!r}")
        return _broadcast_matmul(a, b, name, prog, options)
    graph = _check(a, b, "pd.matmul")
    options = expect_options(options, "pd.matmul")
    if out is None:
        if a.ndim == 2:
            build = lambda seq, dc: poplin.matMul(graph.raw, a.raw, b.raw, seq, dc, options)  # noqa: E731
        else:
            build = lambda seq, dc: poplin.matMulGrouped(graph.raw, a.raw, b.raw, seq, a.dtype, dc, options)  # noqa: E731
        out = graph.track(Tensor(_run_library(build, name, prog, "pd.matmul"), graph))
        record("pd.matmul", [a, b], [out], prog)
        return out
    shape = a.shape[:-1] + b.shape[-1:]
    if not isinstance(out, Tensor) or out.shape != shape or out.dtype != a.dtype:
        raise BuildError(f"matmul out= must be a {a.dtype} tensor of shape {shape}, not {out!r}")
    expect_tensor(out, "matmul out=", graph, "a")
    with_output = poplin.matMulWithOutput if a.ndim == 2 else poplin.matMulGroupedWithOutput
    _run_library(lambda seq, dc: with_output(graph.raw, a.raw, b.raw, out.raw, seq, dc, options), name, prog,
                 "pd.matmul")
    record("pd.matmul", [a, b], [out], prog, written=[out])
    return out


def _broadcast_matmul(a, b, name, prog, options):
    if a.ndim == 0 or b.ndim == 0:
        raise BuildError(f"pd.matmul: operands must have at least one dimension (use * for scalars), got {a!r} "
                         f"and {b!r}")
    rows = a.expand(0) if a.ndim == 1 else a
    cols = b.expand(1) if b.ndim == 1 else b
    try:
        batch = list(np.broadcast_shapes(rows.shape[:-2], cols.shape[:-2]))
    except ValueError:
        batch = None
    if batch is None or rows.shape[-1] != cols.shape[-2]:
        raise BuildError(f"pd.matmul: matmul shapes do not agree: {a.shape} @ {b.shape} (the last dimension of a "
                         "must be the next to last of b, and the leading dimensions must broadcast)")
    m, n = rows.shape[-2], cols.shape[-1]
    product = matmul(_stacked(rows, batch), _stacked(cols, batch), name, prog, options)
    drop = ([-1] if b.ndim == 1 else []) + ([-2] if a.ndim == 1 else [])
    result = product.reshape(batch + [m, n])
    return result.squeeze([len(batch) + 2 + d for d in drop]) if drop else result


def _stacked(t, batch):
    """t broadcast to batch + its matrix shape, as one 2-D matrix or a 3-D stack of them."""
    if not batch:
        return t
    full = batch + list(t.shape[-2:])
    stretched = t.broadcast(full) if list(t.shape) != full else t
    return stretched.reshape([int(np.prod(batch))] + full[-2:])


def matmul_acc(c: Tensor, a: Tensor, b: Tensor, scale: float = 1.0, name: Optional[str] = None,
               prog: Optional[Block] = None, options: Optional[dict] = None) -> Tensor:
    """c += scale * (a @ b), in place; scale is a number or a one-element tensor."""
    graph = _check(a, b, "pd.matmul_acc")
    expect_tensor(c, "pd.matmul_acc: c", graph, "a")
    options = expect_options(options, "pd.matmul_acc")
    if isinstance(scale, Tensor):
        expect_tensor(scale, "pd.matmul_acc: scale", graph, "a")
        if scale.size != 1:
            raise BuildError(f"pd.matmul_acc: scale must be a number or a one-element tensor, got {scale!r}")
        k = scale.raw
    elif isinstance(scale, (bool, int, float)):
        k = float(scale)
    else:
        raise BuildError(f"pd.matmul_acc: scale must be a number or a one-element tensor, got {describe(scale)}")
    acc = poplin.matMulAcc if a.ndim == 2 else poplin.matMulGroupedAcc
    _run_library(lambda seq, dc: acc(graph.raw, c.raw, k, a.raw, b.raw, seq, dc, options), name, prog,
                 "pd.matmul_acc")
    record("pd.matmul_acc", [c, a, b] + ([scale] if isinstance(scale, Tensor) else []), [c], prog, written=[c],
           scale=None if isinstance(scale, Tensor) else float(scale))
    return c

