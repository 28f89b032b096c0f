"""Gradient clipping by global norm, as PyTorch's ``torch.nn.utils.clip_grad_norm_``."""
from typing import Optional, Sequence, Union

from popdsl._core.popops import expr as pe
from popdsl.debug import BuildError, describe
from popdsl.dtypes import float32, is_floating
from popdsl.ops import cast, map as _map, map_
from popdsl.reductions import reduce_sum_squares
from popdsl.replication import all_reduce
from popdsl.tensor import Tensor

__all__ = ["clip_grad_norm"]


def clip_grad_norm(grads: Union[Tensor, Sequence[Tensor]], max_norm: float, across_replicas: bool = False,
                   loss_scale: Optional[object] = None) -> Tensor:
    """Scales grads in place by min(1, max_norm / (norm + 1e-6)), norm the 2-norm of all of
    them together, and returns that norm (float32 [1], before clipping), as
    ``torch.nn.utils.clip_grad_norm_``. Sums are float32 whatever the gradients' dtype.
    across_replicas: the norm of every replica's gradients together (for gradients not yet
    all-reduced, or sharded over the replicas). loss_scale: the gradients are those of a
    scaled loss (pd.optim.LossScale), so norm and max_norm compare unscaled; an inf or NaN
    gradient gives an inf or NaN norm, which the optimiser's loss-scale guard then skips."""
    grads = [grads] if isinstance(grads, Tensor) else list(grads)
    if not grads or not all(isinstance(g, Tensor) and is_floating(g.dtype) for g in grads):
        raise BuildError(f"pd.optim.clip_grad_norm: grads must be float pd.Tensors, got {describe(grads)}")
    if isinstance(max_norm, bool) or not isinstance(max_norm, (int, float)) or not max_norm > 0:
        raise BuildError(f"pd.optim.clip_grad_norm: max_norm must be a number > 0, got {describe(max_norm)}")
    squares = [reduce_sum_squares(g.flatten() if g.dtype == float32 else cast(g.flatten(), float32), 0).reshape(1)
               for g in grads]
    total = squares[0]
    for part in squares[1:]:
        total = total + part
    if across_replicas:
        total = all_reduce(total)
    if loss_scale is None:
        norm = _map(pe.Sqrt, total)
    else:
        norm = _map(lambda t, s: pe.Sqrt(t) / s, total, loss_scale._scale_tensor(total.graph))
    limit = float(max_norm)
    coefficient = _map(lambda n: pe.Min(limit / (n + 1e-6), 1.0), norm)
    for g in grads:
        map_(lambda g_, c: g_ * c, g, (coefficient if g.dtype == float32 else cast(coefficient, g.dtype))
             .reshape([1] * g.ndim))
    return norm
