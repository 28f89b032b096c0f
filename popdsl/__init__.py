"""popdsl: Poplar graph programming from Python, on an embedded IPU-model emulator."""
from popdsl._core import poplar, poplin, popnn, popops, poputil, program

__all__ = ["poplar", "program", "popops", "poplin", "popnn", "poputil", "backend"]


def backend() -> str:
    """Which Poplar implementation the bindings were built against: "emulator" or "sdk"."""
    from popdsl import _core

    return _core.backend
