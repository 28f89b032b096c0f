"""Gradient accumulation: float32 sums of the gradients of several micro-batches, for one
optimizer step on their mean (PopTorch's gradientAccumulation, popxl's ``accumulate_`` ops)::

    accumulator = pd.optim.GradientAccumulator(weights)
    with pd.Repeat(micro_batches):
        loss = model(samples.read())
        accumulator.add(pd.grad(loss, weights))
    opt.step(weights, accumulator.mean())
    accumulator.zero()

With each micro-batch's loss a mean over its rows, the step equals one on the whole batch.
The sums and their count are session weights, so accumulation may also span runs."""
from typing import List, Sequence

import numpy as np

from popdsl.debug import BuildError, describe
from popdsl.dtypes import float32, is_floating
from popdsl.ops import cast, map as _map, map_, zero
from popdsl.tensor import Tensor

__all__ = ["GradientAccumulator"]


class GradientAccumulator:
    """float32 running sums of gradients, one per weight, and how many were added."""

    def __init__(self, weights: Sequence[Tensor], name: str = "accumulated"):
        self.weights = [weights] if isinstance(weights, Tensor) else list(weights)
        if not self.weights or not all(isinstance(w, Tensor) and is_floating(w.dtype) for w in self.weights):
            raise BuildError(f"pd.optim.GradientAccumulator: weights must be float pd.Tensors, "
                             f"got {describe(weights)}")
        graph = self.weights[0].graph
        self.sums = [graph.variable(float32, w.shape, name=f"{w.name}/{name}", init=np.zeros(w.shape))
                     for w in self.weights]
        self.count = graph.variable(float32, (1,), name=f"optim/{name}/count", init=0.0)

    def add(self, grads: Sequence[Tensor]) -> None:
        """Adds one micro-batch's gradients (one per weight, in order) to the sums."""
        grads = [grads] if isinstance(grads, Tensor) else list(grads)
        if len(grads) != len(self.weights):
            raise BuildError(f"GradientAccumulator.add: needs one gradient per weight ({len(self.weights)}), "
                             f"got {len(grads)}")
        for i, (total, w, g) in enumerate(zip(self.sums, self.weights, grads)):
            if not isinstance(g, Tensor) or g.shape != w.shape:
                raise BuildError(f"GradientAccumulator.add: grads[{i}] must be shaped like weights[{i}] {w!r}, "
                                 f"got {describe(g)}")
            map_(lambda s, g_: s + g_, total, g if g.dtype == float32 else cast(g, float32))
        self.count += 1.0

    def mean(self) -> List[Tensor]:
        """The mean of the gradients added (float32), one per weight."""
        return [_map(lambda s, n: s / n, total, self.count.reshape([1] * total.ndim)) for total in self.sums]

    def zero(self) -> None:
        """Empties the sums for the next accumulation."""
        for total in self.sums:
            zero(total)
        zero(self.count)
