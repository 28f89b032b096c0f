"""Reverse-mode propagation through a list of records, shared by pd.grad and the
gradients of loops and conditionals (which run it over their bodies' records)."""
from popdsl import ops
from popdsl.autodiff.registry import rule_for
from popdsl.debug import BuildError, backward_of
from popdsl.dtypes import is_floating
from popdsl.placement import on_ipu
from popdsl.reductions import reduce_sum
from popdsl.tensor import Tensor

MAX_SUMMANDS = 20  # a popops map has placeholders _1 to _20


def propagate(tape, records, seeds: dict, wrt_sources, context) -> list:
    """Runs the gradient rules of `records` (of `tape`) backwards from `seeds`
    ({source: its gradient}) and returns the total gradient of each of wrt_sources (None
    where none flows). context(record, needs) makes the OpContext a rule sees."""
    wanted = set(wrt_sources)
    path, differentiable = _path(records, list(seeds), wanted)
    partials = {source: [g] for source, g in seeds.items()}
    for record in reversed(path):
        # The gradient goes where the op went, named for the op's line (the sums of its
        # outputs' partial gradients included).
        with on_ipu(record.ipu), backward_of(record.place):
            _backward(tape, record, partials, wanted, differentiable, context)
    return [_total(partials.get(source)) for source in wrt_sources]


def _backward(tape, record, partials, wanted, differentiable, context) -> None:
    """Adds the partial gradients of record's inputs to `partials`, from those of its outputs."""
    grads = [_total(partials.pop((record, k), None)) for k in range(len(record.outputs))]
    for k, g in enumerate(grads):
        if (record, k) in wanted and g is not None:  # also on the way to another of wrt: kept
            partials[record, k] = [g]
    if all(g is None for g in grads):
        return
    needs = [s in differentiable and is_floating(t.dtype) for s, t in zip(record.sources, record.inputs)]
    _check_no_hidden_writes(tape, record, needs)
    input_grads = rule_for(record)(context(record, needs), grads)
    for source, t, needed, g in zip(record.sources, record.inputs, needs, input_grads):
        if needed and g is not None:
            partials.setdefault(source, []).append(_summed_to(g, t.shape))


def _path(records, y_sources, wrt_sources):
    """The records on a path from a tensor of wrt to one of y_sources, in program order, and
    the sources a gradient flows back to."""
    reaches_y, pending = set(), list(y_sources)
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
