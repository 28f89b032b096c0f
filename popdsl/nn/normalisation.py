"""Layer and group normalisation, composed of the layer's ops (so pd.grad differentiates
them): the emulator binds no popnn normalisation, and the composition is what those
functions compute."""
import math

import popdsl as pd
from popdsl.debug import BuildError, expect_int
from popdsl.dtypes import is_floating
from popdsl.tensor import expect_tensor


def _normalised(x: pd.Tensor, axes, eps: float) -> pd.Tensor:
    """(x - mean) / sqrt(var + eps), the statistics over `axes` (kept for broadcasting)."""
    kept = [1 if i in axes else d for i, d in enumerate(x.shape)]
    centred = x - pd.mean(x, axes).reshape(kept)
    scale = pd.map(lambda v: pd.rsqrt(v + eps), pd.mean(pd.square(centred), axes)).reshape(kept)
    return centred * scale


def _check_affine(x, gamma, beta, shape, what):
    """gamma and beta are None or tensors of x's graph and dtype, of math.prod(shape) elements."""
    for t, label in ((gamma, "gamma"), (beta, "beta")):
        if t is not None:
            expect_tensor(t, f"{what}: {label}", x.graph, "x")
            if t.size != math.prod(shape) or t.dtype != x.dtype:
                raise BuildError(f"{what}: {label} must be a {x.dtype} tensor of {math.prod(shape)} elements, "
                                 f"got {t!r}")


def _affine(y, gamma, beta, shape):
    """y * gamma + beta, each reshaped to `shape` for broadcasting (either may be None)."""
    if gamma is not None:
        y = y * gamma.reshape(shape)
    return y + beta.reshape(shape) if beta is not None else y


def _expect_float(x, what):
    if not isinstance(x, pd.Tensor) or not is_floating(x.dtype):
        raise BuildError(f"{what}: x must be a float pd.Tensor, got {x!r}")


def layer_norm(x: pd.Tensor, gamma: pd.Tensor = None, beta: pd.Tensor = None, axes: int = 1,
               eps: float = 1e-5) -> pd.Tensor:
    """Normalises x over its last `axes` dimensions to zero mean and unit variance, then
    scales by gamma and shifts by beta (each shaped like those dimensions, or None), as
    torch.nn.functional.layer_norm."""
    _expect_float(x, "pd.nn.layer_norm")
    axes = expect_int(axes, "pd.nn.layer_norm: axes", 1, max(x.ndim, 1))
    normalised = list(range(x.ndim - axes, x.ndim))
    shape = [d if i in normalised else 1 for i, d in enumerate(x.shape)]
    _check_affine(x, gamma, beta, shape, "pd.nn.layer_norm")
    return _affine(_normalised(x, normalised, float(eps)), gamma, beta, shape)


def group_norm(x: pd.Tensor, groups: int, gamma: pd.Tensor = None, beta: pd.Tensor = None,
               eps: float = 1e-5) -> pd.Tensor:
    """x [batch][channels][field...] normalised over each group of channels (channels split
    into `groups` consecutive groups) and its field, then scaled and shifted per channel
    by gamma and beta ([channels], or None), as torch.nn.functional.group_norm."""
    _expect_float(x, "pd.nn.group_norm")
    if x.ndim < 2:
        raise BuildError(f"pd.nn.group_norm: x must be [batch][channels][field...], got {x!r}")
    channels = x.shape[1]
    groups = expect_int(groups, "pd.nn.group_norm: groups", 1, channels)
    if channels % groups:
        raise BuildError(f"pd.nn.group_norm: {channels} channels do not split into {groups} groups")
    shape = [1, channels] + [1] * (x.ndim - 2)
    _check_affine(x, gamma, beta, shape, "pd.nn.group_norm")
    grouped = x.reshape(x.shape[0], groups, -1)
    return _affine(_normalised(grouped, [2], float(eps)).reshape(x.shape), gamma, beta, shape)
