"""Reading a view through a Session: a tensor with no host read of its own (a slice, a
transpose, pd.concat's or pd.argmax's result) is assembled region by region of the graph's
variables from the tensors the session does read whole, using only SDK API
(``Tensor::getVarRegions``)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from popdsl._core import poplar
from popdsl.dtypes import numpy_dtype
from popdsl.session_io import SessionError
from popdsl.tensor import Tensor


class VariableLayout:
    """Where the tensors a session reads whole hold each variable's elements."""

    def __init__(self, readable: list, handles_by_id: dict):
        self._readable = readable
        self._handles_by_id = handles_by_id
        self._pieces = None  # variable -> [(begin, end, handle, offset)], found on first use

    def pieces(self, variable: poplar.Tensor) -> list:
        """[(begin, end, handle, offset)]: the runs of `variable`'s elements that each readable
        tensor holds, from `offset` in that tensor's values."""
        if self._pieces is None:
            self._pieces = {}
            for t in self._readable:
                offset = 0
                for region in t.raw.getVarRegions():
                    begin, end = region.interval.begin(), region.interval.end()
                    self._pieces.setdefault(region.var, []).append(
                        (begin, end, self._handles_by_id[id(t)], offset))
                    offset += end - begin
        return self._pieces.get(variable, [])

    def read_view(self, t: Tensor, replicas: int, values_of: Callable, available: Callable,
                  check_attached: Callable) -> np.ndarray:
        """t's values as [replicas, t.size]: `values_of(handle)` gives a readable tensor's values
        (from the device or a host copy), `available(handle)` whether it can, and
        `check_attached()` raises when only the device could."""
        out = np.empty((replicas, t.size), numpy_dtype(t.dtype))
        values = {}  # handle -> that tensor's values, flat per replica
        at = 0
        for region in t.raw.getVarRegions():
            element, end = region.interval.begin(), region.interval.end()
            while element < end:
                handle, stop, offset = self._holder(t, region.var, element, available, check_attached)
                if handle not in values:
                    values[handle] = values_of(handle).reshape(replicas, -1)
                n = min(end, stop) - element
                out[:, at:at + n] = values[handle][:, offset:offset + n]
                at, element = at + n, element + n
        return out

    def _holder(self, t: Tensor, variable: poplar.Tensor, element: int, available: Callable, check_attached: Callable) -> tuple:
        """(handle, end, offset): an available tensor holding `element` of `variable`, where in
        its values that element is, and where in the variable its run of elements ends."""
        pieces = self.pieces(variable)
        for begin, end, handle, offset in pieces:
            if begin <= element < end and available(handle):
                return handle, end, offset + element - begin
        if any(begin <= element < end for begin, end, _, _ in pieces):
            check_attached()  # held only by tensors that are not weights
        raise SessionError(f"Session.read: {t!r} holds elements of a tensor made after the session was compiled, "
                           "which the session has no host read for; make the session after building the graph")
