"""pd.grad: reverse-mode gradients of the ops recorded in the open block."""
import warnings

from popdsl import ops
from popdsl.autodiff import custom, rules  # noqa: F401  (fill the table of rules)
from popdsl.autodiff.registry import OpContext, rule_for
from popdsl.control import current_block
from popdsl.debug import BuildError, describe
from popdsl.dtypes import is_floating
from popdsl.reductions import reduce_sum
from popdsl.tensor import Tensor, expect_tensor

MAX_SUMMANDS = 20  # a popops map has placeholders _1 to _20


def grad(y: Tensor, wrt, grad_y: Tensor = None, prog=None):
    """Appends the gradient of `y` with respect to each tensor of `wrt` to the open block
    and returns the gradients in `wrt`'s order (a list; one tensor for one tensor given).

    `y` is a one-element float tensor, or any float tensor when `grad_y` (its output
    gradient, shaped like y) is given. pd.grad follows the ops recorded in the block it
    is called in: a gradient is with respect to the value a tensor holds when pd.grad
    is called, and tensors from outside the block are constants. A tensor of `wrt` that
    y does not depend on gets zeros (and a warning). Ops without a gradient rule, and
    ops whose backward needs a value an in-place op has since overwritten, raise a
    BuildError naming the op and the line that built it.
    """
    single = isinstance(wrt, Tensor)
    wrt = [wrt] if single else list(wrt) if isinstance(wrt, (list, tuple)) else None
    if not wrt:
        raise BuildError(f"pd.grad: wrt must be a pd.Tensor or a non-empty list of them, got {describe(wrt)}")
    expect_tensor(y, "pd.grad: y")
    for i, w in enumerate(wrt):
        expect_tensor(w, f"pd.grad: wrt[{i}]", y.graph, "y")
        if not is_floating(w.dtype):
            raise BuildError(f"pd.grad: wrt[{i}] {w!r} is not a float tensor; integer and bool tensors have no "
                             "gradient")
    block = current_block(prog)
    with block:  # the backward's ops go into this block, like the forward's
        seed = _seed(y, grad_y)
        results = _backward(block.tape, y, seed, wrt)
    return results[0] if single else results


def _backward(tape, y, seed, wrt) -> list:
    y_source = tape.source(y)
    wrt_sources = [tape.source(w) for w in wrt]
    if not isinstance(y_source, tuple) and not any(y_source is s for s in wrt_sources):  # no == on tensors
        raise BuildError(f"pd.grad: y {y!r} was not computed by the ops of this block; pd.grad follows the ops of "
                         "the block it is called in, so build the forward there")
    end = len(tape.records)  # the backward's own ops come after: they overwrite nothing of the forward
    path, differentiable = _path(tape.records[:end], y_source, set(wrt_sources))
    partials = {y_source: [seed]}
    for record in reversed(path):
        grads = [_total(partials.pop((record, k), None)) for k in range(len(record.outputs))]
        if all(g is None for g in grads):
            continue
        needs = [s in differentiable and is_floating(t.dtype) for s, t in zip(record.sources, record.inputs)]
        _check_no_hidden_writes(tape, record, needs)
        context = OpContext(record, needs, lambda t, first: tape.writer(t, first, end))
        input_grads = rule_for(record)(context, grads)
        for source, t, needed, g in zip(record.sources, record.inputs, needs, input_grads):
            if needed and g is not None:
                partials.setdefault(source, []).append(_summed_to(g, t.shape))
    results = []
    for w, source in zip(wrt, wrt_sources):
        total = _total(partials.get(source))
        if total is None:
            warnings.warn(f"pd.grad: {y!r} does not depend on {w!r} through the ops of this block "
                          "(its gradient is zero)", stacklevel=3)
            total = ops.zero(w.graph.variable(w.dtype, w.shape, name=f"pd.grad/zeros/{w.name}"))
        results.append(_fresh(total, seed))
    return results


def _seed(y, grad_y):
    if not is_floating(y.dtype):
        raise BuildError(f"pd.grad: y {y!r} is not a float tensor")
    if grad_y is None:
        if y.size != 1:
            raise BuildError(f"pd.grad: y {y!r} has {y.size} elements; differentiate a one-element tensor "
                             "(y.sum()), or pass grad_y= shaped like y")
        return y.graph.constant(1.0, dtype=y.dtype, name="pd.grad/seed").reshape(y.shape)
    expect_tensor(grad_y, "pd.grad: grad_y", y.graph, "y")
    if grad_y.shape != y.shape or grad_y.dtype != y.dtype:
        raise BuildError(f"pd.grad: grad_y {grad_y!r} must have y's shape {y.shape} and dtype {y.dtype}")
    return grad_y


def _path(records, y_source, wrt_sources):
    """The records on a path from a tensor of wrt to y, in program order, and the sources
    a gradient flows back to."""
    reaches_y, pending = set(), [y_source]
    while pending:
        source = pending.pop()
        if isinstance(source, tuple) and source[0] not in reaches_y:
            reaches_y.add(source[0])
            pending.extend(source[0].sources)
    differentiable = set(wrt_sources)
    path = []
    for r in records:
        if r in reaches_y and any(s in differentiable for s in r.sources):
            path.append(r)
            differentiable.update((r, k) for k in range(len(r.outputs)))
    return path, differentiable


def _check_no_hidden_writes(tape, record, needs):
    """Refuses an input whose storage an op wrote through an alias the tape did not see
    made (a tensor wrapped from the raw bindings) after the input's value was made."""
    for t, source, needed in zip(record.inputs, record.sources, needs):
        made = source[0].index + 1 if isinstance(source, tuple) else 0
        writer = tape.writer(t, made, record.index) if needed else None
        if writer is not None and writer is not record.attrs.get("write"):  # a merge accounts for its write
            raise BuildError(f"pd.grad: {record} reads {t!r}, which {writer} wrote through another tensor "
                             "aliasing it that is not a view of it (made from the raw bindings?); pd.grad cannot "
                             "follow that write: write through t's own views (t[...], t.reshape(...))")


def _total(parts):
    """One sum of a tensor's partial gradients: a fused map of up to MAX_SUMMANDS at once."""
    if not parts:
        return None
    while len(parts) > 1:
        parts = [ops.map(lambda *xs: sum(xs[1:], xs[0]), *group) if len(group) > 1 else group[0]
                 for group in (parts[i:i + MAX_SUMMANDS] for i in range(0, len(parts), MAX_SUMMANDS))]
    return parts[0]


def _summed_to(g: Tensor, shape: tuple) -> Tensor:
    """g summed over the axes numpy broadcasting added or stretched to reach g's shape."""
    if g.shape == shape:
        return g
    extra = g.ndim - len(shape)
    axes = list(range(extra)) + [extra + i for i, d in enumerate(shape) if d == 1 and g.shape[extra + i] != 1]
    return reduce_sum(g, axes).reshape(shape) if axes else g.reshape(shape)


def _fresh(g, seed):
    """g as a tensor of its own: the gradient may be the seed or a view of another (a
    broadcast), which the caller could not safely update in place."""
    if g is seed or g.view_of is not None or g.raw.containsAliases():
        return ops.cast(g, g.dtype)
    return g
