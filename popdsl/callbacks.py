"""pd.host_callback: a program step that calls a Python function on the host.

Built on Poplar's host functions (Graph::addHostFunction, program::Call(HostFunction,
inputs, outputs), Engine::connectHostFunction): the inputs' current values reach the
function as numpy arrays and its results are written to the output tensors.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from popdsl._core import program as _program
from popdsl.control import emit, record, Block
from popdsl.debug import BuildError, debug_name, expect_callable, expect_str, source_location
from popdsl.dtypes import as_type, numpy_dtype
from popdsl.tensor import expect_tensor, Tensor


class HostCallbackError(ValueError):
    """A host callback returned results that do not fit its output tensors."""


class HostCallback:
    """A Python function with the shapes and dtypes of its inputs and outputs."""

    def __init__(self, fn, name, inputs, outputs, where):
        self.fn, self.name, self.where = fn, name, where
        self.inputs = [(tuple(shape), np.dtype(dtype)) for shape, dtype in inputs]
        self.outputs = [(tuple(shape), np.dtype(dtype)) for shape, dtype in outputs]

    def to_json(self) -> dict:
        """The callback's name, source line and argument shapes and dtypes, as saved in an executable."""
        def args(specs):
            return [[list(shape), dtype.str] for shape, dtype in specs]
        return {"name": self.name, "where": self.where, "inputs": args(self.inputs), "outputs": args(self.outputs)}

    @classmethod
    def from_json(cls, saved: dict, fn: Callable) -> "HostCallback":
        """The callback `to_json` saved, calling `fn` (Session.load's `callbacks=`)."""
        return cls(fn, saved["name"], saved["inputs"], saved["outputs"], saved["where"])

    def _results(self, returned):
        """The function's return value as one array per output."""
        if not self.outputs:
            return []
        if len(self.outputs) == 1:
            return [returned]
        if not isinstance(returned, (tuple, list)) or len(returned) != len(self.outputs):
            raise HostCallbackError(f"host callback '{self.name}' ({self.where}) must return "
                                    f"{len(self.outputs)} arrays (a tuple), not {type(returned).__name__}")
        return list(returned)

    def __call__(self, inputs, outputs):
        """What the Engine calls, with flat numpy arrays: copies of the inputs, outputs to fill."""
        arrays = [a.reshape(shape) for a, (shape, _) in zip(inputs, self.inputs)]
        for i, (value, (shape, dtype)) in enumerate(zip(self._results(self.fn(*arrays)), self.outputs)):
            result = np.asarray(value)
            if result.shape != shape:
                raise HostCallbackError(f"host callback '{self.name}' ({self.where}): output {i} has shape "
                                        f"{result.shape}, but its tensor has shape {shape}")
            if not np.can_cast(result.dtype, dtype, "same_kind"):
                raise HostCallbackError(f"host callback '{self.name}' ({self.where}): output {i} has dtype "
                                        f"{result.dtype}, which does not convert to the tensor's {dtype}")
            outputs[i][...] = result.reshape(-1)


def host_callback(fn: Callable[..., Any], *tensors, outputs: Union[Tensor, Sequence[Tensor]] = (),
                  name: Optional[str] = None, prog: Optional[Block] = None) -> None:
    """Adds a step to the current program that calls `fn(*values)` with the tensors' current
    values (numpy arrays) and writes what it returns into `outputs`: one array for one
    output tensor, a tuple for several, nothing for none. Exceptions raised by fn come out
    of Session.run()."""
    expect_callable(fn, "pd.host_callback: fn")
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    if not tensors and not outputs:
        raise BuildError("host_callback needs at least one input or output tensor (to know the graph)")
    graph = expect_tensor((list(tensors) + outputs)[0], "pd.host_callback: tensors[0]").graph
    for i, t in enumerate(tensors):
        expect_tensor(t, f"pd.host_callback: tensors[{i}]", graph, "the first tensor")
    for i, t in enumerate(outputs):
        expect_tensor(t, f"pd.host_callback: outputs[{i}]", graph, "the first tensor")
    if name is not None:
        expect_str(name, "pd.host_callback: name")
    handle = name or f"{getattr(fn, '__name__', 'callback')}#{len(graph.host_callbacks)}"
    if handle in graph.host_callbacks:
        raise BuildError(f"a host callback named '{handle}' already exists")

    def specs(ts):
        return [(t.shape, numpy_dtype(t.dtype)) for t in ts]

    def arguments(ts):
        return [(as_type(t.dtype), t.size) for t in ts]

    host_function = graph.raw.addHostFunction(handle, arguments(tensors), arguments(outputs))
    graph.host_callbacks[handle] = HostCallback(fn, handle, specs(tensors), specs(outputs), source_location())
    emit(_program.Call(host_function, [t.raw for t in tensors], [t.raw for t in outputs], debug_name(name)), prog)
    record("pd.host_callback", tensors, outputs, prog, written=outputs)
