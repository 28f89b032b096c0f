"""Several IPUs in one replica: ``with pd.ipu(k):`` places work on IPU k (and
popdsl.ipu_links' pd.ipu_copy moves a tensor to another IPU).

Inside ``with pd.ipu(k):`` a pd.Graph builds through its virtual graph of IPU k's tiles
(poplar's Graph.createVirtualGraph): variables, constants and the outputs of ops are
mapped there, and tile numbers (mapping=, cycle counters, vertices) count from IPU k's
first tile, and pd.grad builds each op's gradient on the op's IPU. An op may read
tensors on another IPU (the exchange then crosses the
IPU-Links), but a model split over IPUs keeps each stage's tensors on its IPU and moves
activations with pd.ipu_copy, which the profile counts as IPU-Link traffic::

    with pd.ipu(0):
        h = pd.relu(x @ w1)
    h1 = pd.ipu_copy(h, 1)
    with pd.ipu(1):
        y = h1 @ w2
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

from popdsl.build_context import context
from popdsl.debug import LARGEST_INT, expect_int

# The public names (the API reference's).
__all__ = ["ipu"]



@contextlib.contextmanager
def ipu(index: int) -> Iterator[int]:
    """Places the tensors and ops made inside the block on IPU `index` of the graph's replica."""
    context.placement.append(expect_int(index, "pd.ipu: the IPU index", 0, LARGEST_INT))
    try:
        yield index
    finally:
        context.placement.pop()


def current_ipu() -> Optional[int]:
    """The IPU of the innermost open ``with pd.ipu(k):``, or None outside them."""
    return context.placement[-1] if context.placement else None


def on_ipu(index: Optional[int]):
    """``with on_ipu(i):`` is ``with pd.ipu(i):``, or places nothing when i is None."""
    return contextlib.nullcontext() if index is None else ipu(index)


def home_ipu(t) -> Optional[int]:
    """The IPU (of the replica) holding every mapped element of pd.Tensor t, or None when the
    replica has one IPU or t spreads over several: what per-tensor work such as an optimizer
    update of t places itself on, so that it runs beside t and not across the IPU-Links."""
    graph = t.graph.top
    target = graph.getTarget()
    if target.getNumIPUs() < 2:
        return None
    per_ipu = target.getTilesPerIPU()
    ipus = {tile // per_ipu for tile, intervals in enumerate(graph.getTileMapping(t.raw, False)) if intervals}
    return ipus.pop() if len(ipus) == 1 else None
