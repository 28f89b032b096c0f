"""Several IPUs in one replica: `with pd.ipu(k):` places work on IPU k, pd.ipu_copy moves
a tensor to another IPU.

Inside `with pd.ipu(k):` a pd.Graph builds through its virtual graph of IPU k's tiles
(poplar's Graph.createVirtualGraph): variables, constants and the outputs of ops are
mapped there, and tile numbers (mapping=, cycle counters, vertices) count from IPU k's
first tile. An op may read tensors on another IPU (the exchange then crosses the
IPU-Links), but a model split over IPUs keeps each stage's tensors on its IPU and moves
activations with pd.ipu_copy, which the profile counts as IPU-Link traffic.

    with pd.ipu(0):
        h = pd.relu(x @ w1)
    h1 = pd.ipu_copy(h, 1)
    with pd.ipu(1):
        y = h1 @ w2
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterator, Optional

from popdsl._core import poputil
from popdsl.autodiff.registry import gradient
from popdsl.control import record
from popdsl.debug import LARGEST_INT, expect_int
from popdsl.ops import _run_library, copy
from popdsl.tensor import Tensor, expect_tensor

if TYPE_CHECKING:  # names for annotations only: popdsl's modules import each other
    from popdsl.control import Block

# The public names (the API reference's).
__all__ = ["ipu", "ipu_copy"]

_placement: list = []  # the IPU of each open `with pd.ipu(k):`, innermost last


@contextlib.contextmanager
def ipu(index: int) -> Iterator[int]:
    """Places the tensors and ops made inside the block on IPU `index` of the graph's replica."""
    _placement.append(expect_int(index, "pd.ipu: the IPU index", 0, LARGEST_INT))
    try:
        yield index
    finally:
        _placement.pop()


def current_ipu() -> Optional[int]:
    """The IPU of the innermost open `with pd.ipu(k):`, or None outside them."""
    return _placement[-1] if _placement else None


def ipu_copy(t: Tensor, ipu: int, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """A copy of t on IPU `ipu`: each element goes to the same tile of that IPU as it has on
    its own (poputil::copyToIpu)."""
    expect_tensor(t, "pd.ipu_copy: t")
    graph = t.graph
    ipus = graph.top.getTarget().getNumIPUs()
    index = expect_int(ipu, f"pd.ipu_copy: ipu (the graph has {ipus} IPU(s) per replica)", 0, ipus - 1)
    raw = _run_library(lambda seq, dc: poputil.copyToIpu(graph.top, t.raw, seq, index, dc), name, prog,
                       "pd.ipu_copy")
    result = graph.track(Tensor(raw, graph))
    record("pd.ipu_copy", [t], [result], prog)
    return result


@gradient("pd.ipu_copy")
def _ipu_copy_gradient(op, grads):
    """The gradient goes back to where the input lives: a copy into a tensor mapped like it."""
    source = op.inputs[0]
    back = source.graph.track(Tensor(source.graph.top.clone(source.raw, "ipu_copy/grad"), source.graph))
    return [copy(grads[0], back)]
