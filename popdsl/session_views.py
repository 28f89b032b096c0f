"""Reading and writing a view through a Session: a tensor with no host read or write of its
own (a slice, a transpose, pd.concat's or pd.argmax's result) is assembled region by region
of the graph's variables from the tensors the session does read whole, and written into
them, using only SDK API (``Tensor::getVarRegions``)."""

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
        for handle, at, offset, n in self._runs(t, available, check_attached, "read"):
            if handle not in values:
                values[handle] = values_of(handle).reshape(replicas, -1)
            out[:, at:at + n] = values[handle][:, offset:offset + n]
        return out

    def write_view(self, t: Tensor, values: np.ndarray, values_of: Callable) -> dict:
        """{handle: that whole tensor's values with t's `values` ([replicas, t.size]) written
        over the elements t shares with it}, for every tensor t's elements lie in;
        `values_of(handle)` gives a fresh array of a tensor's current values, changed here."""
        written = {}
        for handle, at, offset, n in self._runs(t, lambda handle: True, lambda: None, "write"):
            if handle not in written:
                written[handle] = values_of(handle).reshape(values.shape[0], -1)
            written[handle][:, offset:offset + n] = values[:, at:at + n]
        return written

    def _runs(self, t: Tensor, available: Callable, check_attached: Callable, verb: str):
        """(handle, at, offset, n) for each run of n elements of t that lie together in one
        available whole tensor: from `at` in t's values and from `offset` in that tensor's."""
        at = 0
        for region in t.raw.getVarRegions():
            element, end = region.interval.begin(), region.interval.end()
            while element < end:
                handle, stop, offset = self._holder(t, region.var, element, available, check_attached, verb)
                n = min(end, stop) - element
                yield handle, at, offset, n
                at, element = at + n, element + n

    def _holder(self, t: Tensor, variable: poplar.Tensor, element: int, available: Callable,
                check_attached: Callable, verb: str) -> tuple:
        """(handle, end, offset): an available tensor holding `element` of `variable`, where in
        its values that element is, and where in the variable its run of elements ends."""
        pieces = self.pieces(variable)
        for begin, end, handle, offset in pieces:
            if begin <= element < end and available(handle):
                return handle, end, offset + element - begin
        if any(begin <= element < end for begin, end, _, _ in pieces):
            check_attached()  # held only by tensors that are not weights
        raise SessionError(f"Session.{verb}: {t!r} holds elements of a tensor made after the session was compiled, "
                           f"which the session has no host {verb} for; make the session after building the graph")
