"""The build state of the thread that is building, in one place: `context`.

Every module that builds reads and changes build state here and nowhere else: the open
blocks (popdsl.control), the IPU placement (popdsl.placement), the name scopes and the
places that told one line's ops apart (popdsl.debug) and the current graph (popdsl.graph).
Each thread has its own, so threads building different graphs at once (as
pd.distributed.run_in_threads' instances do) never put ops into each other's blocks nor
onto each other's graphs; JAX's core.py keeps its trace state per thread the same way.

State that is not the builder's belongs to the object it describes: which session holds a
device is the device's (`poplar.Device.session`), a graph's host handles are the graph's.
"""
import threading
import weakref
from typing import Optional

__all__ = ["context"]


class BuildContext(threading.local):
    """One thread's build state (`threading.local`: each thread sees its own)."""

    def __init__(self) -> None:
        self.blocks: list = []     # the open pd.Sequence/Repeat/If/... blocks, innermost last
        self.placement: list = []  # the IPU of each open `with pd.ipu(k):`, innermost last
        self.scopes: list = []     # the open pd.name_scope names, outermost first
        self.backward_of = None    # while pd.grad builds an op's backward: "grad of <its line>"
        # debug name -> the places in the code that built ops of that name (popdsl.debug)
        self.places_by_name: dict = {}
        self._graph: Optional[weakref.ref] = None

    @property
    def graph(self):
        """The pd.Graph this thread created last (the default of pd.cycle_count's graph=),
        or None; held weakly, so a graph nothing else uses still goes away."""
        return self._graph() if self._graph is not None else None

    @graph.setter
    def graph(self, graph) -> None:
        self._graph = weakref.ref(graph)


context = BuildContext()
