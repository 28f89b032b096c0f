"""Pipelined execution over IPUs: a model split into stages, one per IPU, runs its
micro-batches in a pipeline schedule (PopTorch's PipelinedExecution, popxl's pipelining)::

    loss, grads = pd.pipeline([
        pd.Stage(lambda x: pd.relu(x @ w1 + b1), ipu=0, weights=[w1, b1], inputs=[x]),
        pd.Stage(lambda h, y: pd.nn.cross_entropy(h @ w2 + b2, y), ipu=1, weights=[w2, b2],
                 inputs=[labels]),
    ], micro_batches=4)
    opt.step([w1, b1, w2, b2], grads)

Stage k's function gets stage k-1's outputs (copied to its IPU with pd.ipu_copy), then
the micro-batch's rows of its own `inputs`; the first stage gets only those rows. The last
stage returns the micro-batch's loss (one element, a mean over its rows), so the mean of the
micro-batch losses and of their gradients are the whole batch's.

The schedule is unrolled into the open block in pipeline cycles: in each cycle every
stage runs one forward or backward of one micro-batch on its own IPU, then the cycle's
pd.ipu_copy steps move activations forward and their gradients back. ``"gpipe"`` runs
every forward (fill, then main), then every backward (flush); ``"1f1b"`` (the default)
starts each stage's backwards as soon as they can run, alternating one forward and one
backward, so at most ``stages - k`` micro-batches wait in stage k. What a backward needs
of its forward stays in the tensors that forward made (each micro-batch's forward makes
its own), read by the backward later: the stash. With ``recompute=True`` the backward runs
the stage's forward again from its inputs first and reads only what that made, so only the
inputs need keeping (the last stage, whose backward follows its forward at once, is not
recomputed).
"""

from __future__ import annotations

from typing import Callable, List, Sequence, Tuple

from popdsl import ops
from popdsl.autodiff.grad import grad
from popdsl.debug import BuildError, describe, expect_callable, expect_int, name_scope
from popdsl.dtypes import is_floating
from popdsl.ipu_links import ipu_copy
from popdsl.placement import ipu as on_ipu
from popdsl.reductions import mean
from popdsl.tensor import Tensor

# The public names (the API reference's).
__all__ = ["Stage", "pipeline", "pipeline_schedule"]

SCHEDULES = ("gpipe", "1f1b")


class Stage:
    """One pipeline stage: `fn` placed on IPU `ipu`, its `weights` (the float tensors the
    pipeline returns gradients for) and its batch `inputs` (tensors whose first axis is
    the batch; fn gets one micro-batch's rows of each)."""

    def __init__(self, fn: Callable[..., object], ipu: int, weights: Sequence[Tensor] = (),
                 inputs: Sequence[Tensor] = ()):
        self.fn = expect_callable(fn, "pd.Stage: fn")
        self.ipu = expect_int(ipu, "pd.Stage: ipu")
        self.weights = _tensors(weights, "pd.Stage: weights")
        self.inputs = _tensors(inputs, "pd.Stage: inputs")
        for i, w in enumerate(self.weights):
            if not is_floating(w.dtype):
                raise BuildError(f"pd.Stage: weights[{i}] {w!r} is not a float tensor")

    def __repr__(self):
        return f"pd.Stage({getattr(self.fn, '__name__', 'fn')} on IPU {self.ipu})"


def pipeline_schedule(stages: int, micro_batches: int, schedule: str = "1f1b") -> List[List[Tuple[str, int, int]]]:
    """The pipeline cycles of a schedule: per cycle, the ("F" or "B", stage, micro-batch)
    that run in it, at most one per stage. A stage's forward of micro-batch m runs in a
    later cycle than the previous stage's, its backward in a later cycle than the next
    stage's backward (the last stage's: than its own forward)."""
    count = expect_int(stages, "pd.pipeline_schedule: stages", 1)
    batches = expect_int(micro_batches, "pd.pipeline_schedule: micro_batches", 1)
    if schedule not in SCHEDULES:
        raise BuildError(f"pd.pipeline: schedule must be one of {', '.join(map(repr, SCHEDULES))}, got "
                         f"{describe(schedule)}")
    orders = [_stage_order(s, count, batches, schedule) for s in range(count)]
    done, cycles, nexts = set(), [], [0] * count
    while any(n < len(o) for n, o in zip(nexts, orders)):
        cycle = []
        for s, order in enumerate(orders):
            if nexts[s] < len(order) and _ready(order[nexts[s]], done, count):
                cycle.append(order[nexts[s]])
                nexts[s] += 1
        done.update(cycle)  # what ran in this cycle is ready for the next one
        cycles.append(cycle)
    return cycles


def _stage_order(s: int, stages: int, batches: int, schedule: str) -> list:
    forwards = [("F", s, m) for m in range(batches)]
    backwards = [("B", s, m) for m in range(batches)]
    if schedule == "gpipe":
        return forwards + backwards
    warmup = min(stages - 1 - s, batches)  # 1F1B: forwards in flight before the first backward
    order = forwards[:warmup]
    for m in range(batches - warmup):
        order += [forwards[warmup + m], backwards[m]]
    return order + backwards[batches - warmup:]


def _ready(event, done, stages) -> bool:
    kind, s, m = event
    if kind == "F":
        return s == 0 or ("F", s - 1, m) in done
    return ("F", s, m) in done and (s == stages - 1 or ("B", s + 1, m) in done)


def pipeline(stages: Sequence[Stage], micro_batches: int, schedule: str = "1f1b",
             recompute: bool = False) -> Tuple[Tensor, List[Tensor]]:
    """Runs the stages' forward and backward over `micro_batches` micro-batches of their
    inputs in a pipeline schedule ("1f1b" or "gpipe"), appending the ops to the open block.
    Returns (the mean of the micro-batch losses, on the last stage's IPU; the mean of their
    gradients, one per weight of the stages in order, each on its stage's IPU): the loss
    and gradients of the whole batch, ready for an optimizer step."""
    if not isinstance(stages, (list, tuple)) or not stages or not all(isinstance(s, Stage) for s in stages):
        raise BuildError(f"pd.pipeline: stages must be a non-empty list of pd.Stage, got {describe(stages)}")
    stages = list(stages)
    count = expect_int(micro_batches, "pd.pipeline: micro_batches", 1)
    if not isinstance(recompute, bool):
        raise BuildError(f"pd.pipeline: recompute must be True or False, got {describe(recompute)}")
    _check_placement(stages)
    rows = _micro_batch_rows(stages, count)
    cycles = pipeline_schedule(len(stages), count, schedule)
    run = _Run(stages, count, rows, recompute)
    for cycle in cycles:
        sends = [run.forward(s, m) if kind == "F" else run.backward(s, m) for kind, s, m in cycle]
        for send in sends:  # the cycle's copies between IPUs come after its compute
            send()
    return run.results()


def _tensors(values, what: str) -> list:
    values = [values] if isinstance(values, Tensor) else list(values) if isinstance(values, (list, tuple)) else None
    if values is None or not all(isinstance(t, Tensor) for t in values):
        raise BuildError(f"{what} must be a list of pd.Tensors")
    return values


def _check_placement(stages: list) -> None:
    graph = next((t.graph for s in stages for t in s.weights + s.inputs), None)
    if graph is None:
        raise BuildError("pd.pipeline: the stages have no weights and no inputs; give each stage the weights it "
                         "trains and the first stage its batch inputs")
    ipus = graph.top.getTarget().getNumIPUs()
    for k, s in enumerate(stages):
        if s.ipu >= ipus:
            raise BuildError(f"pd.pipeline: stage {k} {s!r} is on IPU {s.ipu}, but the graph has {ipus} IPU(s) per "
                             f"replica; make the device with pd.ipu_model(ipus=...)")
    for k in range(1, len(stages)):
        if stages[k].ipu == stages[k - 1].ipu:
            raise BuildError(f"pd.pipeline: stages {k - 1} and {k} are both on IPU {stages[k].ipu}; consecutive "
                             "stages run on different IPUs (merge them into one stage)")
    if not stages[0].inputs:
        raise BuildError("pd.pipeline: the first stage needs inputs= (the batch tensors its micro-batches come from)")


def _micro_batch_rows(stages: list, count: int) -> int:
    """Rows per micro-batch: every stage input's batch (first axis) split in `count`."""
    batch = None
    for k, s in enumerate(stages):
        for i, t in enumerate(s.inputs):
            if t.ndim == 0:
                raise BuildError(f"pd.pipeline: stage {k} inputs[{i}] {t!r} is a scalar; inputs have a batch axis "
                                 "first")
            if batch is None:
                batch = t.shape[0]
            elif t.shape[0] != batch:
                raise BuildError(f"pd.pipeline: stage {k} inputs[{i}] {t!r} has {t.shape[0]} rows, but the first "
                                 f"input has {batch}; every input is split along its first axis the same way")
    if batch % count:
        raise BuildError(f"pd.pipeline: micro_batches={count} does not divide the batch of {batch} rows")
    return batch // count


class _Run:
    """The tensors of one pipeline while its schedule is built: each (stage, micro-batch)'s
    inputs (from the previous stage or the batch), outputs, and output gradients."""

    def __init__(self, stages, count, rows, recompute):
        self.stages, self.count, self.rows, self.recompute = stages, count, rows, recompute
        self.received = {}  # (stage, m) -> the previous stage's outputs, on this stage's IPU
        self.outputs = {}  # (stage, m) -> the outputs its forward made
        self.output_grads = {}  # (stage, m) -> the gradients of its float outputs, from the next stage
        self.losses = []
        self.grads = [None] * sum(len(s.weights) for s in stages)  # running sums, in weight order

    def _inputs(self, s, m) -> list:
        rows = slice(m * self.rows, (m + 1) * self.rows)
        return self.received.get((s, m), []) + [t[rows] for t in self.stages[s].inputs]

    def _call(self, s, m) -> list:
        stage = self.stages[s]
        result = stage.fn(*self._inputs(s, m))
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        if not outputs or not all(isinstance(t, Tensor) for t in outputs):
            raise BuildError(f"pd.pipeline: stage {s} {stage!r} must return a pd.Tensor or a tuple of them, got "
                             f"{describe(result)}")
        if s == len(self.stages) - 1 and (len(outputs) != 1 or outputs[0].size != 1
                                          or not is_floating(outputs[0].dtype)):
            raise BuildError(f"pd.pipeline: the last stage {stage!r} must return its micro-batch's loss, one float "
                             f"element, got {describe(result)}")
        return outputs

    def forward(self, s, m):
        """Builds stage s's forward of micro-batch m; returns what sends its outputs on."""
        with on_ipu(self.stages[s].ipu), name_scope(f"pipeline/stage{s}/forward{m}"):
            outputs = self.outputs[s, m] = self._call(s, m)
        if s == len(self.stages) - 1:
            self.losses.append(outputs[0])
            return lambda: None

        def send():
            with name_scope(f"pipeline/stage{s}/forward{m}"):
                self.received[s + 1, m] = [ipu_copy(t, self.stages[s + 1].ipu) for t in outputs]
        return send

    def backward(self, s, m):
        """Builds stage s's backward of micro-batch m (and adds its weight gradients to the
        sums); returns what sends its input gradients back."""
        stage, last = self.stages[s], s == len(self.stages) - 1
        received = self.received.get((s, m), [])
        wrt_inputs = [t for t in received if is_floating(t.dtype)]
        wrt = wrt_inputs + stage.weights
        if not wrt:
            return lambda: None
        with on_ipu(stage.ipu), name_scope(f"pipeline/stage{s}/backward{m}"):
            outputs = self._call(s, m) if self.recompute and not last else self.outputs[s, m]
            if last:
                grads = grad(outputs[0], wrt)
            else:
                seeds = [(y, g) for y, g in zip(outputs, self.output_grads.get((s, m), [])) if g is not None]
                if not seeds:
                    raise BuildError(f"pd.pipeline: no gradient reaches stage {s} {stage!r} from the next stage "
                                     "(it takes none of this stage's float outputs); the stage's weights would "
                                     "get no gradient")
                grads = _summed([grad(y, wrt, grad_y=g) for y, g in seeds])
            self._accumulate(s, grads[len(wrt_inputs):])
        input_grads = iter(grads[:len(wrt_inputs)])
        if s == 0:
            return lambda: None

        def send():
            with name_scope(f"pipeline/stage{s}/backward{m}"):
                self.output_grads[s - 1, m] = [ipu_copy(next(input_grads), self.stages[s - 1].ipu)
                                               if is_floating(t.dtype) else None for t in received]
        return send

    def _accumulate(self, s, grads) -> None:
        first = sum(len(st.weights) for st in self.stages[:s])
        for k, g in enumerate(grads):
            total = self.grads[first + k]
            if total is None:
                self.grads[first + k] = g  # pd.grad's results are tensors of their own
            else:
                total += g

    def results(self):
        with on_ipu(self.stages[-1].ipu), name_scope("pipeline/loss"):
            parts = [l.reshape((1,)) for l in self.losses]
            loss = mean(ops.concat(parts) if len(parts) > 1 else parts[0]).reshape(self.losses[0].shape)
        first = 0
        for k, stage in enumerate(self.stages):
            with on_ipu(stage.ipu), name_scope(f"pipeline/stage{k}/gradients"):
                for i in range(first, first + len(stage.weights)):
                    if self.count > 1:
                        self.grads[i] *= 1.0 / self.count
            first += len(stage.weights)
        return loss, self.grads


def _summed(grad_lists: list) -> list:
    """The element-wise sums of several outputs' gradient lists (one output: its list)."""
    total = grad_lists[0]
    for more in grad_lists[1:]:
        total = [a + b for a, b in zip(total, more)]
    return total
