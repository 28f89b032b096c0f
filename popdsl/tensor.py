"""pd.Tensor: a poplar.Tensor with numpy-style views and operators that emit ops."""

from __future__ import annotations

import operator
from typing import Any, Optional, Sequence, Union

import numpy as np

from popdsl._core import poplar, poputil
from popdsl.debug import LARGEST_INT, BuildError, describe, expect_int

# The public names (the API reference's); the module's other functions serve the package.
__all__ = ["Tensor", "Shape", "Axes"]

# A shape is one dimension or a sequence of them; axes are one axis, several, or None for all.
Shape = Union[int, Sequence[int]]
Axes = Union[int, Sequence[int], None]


def as_shape(shape: Shape, what: str, inferred: bool = False) -> list:
    """A shape (a tuple, a list or one dimension) as a list of ints; fractional, negative,
    huge, boolean or non-numeric dimensions raise a BuildError naming `what` (-1 is
    allowed when `inferred`: reshape works it out)."""
    dims = list(shape) if isinstance(shape, (tuple, list)) else [shape]
    smallest = -1 if inferred else 0
    for d in dims:
        try:
            valid = not isinstance(d, (bool, np.bool_)) and smallest <= operator.index(d) <= LARGEST_INT
        except TypeError:
            valid = False
        if not valid:
            raise BuildError(f"{what}: shape {tuple(dims)} has the dimension {d!r}; dimensions are "
                             f"{'-1 or ' if inferred else ''}non-negative integers up to 2**32 - 1")
    return [operator.index(d) for d in dims]


def expect_tensor(value: Any, what: str, graph: Optional[object] = None, than: str = "the other tensors") -> "Tensor":
    """`value` if it is a pd.Tensor (of `graph` when given: the graph of `than`, a pd.Graph
    compared by identity, so tensors sit below graphs); else a BuildError naming `what`."""
    if not isinstance(value, Tensor):
        hint = ": put host data on the device with g.constant(array)" if isinstance(value, np.ndarray) else ""
        raise BuildError(f"{what} must be a pd.Tensor, got {describe(value)}{hint}")
    if graph is not None and value.graph is not graph:
        raise BuildError(f"{what} {value!r} belongs to another pd.Graph than {than}")
    return value


def _check_axes(t: "Tensor", axes) -> list:
    """The axes as ints; one that is not an int, or past the rank, raises a BuildError
    (a % ndim would wrap it onto another axis; numpy raises AxisError)."""
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise BuildError(f"axis must be an int or a list of ints, got {describe(a)}")
    bad = [a for a in axes if not -t.ndim <= a < t.ndim]
    if bad:
        raise BuildError(f"axis {bad[0]} is out of range for {t!r} of rank {t.ndim}")
    return [int(a) for a in axes]


class Tensor:
    """A view of device variables. Views alias; operators add ops to the open block."""

    __array_ufunc__ = None  # numpy must not try to combine a device tensor element-wise
    view_of = None  # for a view: (kind, base tensors, attributes), which pd.grad follows

    def __init__(self, raw: poplar.Tensor, graph):
        self.raw = raw
        self.graph = graph

    # --- facts -----------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        """The dimensions, as a tuple."""
        return tuple(self.raw.shape())

    @property
    def dtype(self) -> poplar.Type:
        """The element type (a poplar.Type: pd.float32, pd.int32, ...)."""
        return self.raw.elementType()

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self.raw.rank()

    @property
    def size(self) -> int:
        """The number of elements."""
        return self.raw.numElements()

    @property
    def name(self) -> str:
        """The debug name of the variable the tensor views."""
        return self.raw.getVarStr().split("'")[1]

    def __repr__(self):
        return f"<pd.Tensor '{self.name}' shape={self.shape} dtype={self.dtype}>"

    def _view(self, raw, kind: str, **attrs) -> "Tensor":
        view = Tensor(raw, self.graph)
        view.view_of = (kind, (self,), attrs)
        return view

    # --- views (all alias this tensor) -------------------------------------------------
    def __getitem__(self, key) -> "Tensor":
        key = key if isinstance(key, tuple) else (key,)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (self.ndim - len(key) + 1) + key[i + 1:]
        if len(key) > self.ndim:
            raise BuildError(f"too many indices ({len(key)}) for {self!r}")
        raw, dim, drop = self.raw, 0, []
        for k in key:
            size = raw.dim(dim)
            if isinstance(k, (bool, np.bool_)):  # numpy reads x[True] as a new axis, Python as 1
                raise BuildError(f"boolean index {bool(k)} on {self!r}: use an int, a slice or .expand(axis)")
            if isinstance(k, (int, np.integer)):
                i = int(k) + size if k < 0 else int(k)
                if not 0 <= i < size:
                    raise BuildError(f"index {k} is out of range for dimension {dim} of size {size} of {self!r}")
                raw = raw.slice(i, i + 1, dim)
                drop.append(dim)
            elif isinstance(k, slice):
                start, stop, step = k.indices(size)
                stride = min(abs(step), max(size, 1))  # a longer step still takes only the first (as numpy)
                if step > 0:
                    raw = raw.slice(start, max(start, stop), dim).subSample(stride, dim)
                else:
                    first, last = stop + 1, start + 1  # the range walked backwards
                    raw = raw.slice(max(first, 0), max(last, first, 0), dim).reverse(dim).subSample(stride, dim)
            else:
                raise BuildError(f"static indexing takes ints and slices; use t.at[i] for a tensor index, not {k!r}")
            dim += 1
        return self._view(raw.squeeze(drop) if drop else raw, "Tensor.__getitem__", key=key)

    def reshape(self, *shape) -> "Tensor":
        """A view with the same elements in another shape (one dimension may be -1), as numpy.reshape."""
        shape = as_shape(shape[0] if len(shape) == 1 else shape, "Tensor.reshape", inferred=True)
        if shape.count(-1) == 1:
            known = int(np.prod([d for d in shape if d != -1]))
            shape[shape.index(-1)] = self.size // known if known else 0
        if int(np.prod(shape)) != self.size:
            raise BuildError(f"cannot reshape {self!r} ({self.size} elements) to {tuple(shape)}")
        return self._view(self.raw.reshape(shape), "Tensor.reshape")

    def transpose(self, *perm) -> "Tensor":
        """A view with the dimensions permuted (reversed when no permutation is given), as numpy.transpose."""
        perm = list(perm[0] if len(perm) == 1 and isinstance(perm[0], (tuple, list)) else perm)
        if not perm:
            perm = list(range(self.ndim))[::-1]
        integers = all(isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in perm)
        if not integers or sorted(perm) != list(range(self.ndim)):
            raise BuildError(f"transpose: perm {tuple(perm)} is not a permutation of the {self.ndim} dimensions "
                             f"of {self!r}")
        perm = [int(p) for p in perm]
        return self._view(self.raw.dimShuffle(perm), "Tensor.transpose", perm=perm)

    @property
    def T(self) -> "Tensor":
        """The transposed view: dimensions reversed."""
        return self.transpose()

    dimshuffle = transpose

    @property
    def mT(self) -> "Tensor":
        """The last two dimensions swapped (numpy's .mT): a batch of transposed matrices."""
        if self.ndim < 2:
            raise BuildError(f"mT needs at least two dimensions, not {self!r}")
        return self.transpose(list(range(self.ndim - 2)) + [self.ndim - 1, self.ndim - 2])

    def expand(self, axis: int) -> "Tensor":
        """Insert a size-1 dimension before dimension `axis` (numpy's expand_dims)."""
        axis = expect_int(axis, "Tensor.expand: axis", -self.ndim - 1, self.ndim)
        axis = axis + self.ndim + 1 if axis < 0 else axis
        return self._view(self.raw.expand([axis]), "Tensor.expand")

    def squeeze(self, axis: Axes = None) -> "Tensor":
        """A view without the given size-1 dimensions (all of them when axis is None)."""
        given = [] if axis is None else axis if isinstance(axis, (tuple, list)) else [axis]
        given = _check_axes(self, given)
        axes = [i for i, d in enumerate(self.shape) if d == 1] if axis is None else [a % self.ndim for a in given]
        bad = [a for a in axes if self.shape[a] != 1]
        if bad:
            raise BuildError(f"cannot squeeze dimension(s) {bad} of {self!r}: their size is not 1")
        return self._view(self.raw.squeeze(axes), "Tensor.squeeze")

    def broadcast(self, shape: Shape) -> "Tensor":
        """A view broadcast to `shape` by numpy's rules (no copy)."""
        try:
            return self._view(poputil.broadcastToMatch(self.raw, as_shape(shape, "Tensor.broadcast")),
                              "Tensor.broadcast")
        except poputil.poplibs_error as e:
            raise BuildError(str(e)) from None

    def flatten(self) -> "Tensor":
        """A one-dimensional view of all the elements, in row-major order."""
        return self._view(self.raw.flatten(), "Tensor.flatten")

    # --- guards against silent mistakes --------------------------------------------------
    def __iter__(self):
        raise TypeError(f"{self!r} is a device tensor: iterating would unroll the graph in Python; "
                        "index it (t[i]) or use pd.Repeat with t.at[i]")

    def __bool__(self):
        raise TypeError(f"the truth value of device tensor {self!r} is only known when the program runs; "
                        "use `with pd.If(t):` for a device-side condition")

    def __float__(self):
        raise self._no_host_value("float()")

    def __int__(self):
        raise self._no_host_value("int()")

    def _no_host_value(self, conversion: str) -> TypeError:
        return TypeError(f"{conversion} of device tensor {self!r}: its value is only known when the program runs; "
                         "read it with session.read(t)")

    def __array__(self, *args, **kwargs):
        raise TypeError(f"{self!r} lives on the device; read it with session.read(t)")

    def __len__(self):
        if not self.ndim:
            raise TypeError(f"len() of the scalar tensor {self!r}")
        return self.shape[0]

    __hash__ = object.__hash__
