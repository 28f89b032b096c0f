"""pd.grad: reverse-mode gradients of the ops recorded in the open block."""

from __future__ import annotations

import warnings
from typing import List, Optional, Sequence, Union

from popdsl import ops
from popdsl.autodiff import control_rules, custom, distributed_rules, rules  # noqa: F401  (fill the table of rules)
from popdsl.autodiff.backprop import propagate
from popdsl.autodiff.registry import OpContext
from popdsl.control import current_block, Block
from popdsl.debug import BuildError, describe
from popdsl.dtypes import is_floating
from popdsl.tensor import Tensor, expect_tensor


def grad(y: Tensor, wrt: Union[Tensor, Sequence[Tensor]], grad_y: Tensor = None,
         prog: Optional[Block] = None) -> Union[Tensor, List[Optional[Tensor]]]:
    """Appends the gradient of `y` with respect to each tensor of `wrt` to the open block
    and returns the gradients in `wrt`'s order (a list; one tensor for one tensor given).

    `y` is a one-element float tensor, or any float tensor when `grad_y` (its output
    gradient, shaped like y) is given. pd.grad follows the ops recorded in the block it
    is called in: a gradient is with respect to the value a tensor holds when pd.grad
    is called, and tensors from outside the block are constants. A tensor of `wrt` that
    y does not depend on gets zeros (and a warning). Ops without a gradient rule, and
    ops whose backward needs a value an in-place op has since overwritten, raise a
    BuildError naming the op and the line that built it.
    """
    single = isinstance(wrt, Tensor)
    wrt = [wrt] if single else list(wrt) if isinstance(wrt, (list, tuple)) else None
    if not wrt:
        raise BuildError(f"pd.grad: wrt must be a pd.Tensor or a non-empty list of them, got {describe(wrt)}")
    expect_tensor(y, "pd.grad: y")
    for i, w in enumerate(wrt):
        expect_tensor(w, f"pd.grad: wrt[{i}]", y.graph, "y")
        if not is_floating(w.dtype):
            raise BuildError(f"pd.grad: wrt[{i}] {w!r} is not a float tensor; integer and bool tensors have no "
                             "gradient")
    block = current_block(prog)
    with block:  # the backward's ops go into this block, like the forward's
        seed = _seed(y, grad_y)
        results = _backward(block.tape, y, seed, wrt)
    return results[0] if single else results


def _backward(tape, y, seed, wrt) -> list:
    y_source = tape.source(y)
    wrt_sources = [tape.source(w) for w in wrt]
    if not isinstance(y_source, tuple) and not any(y_source is s for s in wrt_sources):  # no == on tensors
        raise BuildError(f"pd.grad: y {y!r} was not computed by the ops of this block; pd.grad follows the ops of "
                         "the block it is called in, so build the forward there")
    end = len(tape.records)  # the backward's own ops come after: they overwrite nothing of the forward
    totals = propagate(tape, tape.records[:end], {y_source: seed}, wrt_sources,
                       lambda record, needs: OpContext(record, needs, lambda t, first: tape.writer(t, first, end)))
    results = []
    for w, total in zip(wrt, totals):
        if total is None:
            warnings.warn(f"pd.grad: {y!r} does not depend on {w!r} through the ops of this block "
                          "(its gradient is zero)", stacklevel=3)
            total = ops.zero(w.graph.variable(w.dtype, w.shape, name=f"pd.grad/zeros/{w.name}"))
        results.append(_fresh(total, seed))
    return results


def _seed(y, grad_y):
    if not is_floating(y.dtype):
        raise BuildError(f"pd.grad: y {y!r} is not a float tensor")
    if grad_y is None:
        if y.size != 1:
            raise BuildError(f"pd.grad: y {y!r} has {y.size} elements; differentiate a one-element tensor "
                             "(y.sum()), or pass grad_y= shaped like y")
        return y.graph.constant(1.0, dtype=y.dtype, name="pd.grad/seed").reshape(y.shape)
    expect_tensor(grad_y, "pd.grad: grad_y", y.graph, "y")
    if grad_y.shape != y.shape or grad_y.dtype != y.dtype:
        raise BuildError(f"pd.grad: grad_y {grad_y!r} must have y's shape {y.shape} and dtype {y.dtype}")
    return grad_y


def _fresh(g, seed):
    """g as a tensor of its own: the gradient may be the seed or a view of another (a
    broadcast), which the caller could not safely update in place."""
    if g is seed or g.view_of is not None or g.raw.containsAliases():
        return ops.cast(g, g.dtype)
    return g
