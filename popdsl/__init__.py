"""popdsl: Poplar graph programming from Python, on an embedded IPU-model emulator.

`popdsl.poplar`, `popdsl.program`, `popdsl.popops`, ... are the raw bindings with
Poplar's C++ names. The names exported here are the Pythonic layer on top.
"""
import importlib.machinery as _machinery
import os as _os
import sys as _sys
import types as _types


def _installed_package_dir(source_dir: str):
    """Another popdsl package on sys.path that has the compiled extension, if any."""
    elsewhere = [p for p in _sys.path if _os.path.realpath(_os.path.join(p or ".", "popdsl")) != source_dir]
    spec = _machinery.PathFinder.find_spec("popdsl", elsewhere)
    if spec is None or not spec.submodule_search_locations:
        return None
    package_dir = list(spec.submodule_search_locations)[0]
    found = any(f.startswith("_core.") for f in _os.listdir(package_dir))
    return package_dir if found else None


_extension = _machinery.PathFinder.find_spec("_core", __path__)
if _extension is None or _extension.origin is None:
    # A source checkout without the built extension came first on sys.path (`python -m
    # popdsl` from the repository root after `pip install .`): take every submodule from
    # the installed package instead. (Without the extension, the stubs' folder _core/
    # would be found as a namespace package, which has no origin.)
    _installed = _installed_package_dir(_os.path.realpath(__path__[0]))
    if _installed is None:
        raise ImportError(f"popdsl's compiled extension (popdsl._core) is not in {__path__[0]} and no installed "
                          "popdsl has one: install with `pip install .`, or build it as docs/developing.rst "
                          "says")
    __path__[:] = [_installed]

from popdsl import _core  # noqa: E402
from popdsl._core import gcl, poplar, poplin, popnn, popops, poprand, poputil, program


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


from popdsl import tensor_methods  # noqa: E402,F401  (pd.Tensor's operators and op methods; first)
from popdsl import random  # noqa: E402,F401  (pd.random.get_hw_seeds, set_hw_seeds)
from popdsl import distributed  # noqa: E402,F401  (pd.distributed: instances, host collectives)
from popdsl.callbacks import HostCallbackError, host_callback  # noqa: E402
from popdsl.debug import BuildError, name_scope  # noqa: E402
from popdsl.device import ipu_model  # noqa: E402
from popdsl.dtypes import (as_type, bool_, float16, float32, int8, int16, int32, int64,  # noqa: E402
                           uint8, uint16, uint32, uint64)
from popdsl.graph import Graph  # noqa: E402
from popdsl.ops import (abs, cast, ceil, concat, copy, cos, exp, fill, floor, log,  # noqa: E402
                        logical_and, logical_not, logical_or, map, map_, max, min, neg, pow, relu,
                        nonlinearity, nonlinearity_, nonlinearity_grad, print_tensor, rsqrt, sigmoid, sin, sqrt,
                        square, tanh, where, zero)
from popdsl.activations import gelu, softmax  # noqa: E402
from popdsl.control import Else, If, Repeat, Sequence, Switch, While  # noqa: E402
from popdsl.loop_pitfall import LoopCarryWarning  # noqa: E402
from popdsl.loops import fori_loop  # noqa: E402
from popdsl.autodiff.custom import custom_grad  # noqa: E402
from popdsl.autodiff.grad import grad  # noqa: E402
from popdsl.autodiff.pipelining import Stage, pipeline, pipeline_schedule  # noqa: E402
from popdsl.instrument import cycle_count, cycle_stamp  # noqa: E402
from popdsl.linalg import matmul, matmul_acc  # noqa: E402
from popdsl.reductions import (mean, reduce_all, reduce_any, reduce_logsumexp, reduce_max,  # noqa: E402
                               reduce_min, reduce_prod, reduce_sum, reduce_sum_squares, var)
from popdsl.selection import argmax, argmin, gather, topk  # noqa: E402
from popdsl.ipu_links import ipu_copy  # noqa: E402
from popdsl.placement import ipu  # noqa: E402
from popdsl.profile import Profile  # noqa: E402
from popdsl.remote import RemoteBuffer  # noqa: E402
from popdsl.replication import (all_gather, all_reduce, broadcast, cross_replica_copy, reduce_scatter,  # noqa: E402
                                replica_index)
from popdsl.session import Session, SessionError  # noqa: E402
from popdsl.tensor import Tensor  # noqa: E402
from popdsl.vertices import compute_set  # noqa: E402

from popdsl import optim  # noqa: E402,F401  (pd.optim.SGD, Adam, AdamW)
from popdsl import nn  # noqa: E402  (builders on the layer above: pd.nn.lstm, pd.nn.flash_attention_...; imported last)

# The public names, as `from popdsl import *` gives them: the raw bindings' modules, the
# Pythonic layer's names by the module that defines them, and its subpackages.
__all__ = [
    # the raw bindings (Poplar's and poplibs' C++ names) and the backend they were built for
    "gcl", "poplar", "poplin", "popnn", "popops", "poprand", "poputil", "program", "backend",
    # devices, graphs, tensors and element types
    "ipu_model", "Graph", "Tensor", "as_type", "bool_", "float16", "float32", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    # element-wise ops (ops.py)
    "abs", "cast", "ceil", "concat", "copy", "cos", "exp", "fill", "floor", "log", "logical_and", "logical_not",
    "logical_or", "map", "map_", "max", "min", "neg", "pow", "relu", "nonlinearity", "nonlinearity_",
    "nonlinearity_grad", "print_tensor", "rsqrt", "sigmoid", "sin", "sqrt", "square", "tanh", "where", "zero",
    # activations by their common names (activations.py)
    "gelu", "softmax",
    # products, reductions and selections
    "matmul", "matmul_acc", "mean", "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_max", "reduce_min",
    "reduce_prod", "reduce_sum", "reduce_sum_squares", "var", "argmax", "argmin", "gather", "topk",
    # control flow, custom vertices, host callbacks, debug names
    "Sequence", "Repeat", "If", "Else", "While", "Switch", "fori_loop", "LoopCarryWarning", "compute_set",
    "host_callback", "HostCallbackError", "BuildError", "name_scope",
    # gradients
    "grad", "custom_grad",
    # several IPUs, replicas and remote memory
    "ipu", "ipu_copy", "Stage", "pipeline", "pipeline_schedule", "all_gather", "all_reduce", "broadcast", "cross_replica_copy", "reduce_scatter",
    "replica_index", "RemoteBuffer",
    # sessions and profiles
    "Session", "SessionError", "Profile", "cycle_count", "cycle_stamp",
    # subpackages: random tensors, optimizers, model builders
    "random", "optim", "nn", "distributed",
]
