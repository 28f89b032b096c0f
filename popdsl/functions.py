"""Graph.function: a body built once as a Poplar function and run by program::Call.

A function without arguments reads and writes the graph's tensors directly. One with
tensor arguments works like popxl's subgraph calls: its body is built once, on parameter
tensors shaped like the first call's arguments, and returns a tensor or a tuple of
tensors; every call copies its arguments into the parameters, runs the one Poplar
function, and copies the results into new tensors that it returns.

With remote_code=True the function's code lives in remote memory (a Poplar function
buffer) and each call first loads it onto the tiles (program::Copy from the buffer): tile
memory is not held by code that runs rarely, at the price of the load, which the profile
shows as a "Copy(function code)" step.
"""

from __future__ import annotations

import inspect
from typing import Callable, Optional, Protocol, Tuple, Union

from popdsl._core import poplar as _poplar
from popdsl._core import program as _program
from popdsl.control import Block, current_block, emit, record_control
from popdsl.debug import BuildError, debug_name, describe, expect_callable
from popdsl.ops import copy
from popdsl.tensor import Tensor

# The public names (the API reference's).
__all__ = ["Function"]


class FunctionGraph(Protocol):
    """What a Function uses of the pd.Graph that makes it (Graph.function). graph.py builds on
    this module, so the graph is described here rather than imported."""

    raw: _poplar.Graph

    def clone(self, t: Tensor, name: Optional[str] = None) -> Tensor:
        """A new variable shaped, typed and mapped like `t`."""


class Function:
    """The callable Graph.function returns (see the module docstring)."""

    def __init__(self, graph: FunctionGraph, fn: Callable, name: Optional[str] = None, remote_code: bool = False) -> None:
        self.graph, self.fn = graph, expect_callable(fn, "Graph.function: fn")
        self.name = name or getattr(fn, "__qualname__", "function")
        self.remote_code = remote_code
        self._function = None
        self._code_buffer = None  # the function buffer holding its code, with remote_code
        self._body = None
        self._parameters = ()  # the body's inputs, shaped like the first call's arguments
        self._results = ()  # the body's outputs
        self._returns_tuple = False

    def __call__(self, *args: Tensor, prog: Optional[Block] = None) -> Union[None, Tensor, Tuple[Tensor, ...]]:
        """Runs the function: copies `args` into its parameters, calls it and returns copies
        of its results (None, a pd.Tensor or a tuple, as the body returned)."""
        self._check_arguments(args)
        if self._function is None:
            self._build(args)
        for arg, parameter in zip(args, self._parameters):
            copy(arg, parameter, name=f"{self.name}/argument", prog=prog)
        if self._code_buffer is not None:
            emit(_program.Copy(self._code_buffer, self._function, debug_name(f"{self.name}/load code")), prog)
        emit(_program.Call(self._function, debug_name(self.name)), prog)
        record_control("pd.Function", [self._body], current_block(prog))
        results = tuple(copy(result, self.graph.clone(result, name=f"{self.name}/result"),
                             name=f"{self.name}/result", prog=prog) for result in self._results)
        if self._returns_tuple:
            return results
        return results[0] if results else None

    def _check_arguments(self, args):
        what = f"Graph.function {self.name!r}"
        for k, arg in enumerate(args):
            if not isinstance(arg, Tensor):
                raise BuildError(f"{what}: argument {k} must be a pd.Tensor, got {describe(arg)}")
            if arg.graph is not self.graph:
                raise BuildError(f"{what}: argument {k} {arg!r} belongs to another pd.Graph than the function")
        if self._function is None:
            try:
                inspect.signature(self.fn).bind(*args)
            except TypeError as e:
                raise BuildError(f"{what}: called with {len(args)} tensor argument(s), which the function "
                                 f"{_signature(self.fn)} does not take ({e})") from None
            return
        if len(args) != len(self._parameters):
            raise BuildError(f"{what}: called with {len(args)} tensor argument(s); it was built for "
                             f"{len(self._parameters)} on its first call")
        for k, (arg, parameter) in enumerate(zip(args, self._parameters)):
            if arg.shape != parameter.shape or arg.dtype != parameter.dtype:
                raise BuildError(f"{what}: argument {k} {arg!r} has shape {arg.shape} and dtype {arg.dtype}, but the "
                                 f"function was built for shape {parameter.shape} and dtype {parameter.dtype} on its "
                                 "first call; every call passes tensors of the same shapes and dtypes")

    def _build(self, args):
        self._parameters = tuple(self.graph.clone(arg, name=f"{self.name}/parameter{k}") for k, arg in enumerate(args))
        self._body = Block(self.name)
        with self._body:
            returned = self.fn(*self._parameters)
        self._returns_tuple = isinstance(returned, tuple)
        results = returned if self._returns_tuple else () if returned is None else (returned,)
        if not all(isinstance(r, Tensor) and r.graph is self.graph for r in results):
            raise BuildError(f"Graph.function {self.name!r}: the function must return None, a pd.Tensor or a tuple "
                             f"of pd.Tensors of its graph, got {describe(returned)}")
        self._results = results
        self._function = self.graph.raw.addFunction(self._body.build())
        if self.remote_code:
            self._code_buffer = self.graph.raw.addFunctionBuffer(self._function,
                                                                 _poplar.FunctionBufferMappingType.REMOTE)


def _signature(fn) -> str:
    try:
        return f"{getattr(fn, '__name__', 'function')}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return repr(fn)
