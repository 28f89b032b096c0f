"""Remote buffers: off-chip memory for tensors that do not stay on the tiles (weights of
stages not running now, optimiser state, activations of a long sequence).

``g.remote_buffer(dtype, shape, rows)`` makes one; ``buf.load(row)`` copies row ``row`` into a
tensor and ``buf.store(t, row)`` copies t there (``row``: an int, or a uint32/int32 tensor
chosen at run time; a 1-D tensor of k rows moves k rows as a ``[k, *shape]`` tensor). A
session reaches the rows from the host with ``Session.write_remote`` / ``read_remote``; in a
replicated graph each replica has its own rows.
"""

from __future__ import annotations

from typing import Optional, Protocol, Union

import numpy as np

from popdsl._core import poplar
from popdsl._core import program as _program
from popdsl.control import Block, emit, record
from popdsl.debug import BuildError, debug_name, describe, expect_int
from popdsl.dtypes import numpy_dtype
from popdsl.tensor import Tensor, expect_tensor

# The public names (the API reference's).
__all__ = ["RemoteBuffer"]

Row = Union[int, Tensor, None]


class BufferGraph(Protocol):
    """What a RemoteBuffer uses of the pd.Graph that makes it (Graph.remote_buffer). graph.py
    builds on this module, so the graph is described here rather than imported."""

    top: poplar.Graph

    def variable(self, dtype: poplar.Type, shape: tuple, name: Optional[str] = None) -> Tensor:
        """A new variable, mapped linearly."""

    def constant(self, value: np.ndarray, mapping: int = 0, name: Optional[str] = None) -> Tensor:
        """A new constant holding `value`, on tile `mapping`."""


class RemoteBuffer:
    """`rows` rows of `shape` elements of `dtype` off the chip (poplar::RemoteBuffer)."""

    def __init__(self, graph: BufferGraph, handle: str, dtype: poplar.Type, shape: tuple, rows: int):
        self.graph, self.handle, self.dtype, self.shape, self.rows = graph, handle, dtype, shape, rows
        self.raw = graph.top.addRemoteBuffer(handle, dtype, int(np.prod(shape)), rows)

    def load(self, row: Row = None, into: Optional[Tensor] = None, name: Optional[str] = None,
             prog: Optional[Block] = None) -> Tensor:
        """Copies row `row` (rows, for a 1-D tensor of them) into `into`, a new variable when None,
        and returns it. `row` may be left out when the buffer has one row."""
        offset, shape = self._offset(row, "load")
        if into is None:
            into = self.graph.variable(self.dtype, shape, name=name or f"{self.handle}.load")
        else:
            self._check(expect_tensor(into, f"remote buffer '{self.handle}' load: into", self.graph, "the buffer"),
                        shape, "load into")
        emit(_copy(self.raw, into.raw, offset, name), prog)
        record("remote load", [] if offset is None else [offset], [into], prog, written=[into])
        return into

    def store(self, t: Tensor, row: Row = None, name: Optional[str] = None, prog: Optional[Block] = None) -> None:
        """Copies t to row `row` (rows, for a 1-D tensor of them) of the buffer."""
        offset, shape = self._offset(row, "store")
        self._check(expect_tensor(t, f"remote buffer '{self.handle}' store: t", self.graph, "the buffer"), shape,
                    "store")
        emit(_copy(t.raw, self.raw, offset, name), prog)

    def _offset(self, row: Row, what: str):
        """The offset tensor (None for the only row) and the shape of what moves."""
        if row is None:
            if self.rows != 1:
                raise BuildError(f"remote buffer '{self.handle}' {what}: it has {self.rows} rows; say which (row=)")
            return None, self.shape
        if isinstance(row, Tensor):
            if row.dtype not in (poplar.UNSIGNED_INT, poplar.INT) or row.ndim > 1:
                raise BuildError(f"remote buffer '{self.handle}' {what}: row must be an int or a scalar or 1-D "
                                 f"uint32/int32 tensor, got {row!r}")
            return row, self.shape if row.ndim == 0 else (row.shape[0], *self.shape)
        index = expect_int(row, f"remote buffer '{self.handle}' {what}: row", 0, self.rows - 1)
        return self.graph.constant(np.uint32(index), mapping=0, name=f"{self.handle}.row{index}"), self.shape

    def _check(self, t: Tensor, shape: tuple, what: str):
        if t.dtype != self.dtype or t.size != int(np.prod(shape)):
            raise BuildError(f"remote buffer '{self.handle}' {what}: rows of {self.shape} {self.dtype} need a "
                             f"tensor of {shape} {self.dtype}, got {t!r}")

    def __repr__(self):
        return f"<pd.RemoteBuffer '{self.handle}' rows={self.rows} shape={self.shape} dtype={self.dtype}>"


def _copy(src, dst, offset: Optional[Tensor], name: Optional[str]) -> _program.Copy:
    """program.Copy between a tensor and a remote buffer: its only row, or the rows `offset` names."""
    rows = () if offset is None else (offset.raw,)
    return _program.Copy(src, dst, *rows, debug_name(name))


def write_rows(engine, buffer: RemoteBuffer, row: int, values, replica: Optional[int], replicas: int) -> None:
    """Session.write_remote: `values` (broadcast to the row's shape) into row `row` of one
    replica, or of every replica when `replica` is None."""
    index = _row(buffer, row, "write_remote")
    try:
        array = np.ascontiguousarray(np.broadcast_to(np.asarray(values, numpy_dtype(buffer.dtype)), buffer.shape))
    except (ValueError, TypeError):
        raise BuildError(f"Session.write_remote: values {describe(values)} do not fit a row of remote buffer "
                         f"'{buffer.handle}' ({buffer.shape} {buffer.dtype})") from None
    for r in _replicas(replica, replicas, "write_remote"):
        engine.copyToRemoteBuffer(array, buffer.handle, index, r, buffer.raw)


def read_rows(engine, buffer: RemoteBuffer, row: int, replica: Optional[int], replicas: int) -> np.ndarray:
    """Session.read_remote: row `row`, as [replicas, *shape] in a replicated graph unless
    `replica` picks one."""
    index = _row(buffer, row, "read_remote")
    rows = []
    for r in _replicas(replica, replicas, "read_remote"):
        rows.append(engine.copyFromRemoteBuffer(buffer.handle, np.empty(buffer.shape, numpy_dtype(buffer.dtype)),
                                                index, r, buffer.raw))
    return rows[0] if replica is not None or replicas == 1 else np.stack(rows)


def _row(buffer, row, what):
    if not isinstance(buffer, RemoteBuffer):
        raise TypeError(f"Session.{what}: buffer must be a pd.RemoteBuffer, got {describe(buffer)}")
    return expect_int(row, f"Session.{what}: row of remote buffer '{buffer.handle}'", 0, buffer.rows - 1)


def _replicas(replica, replicas, what):
    if replica is None:
        return range(replicas)
    return [expect_int(replica, f"Session.{what}: replica", 0, replicas - 1)]
