"""Losses and log-softmax, composed of the layer's ops (so pd.grad differentiates them)."""

from __future__ import annotations

import numpy as np

import popdsl as pd
from popdsl._core.popops import expr as pe
from popdsl.debug import BuildError, expect_int
from popdsl.dtypes import as_type, is_floating, DType


def log_softmax(x: pd.Tensor) -> pd.Tensor:
    """log(softmax(x)) over the last axis: x - logsumexp(x)."""
    _expect_float(x, "pd.nn.log_softmax: x")
    if x.ndim == 0:
        raise BuildError(f"pd.nn.log_softmax: x must have an axis to normalise over, got {x!r}")
    return x - pd.reduce_logsumexp(x, x.ndim - 1).expand(-1)


def cross_entropy(logits: pd.Tensor, labels: pd.Tensor, ignore_index: int = -100) -> pd.Tensor:
    """The mean over the rows of -log_softmax(logits)[row, label] for logits [..., C] and
    integer labels [...] (the classes last, as optax's; torch's [N, C, d...] moves its class
    axis last for this), leaving out rows labelled `ignore_index`: their gradient is zero.
    A batch with every row ignored gives 0 (PyTorch gives NaN, which would poison
    optimiser state). A label outside [0, C) other than ignore_index makes the loss NaN
    (PyTorch raises; a device cannot), so the mistake shows in the loss and a dynamic
    pd.optim.LossScale skips the step."""
    _expect_float(logits, "pd.nn.cross_entropy: logits")
    ignore_index = expect_int(ignore_index, "pd.nn.cross_entropy: ignore_index", -2 ** 31, 2 ** 31 - 1)
    if logits.ndim < 2 or not isinstance(labels, pd.Tensor) or labels.shape != logits.shape[:-1] \
            or is_floating(labels.dtype):
        raise BuildError(f"pd.nn.cross_entropy: logits must be [..., C] and labels [...] integers of the same "
                         f"leading shape, got {logits!r} and {labels!r}")
    if logits.ndim > 2:  # every position is a row
        logits, labels = logits.reshape(-1, logits.shape[-1]), labels.reshape(-1)
    kept = pd.map(lambda y: pe.Cast(y != ignore_index, logits.dtype), labels.astype(pd.int32).expand(1))
    picked = pd.reduce_sum(log_softmax(logits) * one_hot(labels, logits.shape[1], logits.dtype) * kept, 1)
    count = pd.map(lambda n: pd.max(n, 1.0), kept.sum())
    classes = logits.shape[1]
    invalid = pd.map(lambda y: pe.Cast(pe.And(y != ignore_index, pe.Or(y < 0, y >= classes)), logits.dtype),
                     labels.astype(pd.int32))
    return pd.map(lambda total, n, bad: pe.Select(-total / n, pe.Const(float("nan")), bad == 0.0),
                  picked.sum(), count, invalid.sum())


def one_hot(labels: pd.Tensor, classes: int, dtype: DType = pd.float32) -> pd.Tensor:
    """`[*labels.shape, classes]`: 1 where the last index equals the label, else 0 (a label
    outside [0, classes) gives a row of zeros)."""
    if not isinstance(labels, pd.Tensor) or is_floating(labels.dtype):
        raise BuildError(f"pd.nn.one_hot: labels must be an integer pd.Tensor, got {labels!r}")
    classes = expect_int(classes, "pd.nn.one_hot: classes", 1)
    dtype = as_type(dtype, "pd.nn.one_hot: dtype")
    indices = labels.graph.constant(np.arange(classes, dtype=np.int32), name="one_hot/classes")
    return pd.map(lambda c, y: pe.Cast(c == y, dtype), indices, labels.astype(pd.int32).expand(-1))


def mse(prediction: pd.Tensor, target: pd.Tensor) -> pd.Tensor:
    """The mean of (prediction - target)**2 over every element."""
    _expect_float(prediction, "pd.nn.mse: prediction")
    if not isinstance(target, pd.Tensor) or target.shape != prediction.shape:
        raise BuildError(f"pd.nn.mse: target must be a tensor shaped like prediction {prediction.shape}, "
                         f"got {target!r}")
    return pd.reduce_sum_squares(prediction - target) * (1.0 / max(prediction.size, 1))


def _expect_float(t, what):
    if not isinstance(t, pd.Tensor) or not is_floating(t.dtype):
        raise BuildError(f"{what} must be a float pd.Tensor, got {t!r}")
