"""pd.fori_loop: a loop with an explicit carry, in JAX's style (``jax.lax.fori_loop``), over
pd.Repeat.

A pd.Repeat body carries state by writing it in place (``acc += x``); fori_loop takes the
functional form instead: the body gets the iteration's index and the carry and returns the
next carry, which fori_loop writes into loop-carried tensors for it::

    def body(i, carry):
        total, row = carry
        return total + x.at[i].get(), row * 2

    total, row = pd.fori_loop(n, body, (zeros, ones))
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence, Union

from popdsl.control import Repeat
from popdsl.debug import BuildError, describe, expect_callable, expect_int
from popdsl.dtypes import int32
from popdsl.ops import copy, zero
from popdsl.tensor import Tensor, expect_tensor

# The public name (the API reference's).
__all__ = ["fori_loop"]

Carry = Union[Tensor, Sequence[Tensor]]


def fori_loop(n: int, body: Callable[[Tensor, Carry], Carry], carry: Carry, name: Optional[str] = None) -> Carry:
    """Runs ``carry = body(i, carry)`` for i = 0, 1, ..., n - 1 on the device (one
    pd.Repeat(n)) and returns the final carry.

    `carry` is a pd.Tensor or a tuple or list of them; `i` is an int32 scalar tensor
    (``x.at[i]`` indexes with it). The body is traced once, as a pd.Repeat body is, and
    returns the next carry: tensors of the same structure, shapes and dtypes (it may
    return a carry tensor itself, unchanged, or the carry's tensors in another order).
    The result is new tensors holding the last iteration's carry, in the carry's
    structure; the tensors passed in keep their values. pd.grad differentiates through
    the loop as through pd.Repeat."""
    count = expect_int(n, "pd.fori_loop: n")
    expect_callable(body, "pd.fori_loop: body")
    initial = _leaves(carry, "pd.fori_loop: carry")
    graph = initial[0].graph
    for k, t in enumerate(initial):
        expect_tensor(t, f"pd.fori_loop: carry[{k}]", graph, "carry[0]")
    state = [graph.clone(t) for t in initial]  # the loop-carried tensors
    for t, s in zip(initial, state):
        copy(t, s)
    index = graph.variable(int32, (), mapping=0)
    zero(index)
    with Repeat(count, name):
        returned = body(index, _structured(state, carry))
        _assign_carry(_leaves(returned, "pd.fori_loop: the body's result"), state)
        index += 1
    return _structured(state, carry)


def _leaves(carry: Carry, what: str) -> list:
    """The carry's tensors: [carry] for a tensor, the items of a tuple or list."""
    leaves = [carry] if isinstance(carry, Tensor) else list(carry) if isinstance(carry, (tuple, list)) else None
    if not leaves or not all(isinstance(t, Tensor) for t in leaves):
        raise BuildError(f"{what} must be a pd.Tensor or a non-empty tuple or list of them, got {describe(carry)}")
    return leaves


def _structured(leaves: list, like: Carry) -> Carry:
    """`leaves` in the structure of `like` (a tensor, a tuple or a list)."""
    return leaves[0] if isinstance(like, Tensor) else tuple(leaves) if isinstance(like, tuple) else list(leaves)


def _assign_carry(returned: list, state: list) -> None:
    """Writes the body's result into the loop-carried tensors. A result that shares elements
    with the carry (a carry tensor in another place, or a view of one) is copied aside
    first, so that no write overwrites a value another write still reads."""
    if len(returned) != len(state):
        raise BuildError(f"pd.fori_loop: the body returned {len(returned)} tensor(s); the carry has {len(state)}")
    for k, (t, s) in enumerate(zip(returned, state)):
        expect_tensor(t, f"pd.fori_loop: the body's result[{k}]", s.graph, "the carry")
        if t.shape != s.shape or t.dtype != s.dtype:
            raise BuildError(f"pd.fori_loop: the body's result[{k}] {t!r} must have the carry's shape {s.shape} and "
                             f"dtype {s.dtype}")
    staged = [t if t is s or not any(t.raw.intersectsWith(c.raw) for c in state) else copy(t, s.graph.clone(t))
              for t, s in zip(returned, state)]
    for t, s in zip(staged, state):
        if t is not s:
            copy(t, s)
