"""Dynamic indexing: t.at[i].get() / t.at[i].set(v) with device-side indices.

Indices are one-element integer tensors (cast to UNSIGNED_INT when needed). Each
tensor index selects one position along its dimension; `:` keeps a dimension, so
t.at[i] indexes dimension 0 and t.at[:, j] dimension 1.

Out-of-range indices follow poplibs' rules, which never fault: an index is read as
unsigned 32-bit (a negative int32 index i is 2**32 + i, so -1 is not the last
element), and an index at or past its dimension's size selects nothing: get() then
leaves its result as it was (zero after the engine loads, else the value of its last
run) and set() writes nothing.
"""
from popdsl._core import poplar, popops
from popdsl.control import record
from popdsl.debug import BuildError
from popdsl.dtypes import is_floating, uint32
from popdsl.ops import _run_library, cast
from popdsl.tensor import Tensor


class _At:
    def __init__(self, tensor: Tensor, key):
        self.tensor = tensor
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > tensor.ndim:
            raise BuildError(f"too many indices ({len(key)}) for {tensor!r}")
        self.dims, indices = [], []
        for dim, k in enumerate(key):
            if isinstance(k, Tensor):
                if k.size != 1 or is_floating(k.dtype):
                    raise BuildError(f"an index must be a one-element integer tensor, not {k!r}")
                self.dims.append(dim)
                indices.append(k)
            elif not (isinstance(k, slice) and k == slice(None)):
                raise BuildError("t.at[...] takes index tensors and ':' only; use t[...] for static slices")
        if not self.dims:
            raise BuildError("t.at[...] needs at least one index tensor")
        self.indices = indices

    def _offsets(self, prog):
        """The indices as uint32 tensors (the recorded inputs) and their concatenation."""
        as_unsigned = [i if i.dtype == uint32 else cast(i, uint32, prog=prog) for i in self.indices]
        return as_unsigned, poplar.concat([i.raw.reshape([1]) for i in as_unsigned])

    def get(self, name=None, prog=None) -> Tensor:
        """The selected elements (a new tensor; the indexed dimensions are dropped). An
        out-of-range index leaves the result unchanged (see the module docstring)."""
        t = self.tensor
        indices, offsets = self._offsets(prog)
        raw = _run_library(lambda seq, dc: popops.dynamicSlice(t.graph.raw, t.raw, offsets, self.dims,
                                                               [1] * len(self.dims), seq, dc), name, prog,
                           "Tensor.at.get")
        out = t.graph.track(Tensor(raw.squeeze(self.dims), t.graph))
        record("Tensor.at.get", [t, *indices], [out], prog, dims=self.dims)
        return out

    def set(self, value: Tensor, name=None, prog=None) -> Tensor:
        """Writes value (shaped like get()'s result) at the selected position; returns the
        tensor. An out-of-range index writes nothing (see the module docstring)."""
        t = self.tensor
        expected = tuple(d for i, d in enumerate(t.shape) if i not in self.dims)
        if not isinstance(value, Tensor) or value.shape != expected or value.dtype != t.dtype:
            raise BuildError(f"t.at[...].set: value must be a {t.dtype} tensor of shape {expected}, got {value!r}")
        indices, offsets = self._offsets(prog)
        update = value.raw
        for d in self.dims:
            update = update.expand([d])
        _run_library(lambda seq, dc: popops.dynamicUpdate(t.graph.raw, t.raw, update, offsets, self.dims,
                                                          [1] * len(self.dims), seq, dc), name, prog,
                     "Tensor.at.set")
        record("Tensor.at.set", [t, value, *indices], [t], prog, written=[t], dims=self.dims)
        return t


class _AtIndexer:
    def __init__(self, tensor):
        self.tensor = tensor

    def __getitem__(self, key) -> _At:
        return _At(self.tensor, key)

