"""The table of gradient rules: op kind -> vector-Jacobian product.

A rule is `rule(op, grads) -> one gradient (or None) per input`, where `op` is an
OpContext and `grads` has one output gradient (or None) per output. Rules are
written with the Pythonic layer, so their ops land in the open block like any
other; a gradient of another shape than its input (a broadcast operand) is summed
down to the input's shape by pd.grad.
"""

from __future__ import annotations

from typing import Callable, Optional

from popdsl.debug import BuildError
from popdsl.recording import Record
from popdsl.tensor import Tensor

# The public names (the API reference's); the module's other functions serve the package.
__all__ = ["gradient", "OpContext"]

RULES = {}
NO_GRADIENT = {}  # op kind -> why pd.grad refuses it


def gradient(*kinds) -> Callable[[Callable], Callable]:
    """Decorator registering a rule for the given op kinds."""
    def register(rule):
        for kind in kinds:
            RULES[kind] = rule
        return rule
    return register


def no_gradient(why, *kinds):
    """Declares that the given op kinds have no gradient, and why: pd.grad refuses them,
    saying so, where they are on the path to the differentiated tensor."""
    for kind in kinds:
        NO_GRADIENT[kind] = why


class OpContext:
    """What a rule sees of its record. `input(i)` and `output(k)` give tensors whose
    values the backward reads; they refuse one that an op wrote after the record,
    since the backward runs later and would read the new value."""

    def __init__(self, record, needs, writes_after):
        self.record, self.needs, self._writes_after = record, needs, writes_after
        self.attrs = record.attrs
        self.inputs = record.inputs  # for shapes and dtypes: reading values goes through input(i)

    def input(self, i: int) -> Tensor:
        """The op's input `i` as the rule may read it: a BuildError if an op since overwrote it."""
        t = self.record.inputs[i]
        # An in-place op overwrites its own inputs' storage; other ops only their outputs'.
        return self._intact(t, f"input {i}", first=self.record.index + (0 if self.record.in_place else 1))

    def output(self, k: int = 0) -> Tensor:
        """The op's output `k` as the rule may read it: a BuildError if an op since overwrote it."""
        t = self.record.outputs[k]
        return self._intact(t, "output" if len(self.record.outputs) == 1 else f"output {k}",
                            first=self.record.index + 1)

    def writes_after(self, t: Tensor, first: int) -> Optional[Record]:
        """The first op from record `first` on that overwrites t's storage, or None."""
        return self._writes_after(t, first)

    def _intact(self, t, what, first):
        writer = self._writes_after(t, first)
        return t if writer is None else self._overwritten(t, what, writer)

    def _overwritten(self, t, what, writer):
        """What a rule reads in place of t, whose value `writer` overwrote: nothing here."""
        by_itself = writer is self.record
        raise BuildError(
            f"pd.grad: {self.record} needs its {what} {t!r} for the gradient, but "
            + ("it overwrites that tensor itself" if by_itself else f"{writer} overwrites it before pd.grad")
            + "; compute into a new tensor instead of in place (y = y * 2 rather than y *= 2)")


def rule_for(record):
    rule = RULES.get(record.kind)
    if rule is None:
        why = NO_GRADIENT.get(record.kind, "it has no gradient rule")
        raise BuildError(f"pd.grad: no gradient for {record} on the path to the differentiated tensor: {why}")
    return rule
