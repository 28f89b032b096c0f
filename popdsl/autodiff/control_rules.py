"""Gradients through control flow: pd.If/pd.Else and pd.Repeat.

An If's backward is an If on the same predicate: the body's backward where the body ran,
the output gradients passed through unchanged where it did not. An Else is recorded as
an If of its own whose body runs when the predicate is zero.

A Repeat's backward is a Repeat of the body's backward, from the last iteration to the
first. By then the body's tensors hold the last iteration's values, so each value the
body's gradient rules read is stashed per iteration: the forward body gets a step
copying it into row k of a stash [count, ...] right after the op that made it, and the
backward reads row k back. Memory grows with the count; the graph does not. The
gradient of a tensor the body both reads and writes (a loop-carried value, such as a
hidden state) flows from one iteration to the one before; that of a tensor the body
only reads (a weight) is summed over the iterations. A pd.If in the body is
differentiated inside the backward Repeat, from its predicate's and its branch's stashed
values (a branch that did not run leaves a stale row, which the backward If skips).
"""
import copy

from popdsl import ops
from popdsl.autodiff.backprop import propagate
from popdsl.autodiff.registry import OpContext, gradient
from popdsl.control import Block, Else, If, Repeat
from popdsl.debug import BuildError
from popdsl.dtypes import is_floating, uint32


def _body(op, allowed_in_a_repeat=False) -> Block:
    nested = isinstance(op, _SnapshotContext) or (isinstance(op, _StashedContext)
                                                  and (op.stash.nested or not allowed_in_a_repeat))
    if nested:  # the rule of an op in a differentiated body
        raise BuildError(f"pd.grad: cannot differentiate through {op.record}: it is in the body of a loop or "
                         "conditional pd.grad differentiates, and pd.grad goes no deeper than a pd.If in "
                         "a pd.Repeat")
    (body,) = op.attrs["bodies"]
    return body


def _body_gradients(op, body, output_grads, context) -> list:
    """The gradient of each input's value entering the body, from the gradients (one or
    None per output of the record) of the outputs' values leaving it."""
    seeds = {body.tape.latest(o): g for o, g in zip(op.record.outputs, output_grads) if g is not None}
    return propagate(body.tape, body.tape.records, seeds, list(op.record.inputs), context)


def _zeros_like(t):
    return ops.zero(t.graph.variable(t.dtype, t.shape, name="pd.grad/zeros"))


def _insert_steps(block, after, build):
    """Inserts the steps build() makes into an already built block, after its step `after`
    (first when None): the forward keeps what its backward reads."""
    steps = Block()
    with steps:
        result = build()
    index = next((i for i, s in enumerate(block.steps) if s is after), -1) + 1
    block.steps.insert(index, steps)
    return result


def _or_zeros(g, like):
    return g if g is not None else _zeros_like(like)


def _assign(values, targets):
    """Copies each value into its target; a value that is one of the targets (or aliases
    one) is copied out first, so that no copy reads a target already overwritten."""
    for target, value in zip(targets, [v if not any(v.raw.intersectsWith(t.raw) for t in targets)
                                       else ops.cast(v, v.dtype) for v in values]):
        if value is not target:
            ops.copy(value.reshape(target.shape), target)


# --- pd.If / pd.Else ---------------------------------------------------------------------
@gradient("pd.If")
def _if(op, grads):
    step, negated = op.attrs["step"], op.attrs.get("negated", False)
    body = _body(op, allowed_in_a_repeat=True)
    predicate = step.predicate_tensor
    branches = [r for r in (step.record, step.else_record) if r is not None]
    writer = next((r for r in branches if any(w.raw.intersectsWith(predicate.raw) for w in r.written)),
                  op.writes_after(predicate, step.record.index))
    if writer is not None:
        raise BuildError(f"pd.grad: cannot differentiate through {op.record}: its predicate {predicate!r} is "
                         f"overwritten by {writer}, and the backward tests it again")
    if isinstance(op, _StashedContext):  # in a differentiated Repeat: the predicate and values of each iteration
        predicate = op.stash.value(op.record, predicate)
        context = op.stash.within(body).context
    else:
        context = _snapshots(op, step, body, negated)
    results = [t.graph.variable(t.dtype, t.shape, name="pd.grad/if") if needed else None
               for t, needed in zip(op.inputs, op.needs)]
    wanted = [j for j, r in enumerate(results) if r is not None]
    targets = [results[j] for j in wanted]
    outputs = {id(o): g for o, g in zip(op.record.outputs, grads)}

    def ran():
        through = _body_gradients(op, body, grads, context)
        _assign([_or_zeros(through[j], results[j]) for j in wanted], targets)

    def skipped():  # an output's old value is its new one
        _assign([_or_zeros(outputs.get(id(op.inputs[j])), results[j]) for j in wanted], targets)

    with If(predicate):
        (skipped if negated else ran)()
    with Else():
        (ran if negated else skipped)()
    return results


def _snapshots(op, step, body, negated):
    """The context of the If body's rules where the body runs once."""
    partner = None if negated else step.else_record
    end = len(body.tape.records)

    def writes_after(t, first):  # in the body, then after the If (but not in its other branch)
        found = body.tape.writer(t, first, end)
        outer = op.record.index + 1
        while found is None:
            found = op.writes_after(t, outer)
            if found is None or found is not partner:
                break
            outer, found = found.index + 1, None
        return found

    if not hasattr(step, "snapshots"):
        step.snapshots = {}
    return lambda record, needs: _SnapshotContext(record, needs, writes_after, body, step.snapshots)


class _SnapshotContext(OpContext):
    """A body op's view for its rule where the body runs once: a value overwritten later
    (in the body or after it) is copied right after the op made it, in the body."""

    def __init__(self, record, needs, writes_after, body, snapshots):
        super().__init__(record, needs, writes_after)
        self._body, self._snapshots = body, snapshots

    def _overwritten(self, t, what, writer):
        if writer is self.record:
            return super()._overwritten(t, what, writer)
        key = (id(self.record), id(t))
        if key not in self._snapshots:
            self._snapshots[key] = (_insert_steps(self._body, self.record.after, lambda: ops.cast(t, t.dtype)), t)
        return self._snapshots[key][0]


# --- pd.Repeat ---------------------------------------------------------------------------
class _Stash:
    """The per-iteration copies of the values the body's backward reads, captured in
    `body` (the Repeat's, or that of a pd.If in it: `nested`)."""

    def __init__(self, op, body):
        self.op, self.body, self.step, self.nested = op, body, op.attrs["step"], False
        graph = (op.record.outputs + op.record.inputs)[0].graph
        if not hasattr(self.step, "stashes"):  # made once per loop, whatever pd.grad calls differentiate it
            self.step.stashes, self.step.iteration = {}, graph.variable(uint32, (1,), name="pd.grad/iteration")
            _insert_steps(self.step.parent, self.step, lambda: ops.zero(self.step.iteration))
            _insert_steps(body, body.steps[-1] if body.steps else None, self._count)
        self.backward_iteration = graph.variable(uint32, (1,), name="pd.grad/backward_iteration")
        self.loaded = {}
        self.written = op.record.outputs

    def _count(self):
        self.step.iteration += 1

    def within(self, body) -> "_Stash":
        """This stash, capturing in the body of a pd.If in the Repeat's body. Its values are
        read again inside the backward If (a value read in one branch is not reused after it)."""
        inner = copy.copy(self)
        inner.body, inner.nested, inner.loaded = body, True, {}
        return inner

    def value(self, record, t):
        """t's value when `record` ran, in the iteration being differentiated."""
        if not any(t.raw.intersectsWith(w.raw) for w in self.written):  # the same in every iteration
            j = next((j for j, i in enumerate(self.op.inputs) if i is t), None)
            return t if j is None else self.op.input(j)  # checked against writes after the loop
        key = (id(record), id(t))
        if key not in self.step.stashes:
            rows = t.graph.variable(t.dtype, (self.step.count,) + t.shape, name=f"pd.grad/stash/{t.name}")
            self.step.stashes[key] = (rows, t)
            _insert_steps(self.body, record.after, lambda: rows.at[self.step.iteration].set(t))
        rows = self.step.stashes[key][0]
        if id(rows) not in self.loaded:
            self.loaded[id(rows)] = rows.at[self.backward_iteration].get()
        return self.loaded[id(rows)]

    def context(self, record, needs):
        return _StashedContext(record, needs, self)


class _StashedContext(OpContext):
    """A body op's view for its rule: values come from the stash. Overwrites later in the
    body do not matter then, only an in-place op overwriting what its own rule reads."""

    def __init__(self, record, needs, stash):
        def own_write(t, first):
            writes = first <= record.index and any(w.raw.intersectsWith(t.raw) for w in record.written)
            return record if writes else None
        super().__init__(record, needs, own_write)
        self.stash = stash

    def input(self, i: int):
        return self.stash.value(self.record, super().input(i))

    def output(self, k: int = 0):
        return self.stash.value(self.record, super().output(k))


@gradient("pd.Repeat")
def _repeat(op, grads):
    body = _body(op)
    outputs, inputs = op.record.outputs, op.record.inputs
    if op.attrs["step"].count == 0:  # every value passes through
        passed = {id(o): g for o, g in zip(outputs, grads)}
        return [passed.get(id(t)) for t in inputs]
    carried = {id(o) for o in outputs if is_floating(o.dtype)} & {id(t) for t in inputs}
    # The gradient of each output's value at the end of the iteration being differentiated.
    ahead = {id(o): ops.cast(g, g.dtype) if g is not None else _zeros_like(o)
             for o, g in zip(outputs, grads) if g is not None or id(o) in carried}
    totals = {j: _zeros_like(t) for j, t in enumerate(inputs) if op.needs[j] and id(t) not in carried}
    stash = _Stash(op, body)
    ops.fill(stash.backward_iteration, op.attrs["step"].count - 1)
    with Repeat(op.attrs["step"].count):
        through = _body_gradients(op, body, [ahead.get(id(o)) for o in outputs], stash.context)
        carries = [(_or_zeros(d, t), ahead[id(t)])
                   for t, d in zip(inputs, through) if id(t) in carried]
        _assign([d for d, _ in carries], [a for _, a in carries])
        for j, total in totals.items():
            if through[j] is not None:
                ops.map_(lambda a, d: a + d, total, through[j])
        for o in outputs:  # an earlier iteration's value of a tensor the body only writes reaches nothing
            if id(o) in ahead and id(o) not in carried:
                ops.zero(ahead[id(o)])
        stash.backward_iteration -= 1
    return [ahead[id(t)] if id(t) in carried else totals.get(j) for j, t in enumerate(inputs)]
