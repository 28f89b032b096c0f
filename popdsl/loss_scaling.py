"""Loss scaling for float16 training, as torch.cuda.amp.GradScaler and PopTorch/popxl do it:
the loss is multiplied by a scale before pd.grad so small gradients survive float16, and
the optimiser divides them by it (in float32) before the update.

A dynamic scale (the default) also guards the step: when any gradient is inf or NaN the
whole update is skipped (the optimiser's step count too) and the scale is multiplied by
`backoff_factor`; after `growth_interval` steps in a row without one it is multiplied by
`growth_factor`. A static scale (dynamic=False) only scales. The scale is a one-element
float32 session weight (`LossScale.tensor`): saved with the session, readable and writable."""
import math
from typing import ContextManager, Optional, Sequence

from popdsl._core.popops import expr as pe
from popdsl.control import Else, If
from popdsl.debug import BuildError, describe
from popdsl.dtypes import float32
from popdsl.ops import cast, logical_and, map as _map, map_
from popdsl.reductions import reduce_all
from popdsl.replication import all_reduce
from popdsl.tensor import Tensor, expect_tensor

__all__ = ["LossScale"]


class LossScale:
    """`grads = pd.grad(scaler.scale(loss), weights); opt.step(weights, grads, loss_scale=scaler)`.
    Defaults are GradScaler's: init_scale 2**16, growth_factor 2, backoff_factor 0.5,
    growth_interval 2000."""

    def __init__(self, init_scale: float = 2.0 ** 16, dynamic: bool = True, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, name: str = "loss_scale"):
        self.init_scale = _positive(init_scale, "init_scale")
        self.dynamic = bool(dynamic)
        self.growth_factor = _positive(growth_factor, "growth_factor", minimum=1.0)
        self.backoff_factor = _positive(backoff_factor, "backoff_factor", maximum=1.0)
        if isinstance(growth_interval, bool) or not isinstance(growth_interval, int) or growth_interval < 1:
            raise BuildError(f"pd.optim.LossScale: growth_interval must be an int >= 1, got {describe(growth_interval)}")
        self.growth_interval = growth_interval
        self.name = name
        self.tensor: Optional[Tensor] = None  # the scale, float32 [1], made on first use
        self._good_steps: Optional[Tensor] = None  # steps since the last overflow or growth

    def scale(self, loss: Tensor) -> Tensor:
        """loss times the scale, in the loss's dtype: differentiate this instead of the loss."""
        expect_tensor(loss, "LossScale.scale: loss")
        scale = self._scale_tensor(loss.graph)
        return loss * (scale if loss.dtype == float32 else cast(scale, loss.dtype)).reshape([1] * loss.ndim)

    def unscaled(self, g: Tensor) -> Tensor:
        """g in float32, divided by the scale."""
        scale = self._scale_tensor(g.graph).reshape([1] * g.ndim)
        return (g if g.dtype == float32 else cast(g, float32)) / scale

    def guard(self, grads: Sequence[Tensor], across_replicas: bool = False) -> ContextManager[object]:
        """A context for the update: with a dynamic scale, an If on every gradient being finite
        (the scale grows after growth_interval of them) with an Else that backs the scale off;
        with a static one, the update runs unguarded. across_replicas: the gradients differ
        between the replicas (chunks of gradients sharded over them), so every replica's must
        be finite and all replicas take the same branch."""
        return _Guard(self, grads, across_replicas)

    def _scale_tensor(self, graph) -> Tensor:
        if self.tensor is None:
            self.tensor = graph.variable(float32, (1,), name=f"optim/{self.name}", init=self.init_scale)
            self._good_steps = graph.variable(float32, (1,), name=f"optim/{self.name}/good_steps", init=0.0)
        elif self.tensor.graph is not graph:
            raise BuildError(f"pd.optim.LossScale {self.name!r} belongs to another graph")
        return self.tensor

    def _all_finite(self, grads, across_replicas: bool) -> Tensor:
        """bool [1]: no inf or NaN in any of grads (of any replica's, across_replicas)."""
        flags = [reduce_all(_map(pe.IsFinite, g).flatten(), 0).reshape(1) for g in grads]
        ok = flags[0]
        for flag in flags[1:]:
            ok = logical_and(ok, flag)
        return all_reduce(ok, op="and") if across_replicas else ok

    def _grow(self):
        """After a finite step: count it, and every growth_interval of them grow the scale."""
        interval, factor = float(self.growth_interval), self.growth_factor
        map_(lambda n: n + 1.0, self._good_steps)
        map_(lambda s, n: pe.Select(s * factor, s, n >= interval), self.tensor, self._good_steps)
        map_(lambda n: pe.Select(n * 0.0, n, n >= interval), self._good_steps)

    def _back_off(self):
        """After an overflow: shrink the scale (never below float32's smallest normal) and restart the count."""
        backoff, smallest = self.backoff_factor, math.ldexp(1.0, -126)
        map_(lambda s: pe.Max(s * backoff, smallest), self.tensor)
        map_(lambda n: n * 0.0, self._good_steps)


class _Guard:
    """LossScale.guard's context manager."""

    def __init__(self, scaler: LossScale, grads, across_replicas: bool):
        self.scaler, self.grads, self.branch = scaler, list(grads), None
        self.across_replicas = across_replicas

    def __enter__(self):
        if not self.scaler.dynamic:
            return self
        self.scaler._scale_tensor(self.grads[0].graph)
        self.branch = If(self.scaler._all_finite(self.grads, self.across_replicas),
                         name=f"optim/{self.scaler.name}/finite")
        self.branch.__enter__()
        return self

    def __exit__(self, kind, value, traceback):
        if self.branch is None:
            return False
        if kind is not None:
            return self.branch.__exit__(kind, value, traceback)
        self.scaler._grow()
        self.branch.__exit__(None, None, None)
        with Else():
            self.scaler._back_off()
        return False


def _positive(value, what: str, minimum: float = 0.0, maximum: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not (minimum < value <= maximum if minimum == 0.0 else minimum <= value <= maximum):
        raise BuildError(f"pd.optim.LossScale: {what} must be a finite number in "
                         f"{'(0' if minimum == 0.0 else f'[{minimum}'}, {maximum}], got {describe(value)}")
    return float(value)
