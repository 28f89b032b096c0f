"""Cycle counters: `with pd.cycle_count() as c:` and `pd.cycle_stamp()`.

The emulator's counters run in ESTIMATED cycles (the Engine's cost model,
docs/emulator.rst); on Poplar's hardware they are measured.
"""

from __future__ import annotations

from typing import Optional, Sequence

from popdsl._core import poplar
from popdsl._core import program as _program
from popdsl.control import _Nested, emit, Block
from popdsl.debug import BuildError, debug_name, describe
from popdsl.graph import Graph
from popdsl.tensor import Tensor

_SYNC_TYPES = {"internal": poplar.SyncType.INTERNAL, "external": poplar.SyncType.EXTERNAL,
               "global": poplar.SyncType.GLOBAL}


class Counter:
    """A 64-bit cycle counter on the device, as Poplar's [lo32, hi32] UNSIGNED_INT tensor.

    `session.read(counter)` gives the value as an int once the program has run;
    `counter.tensor` is the raw two-element tensor.
    """

    def __init__(self, graph: Graph, tile: int, sync: str, name):
        if not isinstance(sync, str) or sync not in _SYNC_TYPES:
            raise BuildError(f"sync must be one of {sorted(_SYNC_TYPES)}, not {sync!r}")
        if graph is not None and not isinstance(graph, Graph):
            raise BuildError(f"graph must be a pd.Graph or None (the latest pd.Graph), got {describe(graph)}")
        self.graph = graph or Graph.latest()
        if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile < self.graph.target.getNumTiles():
            raise BuildError(f"tile {tile!r} does not exist: the target has "
                             f"{self.graph.target.getNumTiles()} tiles")
        self.tile, self.sync, self.name = tile, _SYNC_TYPES[sync], debug_name(name)
        self.tensor = None  # made when the counted program is built

    def _track(self, raw) -> None:
        self.tensor = self.graph.track(Tensor(raw, self.graph))

    def value(self, lo_hi: Sequence[int]) -> int:
        """The 64-bit cycle count from the counter tensor's [lo32, hi32] words."""
        lo, hi = (int(v) for v in lo_hi)
        return lo | hi << 32

    def __repr__(self):
        return f"<pd.{type(self).__name__} on tile {self.tile} '{self.name}'>"


class cycle_count(_Nested, Counter):  # noqa: N801  (used like a function: `with pd.cycle_count() as c:`)
    """`with pd.cycle_count() as c:` counts the cycles of the block's ops (poplar::cycleCount):
    after a run, `session.read(c)` is the estimated cycles of the steps the block ran, plus
    the sync that ends the window. graph= defaults to the pd.Graph this thread created last."""

    def __init__(self, graph: Graph = None, tile: int = 0, sync: str = "internal", name=None):
        Counter.__init__(self, graph, tile, sync, name)
        _Nested.__init__(self)
        self.sequence = None

    def __exit__(self, exc_type, *exc):
        if exc_type is None:  # the counter tensor must exist before a Session is made
            self.sequence = self.body.build()
            self._track(poplar.cycleCount(self.graph.raw, self.sequence, self.tile, self.sync, self.name))
        return super().__exit__(exc_type, *exc)

    def build(self) -> _program.Sequence:
        """The poplar Sequence that poplar.cycleCount wrapped around the block."""
        return self.sequence


def cycle_stamp(graph: Graph = None, tile: int = 0, sync: str = "internal", name: Optional[str] = None,
                prog: Optional[Block] = None) -> Counter:
    """Adds a sync and a snapshot of the cycle counter (poplar::cycleStamp) to the open
    block; `session.read(stamp)` is the counter's value then. Differences of two stamps
    time what ran between them."""
    stamp = Counter(graph, tile, sync, name)
    sequence = _program.Sequence()
    stamp._track(poplar.cycleStamp(stamp.graph.raw, sequence, stamp.tile, stamp.sync, stamp.name))
    emit(sequence, prog)
    return stamp
