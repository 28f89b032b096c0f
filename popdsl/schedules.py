"""Learning-rate schedules computed in the graph from the optimizer's step count, so a
whole training loop in one program (a pd.Repeat over steps) follows them: pass one as
`lr=` (pd.optim.Adam(lr=pd.optim.WarmupCosine(1e-3, total_steps=1000, warmup_steps=100))).
Calling a schedule with a step number gives the same value on the host, for a loop of
s.run calls that writes `opt.lr` itself, or to plot it.

Step t counts from 1: the value is the learning rate of the optimizer's t-th step."""
import math

from popdsl._core.popops import expr as pe
from popdsl.debug import BuildError, describe

__all__ = ["Schedule", "StepDecay", "WarmupCosine", "WarmupLinear"]


class Schedule:
    """A learning rate as a function of the step t (from 1): `expression(t)` builds it in a
    popops expression, `schedule(t)` computes it on the host. Subclasses define both from
    one formula over `_ops` (math's or the expression's functions)."""

    def __call__(self, step: int) -> float:
        if isinstance(step, bool) or not isinstance(step, int) or step < 1:
            raise BuildError(f"{type(self).__name__}: step must be an int >= 1, got {describe(step)}")
        return float(self._formula(float(step), _HOST))

    def expression(self, step: pe.Expr) -> pe.Expr:
        """The learning rate of step `step` (a float32 expression)."""
        return self._formula(step, _DEVICE)

    def _formula(self, t, ops):
        raise NotImplementedError

    def _warmup(self, t, ops, after):
        """peak * t / warmup_steps during the warmup, `after` later."""
        if not self.warmup_steps:
            return after
        return ops.select(self.peak * t / self.warmup_steps, after, ops.le(t, float(self.warmup_steps)))


class _WarmupDecay(Schedule):
    """Linear warmup to `peak` over warmup_steps, then a decay to min_lr at total_steps along
    `_decay(progress)` (progress from 0 to 1), min_lr afterwards."""

    def __init__(self, peak: float, total_steps: int, warmup_steps: int = 0, min_lr: float = 0.0):
        self.peak, self.min_lr = _rate(peak, "peak"), _rate(min_lr, "min_lr")
        self.total_steps, self.warmup_steps = _steps(total_steps, warmup_steps, type(self).__name__)

    def _formula(self, t, ops):
        span = float(self.total_steps - self.warmup_steps)
        return self._warmup(t, ops, self._decay(ops.min((t - self.warmup_steps) / span, 1.0), ops))


class WarmupCosine(_WarmupDecay):
    """Linear warmup to `peak` over warmup_steps, then a half cosine from peak to min_lr at
    total_steps (torch's CosineAnnealingLR after a linear warmup), min_lr afterwards."""

    def _decay(self, progress, ops):
        return self.min_lr + (self.peak - self.min_lr) * 0.5 * (1.0 + ops.cos(math.pi * progress))


class WarmupLinear(_WarmupDecay):
    """Linear warmup to `peak` over warmup_steps, then a straight line from peak to min_lr at
    total_steps, min_lr afterwards."""

    def _decay(self, progress, ops):
        return self.peak + (self.min_lr - self.peak) * progress


class StepDecay(Schedule):
    """peak * gamma ** floor((t - 1) / step_size) (torch's StepLR), after an optional linear warmup."""

    def __init__(self, peak: float, step_size: int, gamma: float = 0.1, warmup_steps: int = 0):
        self.peak, self.gamma = _rate(peak, "peak"), _rate(gamma, "gamma")
        self.step_size, self.warmup_steps = _steps(step_size, warmup_steps, type(self).__name__, "step_size")

    def _formula(self, t, ops):
        return self._warmup(t, ops, self.peak * ops.pow(self.gamma, ops.floor((t - 1.0) / self.step_size)))


class _HostOps:
    min, cos, floor, pow = staticmethod(min), staticmethod(math.cos), staticmethod(math.floor), staticmethod(pow)

    @staticmethod
    def select(a, b, condition):
        return a if condition else b

    @staticmethod
    def le(a, b):
        return a <= b


class _DeviceOps:
    min, cos, floor, pow = staticmethod(pe.Min), staticmethod(pe.Cos), staticmethod(pe.Floor), staticmethod(pe.Pow)
    select, le = staticmethod(pe.Select), staticmethod(pe.Lte)


_HOST, _DEVICE = _HostOps(), _DeviceOps()


def _rate(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise BuildError(f"pd.optim schedules: {what} must be a finite number >= 0, got {describe(value)}")
    return float(value)


def _steps(total, warmup, owner: str, what: str = "total_steps") -> tuple:
    for value, name in ((total, what), (warmup, "warmup_steps")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise BuildError(f"pd.optim.{owner}: {name} must be an int >= 0, got {describe(value)}")
    if what == "total_steps" and total <= warmup:
        raise BuildError(f"pd.optim.{owner}: total_steps ({total}) must exceed warmup_steps ({warmup})")
    if what == "step_size" and total < 1:
        raise BuildError(f"pd.optim.{owner}: step_size must be an int >= 1, got {total}")
    return total, warmup
