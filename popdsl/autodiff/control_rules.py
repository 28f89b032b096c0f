"""Gradients through control flow: pd.Repeat, pd.If/pd.Else and pd.Switch, nested in
each other as deep as they come.

A Repeat's backward is a Repeat of the body's backward, from the last iteration to the
first. A conditional's backward is a conditional on the same predicate (or switch index):
the backward of the branch that ran, the output gradients passed through unchanged where
it did not write them. An Else is recorded as an If of its own whose body runs when the
predicate is zero.

By the time the backward runs, the body's tensors hold their last values, so each value a
body's gradient rules read that something overwrites later (later in the body, in a later
iteration, or after the control step) is saved: the forward body gets a step copying it,
right after the op that made it, into a stash with one row per iteration of each
enclosing pd.Repeat ([outer count, inner count, ..., *shape]; a plain copy outside
loops), and the backward reads the row of the iteration it is differentiating. Memory
grows with the counts; the graph does not. The gradient of a tensor a loop body both
reads and writes (a loop-carried value, such as a hidden state) flows from one iteration
to the one before; that of a tensor the body only reads (a weight) is summed over the
iterations. A branch that did not run leaves a stale row, which the backward conditional
skips.
"""
from popdsl import ops
from popdsl.autodiff.backprop import propagate
from popdsl.autodiff.registry import OpContext, gradient
from popdsl.control import Block, Else, If, Repeat, Switch, current_block
from popdsl.debug import BuildError
from popdsl._core.popops import expr as pe
from popdsl.dtypes import float32, is_floating, uint32


def _body_gradients(op, body, output_grads, context) -> list:
    """The gradient of each input's value entering the body, from the gradients (one or
    None per output of the record) of the outputs' values leaving it."""
    seeds = {body.tape.latest(o): g for o, g in zip(op.record.outputs, output_grads)
             if g is not None and body.tape.latest(o) is not None}
    return propagate(body.tape, body.tape.records, seeds, list(op.record.inputs), context)


def _zeros_like(t, dtype=None):
    return ops.zero(t.graph.variable(dtype or t.dtype, t.shape, name="pd.grad/zeros"))


def _insert_steps(block, build, after=None, before=None):
    """Inserts the steps build() makes into an already built block, right after its step
    `after` (first when None) or right before its step `before`: the forward keeps what
    its backward reads."""
    steps = Block()
    with steps:
        result = build()
    anchor = after if before is None else before
    index = next((i for i, s in enumerate(block.steps) if s is anchor), -1) + (before is None)
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


class _Frame:
    """A body pd.grad differentiates, in the control steps around it: where each value its
    rules read is found when the backward runs. `op` is the control record's context (a
    _BodyContext of the enclosing frame, or pd.grad's own); `loop` the forward pd.Repeat
    step when the body is its; `partner` the record of an If's other branch, which cannot
    run when this one did."""

    def __init__(self, op, body, loop=None, partner=None):
        self.op, self.body, self.partner = op, body, partner
        self.parent = op.frame if isinstance(op, _BodyContext) else None
        self.loop = loop
        self.loops = (self.parent.loops if self.parent else ()) + ((self,) if loop else ())
        self.loaded = {}  # (id(stash), id(backward block)) -> the row read there
        if loop is not None:
            graph = (op.record.outputs + op.record.inputs)[0].graph
            if not hasattr(loop, "iteration"):  # counted once per loop, whatever pd.grad calls differentiate it
                loop.iteration = graph.variable(uint32, (1,), name="pd.grad/iteration")
                _insert_steps(loop.parent, lambda: ops.zero(loop.iteration), before=loop)
                _insert_steps(body, self._count, after=body.steps[-1] if body.steps else None)
            self.backward_iteration = graph.variable(uint32, (1,), name="pd.grad/backward_iteration")

    def _count(self):
        self.loop.iteration += 1

    def writer(self, t, first: int, skip=None):
        """The first op that may overwrite t's storage between the run of the body's
        record first-1 and the backward: later in the body, in a later iteration of the
        loop (the loop's record), or after the control step (`skip`, the other branch of
        an If, aside)."""
        tape = self.body.tape
        found = tape.writer(t, first, len(tape.records))
        if found is not None and found is skip:
            found = tape.writer(t, skip.index + 1, len(tape.records))
        if found is None and self.loop is not None and any(t.raw.intersectsWith(o.raw) for o in self.op.record.outputs):
            found = self.op.record  # the next iteration makes or writes t again
        if found is None:
            after = self.op.record.index + 1
            found = (self.parent.writer(t, after, self.partner) if self.parent is not None
                     else _outer_writer(self.op, t, after, self.partner))
        return found

    def value(self, record, t, first: int):
        """t's value when the body's `record` ran (in the iterations being differentiated),
        where only ops from record `first` on could have overwritten it."""
        return t if self.writer(t, first) is None else self.saved(record, t)

    def saved(self, record, t):
        """t's value right after `record` ran, stashed by the forward and read back."""
        stashes = vars(self.body).setdefault("stashes", {})  # shared by the pd.grad calls through the body
        key = (id(record), id(t))
        if key not in stashes:
            rows = t.graph.variable(t.dtype, tuple(f.loop.count for f in self.loops) + t.shape,
                                    name=f"pd.grad/stash/{t.name}")
            stashes[key] = (rows, t)  # t kept alive, for its id
            forward = [f.loop.iteration for f in self.loops]
            _insert_steps(self.body, lambda: rows.at[tuple(forward)].set(t) if forward else ops.copy(t, rows),
                          after=record.after)
        rows = stashes[key][0]
        if not self.loops:
            return rows
        block = current_block()
        key = (id(rows), id(block))
        if key not in self.loaded:
            self.loaded[key] = (rows.at[tuple(f.backward_iteration for f in self.loops)].get(), block)
        return self.loaded[key][0]

    def context(self, record, needs):
        return _BodyContext(record, needs, self)


def _outer_writer(op, t, first, skip):
    found = op.writes_after(t, first)
    return op.writes_after(t, skip.index + 1) if found is not None and found is skip else found


class _BodyContext(OpContext):
    """A body op's view for its rule: a value overwritten before the backward reads it comes
    from the frame's stash; only an in-place op overwriting what its own rule reads is
    refused."""

    def __init__(self, record, needs, frame):
        super().__init__(record, needs, frame.writer)
        self.frame = frame

    def _overwritten(self, t, what, writer):
        if writer is self.record:
            return super()._overwritten(t, what, writer)
        return self.frame.saved(self.record, t)


def _control_value(op, t, branches, what):
    """The predicate or switch index `t` of a conditional as the backward tests it again:
    its value when the conditional ran."""
    record = branches[0]
    writer = next((r for r in branches if any(w.raw.intersectsWith(t.raw) for w in r.written)), None)
    if writer is None and not isinstance(op, _BodyContext):
        writer = op.writes_after(t, record.index)
    if writer is not None:
        raise BuildError(f"pd.grad: cannot differentiate through {op.record}: its {what} {t!r} is "
                         f"overwritten by {writer}, and the backward tests it again")
    return op.frame.value(record, t, record.index + 1) if isinstance(op, _BodyContext) else t


class _Branches:
    """The gradients of a conditional's inputs, one variable each, which whichever branch of
    the backward runs assigns."""

    def __init__(self, op, grads):
        self.op, self.grads = op, grads
        self.results = [t.graph.variable(t.dtype, t.shape, name="pd.grad/branch") if needed else None
                        for t, needed in zip(op.inputs, op.needs)]
        self.wanted = [j for j, r in enumerate(self.results) if r is not None]
        self._outputs = {id(o): g for o, g in zip(op.record.outputs, grads)}

    def ran(self, body, partner=None):
        """Where `body` ran: its backward, and the gradients of the outputs it did not
        write passed through."""
        through = _body_gradients(self.op, body, self.grads, _Frame(self.op, body, partner=partner).context)
        values = []
        for j in self.wanted:
            t = self.op.inputs[j]
            passed = self._outputs.get(id(t)) if body.tape.latest(t) is None else None
            both = [g for g in (through[j], passed) if g is not None]
            values.append(ops.map(lambda a, b: a + b, *both) if len(both) == 2 else
                          both[0] if both else _zeros_like(t))
        _assign(values, [self.results[j] for j in self.wanted])

    def skipped(self):
        """Where no branch ran: each output's old value is its new one."""
        self.ran(Block())


# --- pd.If / pd.Else and pd.Switch -------------------------------------------------------
@gradient("pd.If")
def _if(op, grads):
    step, negated = op.attrs["step"], op.attrs.get("negated", False)
    (body,) = op.attrs["bodies"]
    branches = [r for r in (step.record, step.else_record) if r is not None]
    predicate = _control_value(op, step.predicate_tensor, branches, "predicate")
    gradients = _Branches(op, grads)
    with If(predicate):
        gradients.skipped() if negated else gradients.ran(body, step.else_record)
    with Else():
        gradients.ran(body) if negated else gradients.skipped()
    return gradients.results


@gradient("pd.Switch")
def _switch(op, grads):
    step = op.attrs["step"]
    index = _control_value(op, step.index_tensor, [op.record], "index")
    gradients = _Branches(op, grads)
    with Switch(index) as backward:
        for value, body in step.cases.items():
            with backward.case(value):
                gradients.ran(body)
        with backward.default():
            gradients.ran(step.default_body) if step.default_body is not None else gradients.skipped()
    return gradients.results


# --- pd.Repeat ---------------------------------------------------------------------------
@gradient("pd.Repeat")
def _repeat(op, grads):
    (body,) = op.attrs["bodies"]
    step, outputs, inputs = op.attrs["step"], op.record.outputs, op.record.inputs
    if step.count == 0:  # every value passes through
        passed = {id(o): g for o, g in zip(outputs, grads)}
        return [passed.get(id(t)) for t in inputs]
    carried = {id(o) for o in outputs if is_floating(o.dtype)} & {id(t) for t in inputs}
    # The gradient of each output's value at the end of the iteration being differentiated.
    ahead = {id(o): ops.cast(g, g.dtype) if g is not None else _zeros_like(o)
             for o, g in zip(outputs, grads) if g is not None or id(o) in carried}
    # A gradient summed over the iterations is summed in float32: a float16 sum of many terms
    # drops the next term's low bits once it is large.
    totals = {j: _zeros_like(t, float32) for j, t in enumerate(inputs) if op.needs[j] and id(t) not in carried}
    frame = _Frame(op, body, loop=step)
    ops.fill(frame.backward_iteration, step.count - 1)
    with Repeat(step.count):
        through = _body_gradients(op, body, [ahead.get(id(o)) for o in outputs], frame.context)
        carries = [(_or_zeros(d, t), ahead[id(t)])
                   for t, d in zip(inputs, through) if id(t) in carried]
        _assign([d for d, _ in carries], [a for _, a in carries])
        for j, total in totals.items():
            if through[j] is not None:
                ops.map_(lambda a, d: a + (d if through[j].dtype == float32 else pe.Cast(d, float32)), total,
                         through[j])
        for o in outputs:  # an earlier iteration's value of a tensor the body only writes reaches nothing
            if id(o) in ahead and id(o) not in carried:
                ops.zero(ahead[id(o)])
        frame.backward_iteration -= 1
    summed = {j: total if inputs[j].dtype == float32 else ops.cast(total, inputs[j].dtype)
              for j, total in totals.items()}
    return [ahead[id(t)] if id(t) in carried else summed.get(j) for j, t in enumerate(inputs)]
