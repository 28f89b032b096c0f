"""Layer and group normalisation on popnn's group normalisation (popnn.gn), their gradients
popnn's too: pd.grad meets each as one op whose gradient builder calls groupNormGradients
and groupNormParamGradients."""
import math

import numpy as np

import popdsl as pd
from popdsl._core import poplar, popnn
from popdsl.debug import BuildError, expect_int
from popdsl.dtypes import is_floating
from popdsl.ops import _run_library
from popdsl.tensor import Tensor, expect_tensor

# PyTorch's grouping: group g holds the consecutive channels g * C / groups + k.
_CONSECUTIVE_GROUPS = {"groupNormStridedChannelGrouping": "false"}


def _statistics(graph, acts, groups, eps, seq, dc):
    return popnn.gn.groupNormStatistics(graph.raw, acts.raw, eps, seq, groups, False, False, poplar.FLOAT, dc,
                                        _CONSECUTIVE_GROUPS)


def _param_or(param, acts, fill):
    """param, or a [C] constant of `fill` standing in for an absent one."""
    if param is not None:
        return param
    return acts.graph.constant(np.full(acts.shape[1], fill), acts.dtype, name="norm parameter")


def _normalise_vjp(grads, outputs, acts, gamma, beta, groups, eps):
    """[d acts, d gamma (if given), d beta (if given)] through popnn's gradient functions; the
    statistics are computed again rather than kept."""
    graph, scale = acts.graph, _param_or(gamma, acts, 1.0)

    def build(seq, dc):
        mean, inv = _statistics(graph, acts, groups, eps, seq, dc)
        whitened = popnn.gn.groupNormWhiten(graph.raw, acts.raw, mean, inv, seq, dc, _CONSECUTIVE_GROUPS)
        d_acts = popnn.gn.groupNormGradients(graph.raw, whitened, grads[0].raw, inv, scale.raw, seq, poplar.FLOAT,
                                             dc, _CONSECUTIVE_GROUPS)
        d_gamma, d_beta = popnn.gn.groupNormParamGradients(graph.raw, whitened, grads[0].raw, seq, poplar.FLOAT, dc,
                                                           _CONSECUTIVE_GROUPS)
        return d_acts, d_gamma, d_beta
    raw = _run_library(build, "normalisation gradient", None)
    d_acts, d_gamma, d_beta = (graph.track(Tensor(t, graph)) for t in raw)
    return [d_acts] + [d for d, given in ((d_gamma, gamma), (d_beta, beta)) if given is not None]


@pd.custom_grad(_normalise_vjp, name="pd.nn.layer_norm/group_norm")
def _group_normalise(acts, gamma, beta, groups, eps):
    """acts [B][C][...F...] normalised per batch element and group of consecutive channels,
    then scaled by gamma and shifted by beta ([C] each, or None)."""
    graph = acts.graph
    scale, shift = _param_or(gamma, acts, 1.0), _param_or(beta, acts, 0.0)

    def build(seq, dc):
        mean, inv = _statistics(graph, acts, groups, eps, seq, dc)
        return popnn.gn.groupNormalise(graph.raw, acts.raw, scale.raw, shift.raw, mean, inv, seq, dc,
                                       _CONSECUTIVE_GROUPS)[0]
    return graph.track(Tensor(_run_library(build, None, None), graph))


def _check_affine(x, gamma, beta, shape, what):
    """gamma and beta are None or tensors of x's graph and dtype, of math.prod(shape) elements."""
    for t, label in ((gamma, "gamma"), (beta, "beta")):
        if t is not None:
            expect_tensor(t, f"{what}: {label}", x.graph, "x")
            if t.size != math.prod(shape) or t.dtype != x.dtype:
                raise BuildError(f"{what}: {label} must be a {x.dtype} tensor of {math.prod(shape)} elements, "
                                 f"got {t!r}")


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
    # One group over [rows][the normalised elements], each element its own "channel".
    size = math.prod(x.shape[x.ndim - axes:])
    rows = x.reshape(math.prod(x.shape[:x.ndim - axes]), size)
    flat = [None if t is None else t.reshape(size) for t in (gamma, beta)]
    return _group_normalise(rows, *flat, 1, float(eps)).reshape(x.shape)


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
    flat = [None if t is None else t.reshape(channels) for t in (gamma, beta)]
    return _group_normalise(x, *flat, groups, float(eps))
