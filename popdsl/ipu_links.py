"""Copies between the IPUs of a replica: pd.ipu_copy (see popdsl.placement).

The profile counts the bytes of these copies as IPU-Link traffic (Step.ipu_link_bytes,
Profile.ipu_link_bytes).
"""

from __future__ import annotations

from typing import Optional

from popdsl._core import poputil
from popdsl.control import record, Block
from popdsl.debug import expect_int
from popdsl.ops import _run_library
from popdsl.tensor import Tensor, expect_tensor

# The public names (the API reference's).
__all__ = ["ipu_copy"]


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
