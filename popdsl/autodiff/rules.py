"""Gradient rules of the Pythonic layer's ops, written with the layer itself."""
import numpy as np

import popdsl.ops as ops
from popdsl._core.popops import expr as pe
from popdsl.autodiff import expressions
from popdsl.autodiff.registry import gradient, no_gradient
from popdsl.recording import WRITE_INTO_VIEW
from popdsl.debug import BuildError
from popdsl.linalg import matmul
from popdsl.reductions import reduce_prod, reduce_sum
from popdsl.selection import scatter_add


def _zeros(like, shape=None):
    z = like.graph.variable(like.dtype, like.shape if shape is None else shape, name="pd.grad/zeros")
    return ops.zero(z)


# --- element-wise ------------------------------------------------------------------------
@gradient("pd.map")
def _map(op, grads):
    (g,) = grads
    count = len(op.inputs)
    cotangents = expressions.input_cotangents(op.attrs["expression"], [t.dtype for t in op.inputs])
    return [_fused(ct, op, g, count) if needed and ct is not None else None
            for ct, needed in zip(cotangents, op.needs)]


def _fused(cotangent, op, g, count):
    """One map computing a cotangent expression from the inputs it uses and g."""
    used = sorted(expressions.placeholders(cotangent))
    if used == [count + 1]:
        if isinstance(cotangent, pe.PlaceHolder):
            return g  # the gradient passes through unchanged (additions)
    tensors = [g if i == count + 1 else op.input(i - 1) for i in used]
    renumbered = expressions.renumbered(cotangent, {old: new for new, old in enumerate(used, 1)})
    return ops._map(renumbered, tensors)


# --- views -------------------------------------------------------------------------------
@gradient("Tensor.__getitem__")
def _getitem(op, grads):
    (g,) = grads
    (x,) = op.inputs
    dx = _zeros(x)
    ops.copy(g, dx[op.attrs["key"]])
    return [dx]


@gradient("Tensor.reshape", "Tensor.squeeze", "Tensor.flatten", "Tensor.expand")
def _reshape(op, grads):
    return [grads[0].reshape(op.inputs[0].shape)]


@gradient("Tensor.transpose")
def _transpose(op, grads):
    return [grads[0].transpose(list(np.argsort(op.attrs["perm"])))]


@gradient("Tensor.broadcast")
def _broadcast(op, grads):
    return [grads[0]]  # pd.grad sums it down to the input's shape


def _along(t, axis, begin, end):
    """t[begin:end] along axis (a view)."""
    index = [slice(None)] * t.ndim
    index[axis] = slice(begin, end)
    return t[tuple(index)]


@gradient("pd.concat")
def _concat(op, grads):
    (g,) = grads
    axis, begin, parts = op.attrs["axis"], 0, []
    for t in op.inputs:
        parts.append(_along(g, axis, begin, begin + t.shape[axis]))
        begin += t.shape[axis]
    return parts


def _region(t, kind, attrs, shape):
    """The view of `kind` (with its attributes) of t, shaped like the view's base."""
    if kind == "Tensor.__getitem__":
        return t[attrs["key"]]
    if kind == "Tensor.transpose":
        return t.transpose(attrs["perm"])
    return t.reshape(shape)  # reshape, flatten, expand, squeeze


@gradient(WRITE_INTO_VIEW)
def _write_into_view(op, grads):
    """base = its old value with the view's region replaced by the view's new value."""
    (g,) = grads
    base, view = op.inputs
    kind, attrs = op.attrs["view_kind"], op.attrs["view_attrs"]
    if kind == "pd.concat":  # the base is one part of the joined view, wholly overwritten
        d_view = _zeros(view)
        ops.copy(g, _along(d_view, attrs["axis"], *op.attrs["part"]))
        return [None, d_view]
    if kind == "Tensor.broadcast":
        raise BuildError(f"pd.grad: cannot differentiate {op.record}: its view is a broadcast, whose elements "
                         "alias each other")
    d_base = None
    if kind == "Tensor.__getitem__":  # outside the slice the base keeps its old value
        d_base = ops.cast(g, g.dtype)
        ops.zero(_region(d_base, kind, attrs, view.shape))
    return [d_base, _region(g, kind, attrs, view.shape)]


# --- matmul ------------------------------------------------------------------------------
@gradient("pd.matmul")
def _matmul(op, grads):
    (g,) = grads
    a_needed, b_needed = op.needs
    return [matmul(g, op.input(1).mT) if a_needed else None,
            matmul(op.input(0).mT, g) if b_needed else None]


@gradient("pd.matmul_acc")
def _matmul_acc(op, grads):
    """c += k * a @ b: c's old value gets g, a and b the matmul's gradients times k."""
    (g,) = grads
    c_needed, a_needed, b_needed, *scale_needed = op.needs
    if any(scale_needed):
        raise BuildError(f"pd.grad: no gradient for the scale tensor of {op.record}")
    k = op.input(3) if scale_needed else op.attrs["scale"]

    def scaled(p):
        return p * k if isinstance(k, float) else ops.map(lambda a, s: a * s, p, k.reshape([1] * p.ndim))
    return [g if c_needed else None,
            scaled(matmul(g, op.input(2).mT)) if a_needed else None,
            scaled(matmul(op.input(1).mT, g)) if b_needed else None] + [None] * len(scale_needed)


# --- reductions --------------------------------------------------------------------------
def _unreduced(g, op):
    """g with the reduced axes put back (size 1) and broadcast to the input's shape."""
    x = op.inputs[0]
    kept = [1 if i in op.attrs["axes"] else d for i, d in enumerate(x.shape)]
    return g.reshape(kept).broadcast(x.shape)


@gradient("pd.reduce_sum")
def _reduce_sum(op, grads):
    return [_unreduced(grads[0], op)]


@gradient("pd.reduce_sum_squares")
def _reduce_sum_squares(op, grads):
    return [ops.map(lambda g, x: 2.0 * g * x, _unreduced(grads[0], op), op.input(0))]


@gradient("pd.reduce_logsumexp")
def _reduce_logsumexp(op, grads):
    return [ops.map(lambda g, x, y: g * ops.exp(x - y), _unreduced(grads[0], op), op.input(0),
                    _unreduced(op.output(), op))]


@gradient("pd.reduce_max", "pd.reduce_min")
def _reduce_extreme(op, grads):
    """The gradient is shared equally among the elements equal to the extreme (ties)."""
    x, y = op.input(0), _unreduced(op.output(), op)
    hits = ops.map(lambda a, b: pe.Cast(a == b, x.dtype), x, y)
    count = _unreduced(reduce_sum(hits, op.attrs["axes"]), op)
    return [ops.map(lambda g, h, n: g * h / n, _unreduced(grads[0], op), hits, count)]


@gradient("pd.reduce_prod")
def _reduce_prod(op, grads):
    """Each element gets the product of the others: y / x, but worked out from the product
    of the non-zero elements so that zeros give the right (finite) gradient: with one
    zero, only it gets the others' product; with more, every element gets 0."""
    x = op.input(0)
    nonzero = ops.map(lambda a: pe.Select(a, 1.0, a != 0.0), x)
    product = _unreduced(reduce_prod(nonzero, op.attrs["axes"]), op)
    zeros = _unreduced(reduce_sum(ops.map(lambda a: pe.Cast(a == 0.0, x.dtype), x), op.attrs["axes"]), op)
    return [ops.map(lambda g, a, p, n: g * pe.Select(p / pe.Select(a, 1.0, a != 0.0), 0.0,
                                                     n == pe.Cast(a == 0.0, x.dtype)),
                    _unreduced(grads[0], op), x, product, zeros)]


# --- selection ---------------------------------------------------------------------------
@gradient("pd.gather")
def _gather(op, grads):
    """Each gathered slice's gradient is added back where it came from."""
    table, _ = op.inputs
    return [scatter_add(table.shape, grads[0], op.input(1)), None]


@gradient("pd.topk")
def _topk(op, grads):
    """values' gradient goes back to the columns the indices name, row by row."""
    g = grads[0]
    if g is None:
        return [None]
    rows, cols = op.inputs[0].shape
    k = op.attrs["k"]
    starts = op.inputs[0].graph.constant((np.arange(rows, dtype=np.uint32) * cols).reshape(rows, 1, 1),
                                         name="pd.grad/row_starts")
    flat = ops.map(lambda i, s: i + s, op.output(1), starts).reshape(rows * k, 1)  # index into rows * cols
    return [scatter_add([rows * cols, 1], g.reshape(rows * k, 1, 1), flat).reshape(rows, cols)]


# --- dynamic indexing, copies ------------------------------------------------------------
def _indices(op, first):
    return [op.input(i) for i in range(first, len(op.inputs))]


def _at(t, dims, indices):
    """t.at[...] selecting `indices` on `dims` again."""
    key = [slice(None)] * t.ndim
    for d, i in zip(dims, indices):
        key[d] = i
    return t.at[tuple(key)]


@gradient("Tensor.at.get")
def _at_get(op, grads):
    (g,) = grads
    dx = _zeros(op.inputs[0])
    _at(dx, op.attrs["dims"], _indices(op, 1)).set(g)
    return [dx] + [None] * (len(op.inputs) - 1)


@gradient("Tensor.at.set")
def _at_set(op, grads):
    (g,) = grads
    t_needed, value_needed = op.needs[:2]
    indices = _indices(op, 2)
    dims = op.attrs["dims"]
    dt = None
    if t_needed:  # the overwritten position gets no gradient
        dt = ops.cast(g, g.dtype)
        _at(dt, dims, indices).set(_zeros(op.inputs[1]))
    dvalue = _at(g, dims, indices).get() if value_needed else None
    return [dt, dvalue] + [None] * len(indices)


@gradient("pd.copy")
def _copy(op, grads):
    src, _ = op.inputs
    return [grads[0].reshape(src.shape), None]  # dst's old value is overwritten


@gradient("pd.fill")
def _fill(op, grads):
    return [None]


# --- non-linearities ---------------------------------------------------------------------
_FROM_INPUT = {"GELU", "GELU_ERF", "SWISH"}  # popnn takes their input, the others' output


@gradient("pd.nonlinearity", "pd.nonlinearity_")
def _nonlinearity(op, grads):
    kind = op.attrs["function"]
    activation = op.input(0) if kind in _FROM_INPUT else op.output()
    return [ops.nonlinearity_grad(activation, grads[0], kind)]


# --- ops without a gradient (pd.Repeat, pd.If and pd.Switch: control_rules.py) -----------
no_gradient("a function's body is shared by every call, so it cannot stash what each call's backward needs; "
            "build the body inline (a Python function called in the block) instead", "pd.Function")
no_gradient("its trip count is only known when it runs, so the memory for what the backward needs cannot be "
            "bounded when the graph is built; use pd.Repeat(n), or pd.Repeat(max_n) with pd.If(i < n) in the body",
            "pd.While")
no_gradient("it is a gradient itself, and pd.grad gives no second derivatives", "pd.nonlinearity_grad",
            "pd.scatter_add")
no_gradient("it runs Python on the host, which pd.grad cannot see into", "pd.host_callback")
no_gradient("it reads off-chip memory, which pd.grad does not follow: a gradient that must cross a remote "
            "buffer is stored and loaded by hand", "remote load")
no_gradient("it sends its input to the host and produces no tensor", "stream write")
no_gradient("pd.grad cannot read a codelet's C++; give the builder that adds the vertex its gradient builder "
            "with @pd.custom_grad", "pd.compute_set vertex")
no_gradient("pd.grad has no rule for this collective yet (only pd.all_reduce's); write the backward by hand",
            "pd.reduce_scatter", "pd.all_gather", "pd.broadcast", "pd.cross_replica_copy")
no_gradient("its result is an index, through which no gradient flows", "pd.argmax", "pd.argmin")
# Their results depend on no float input, so pd.grad never meets them on a path.
no_gradient("its result depends on no float input", "stream read", "pd.reduce_all", "pd.reduce_any",
            "pd.random.uniform", "pd.random.normal", "pd.random.truncated_normal", "pd.random.bernoulli")
