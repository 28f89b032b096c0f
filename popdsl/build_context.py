"""The build state of the thread that is building: its open blocks, its IPU placement and its
name scopes. Each thread has its own, so threads building different graphs at once (as
pd.distributed.run_in_threads' instances do) never put ops into each other's blocks; JAX's
core.py keeps its trace state per thread the same way."""
import threading

__all__ = ["context"]


class BuildContext(threading.local):
    """One thread's build state (`threading.local`: each thread sees its own lists)."""

    def __init__(self) -> None:
        self.blocks: list = []     # the open pd.Sequence/Repeat/If/... blocks, innermost last
        self.placement: list = []  # the IPU of each open `with pd.ipu(k):`, innermost last
        self.scopes: list = []     # the open pd.name_scope names, outermost first
        self.backward_of = None    # while pd.grad builds an op's backward: "grad of <its line>"


context = BuildContext()
