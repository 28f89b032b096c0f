"""popdsl: Poplar graph programming from Python, on an embedded IPU-model emulator."""
import sys as _sys
import types as _types

from popdsl import _core
from popdsl._core import poplar, poplin, popnn, popops, poputil, program

__all__ = ["poplar", "program", "popops", "poplin", "popnn", "poputil", "backend"]


def _register_submodules(module: _types.ModuleType, name: str) -> None:
    # The raw bindings are extension submodules; registering them lets
    # `from popdsl.popops import expr` work like an ordinary package import.
    for attr, value in vars(module).items():
        if isinstance(value, _types.ModuleType) and not attr.startswith("_"):
            _sys.modules[f"{name}.{attr}"] = value
            _register_submodules(value, f"{name}.{attr}")


_register_submodules(_core, __name__)


def backend() -> str:
    """Which Poplar implementation the bindings were built against: "emulator" or "sdk"."""
    return _core.backend
