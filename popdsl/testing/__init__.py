"""Helpers for testing graphs: dtype-aware comparisons and float64 numpy references.

The pytest plugin (popdsl.testing.plugin, registered as an entry point) adds the
fixtures `ipu_device` and `session_factory`. check_grads (popdsl.testing.gradients) checks
pd.grad against finite differences.
"""

from __future__ import annotations

from typing import Optional

from numpy.typing import ArrayLike

import numpy as np

from popdsl._core import poplar
from popdsl.dtypes import numpy_dtype, DType

# (rtol, atol) by device dtype: float32 rounds at ~6e-8 per op, float16 at ~5e-4.
TOLERANCES = {
    np.dtype(np.float32): (1e-5, 1e-6),
    np.dtype(np.float16): (1e-2, 1e-3),
}


def _host_dtype(dtype) -> np.dtype:
    return numpy_dtype(dtype) if isinstance(dtype, poplar.Type) else np.dtype(dtype)


def tolerance(dtype: DType) -> tuple:
    """(rtol, atol) for results computed in `dtype` (a device type or a numpy dtype); exact
    for integers, bool and float64."""
    return TOLERANCES.get(_host_dtype(dtype), (0.0, 0.0))


def assert_close(actual: ArrayLike, expected: ArrayLike, dtype: Optional[DType] = None, rtol: Optional[float] = None,
                 atol: Optional[float] = None, err_msg: str = "") -> None:
    """Compares a device result with a float64 reference using the device dtype's tolerance
    (`dtype`, else the result's own). Fails on values outside it, NaN on one side only, shapes
    that differ (a scalar reference is compared with every element), a result whose dtype is
    not `dtype`, and results that are not numbers."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    where = f"{err_msg}: " if err_msg else ""
    if actual.dtype.kind not in "biuf":
        raise AssertionError(f"{where}the result has dtype {actual.dtype}, not a number")
    if dtype is not None and actual.dtype != _host_dtype(dtype):
        raise AssertionError(f"{where}the result has dtype {actual.dtype}, expected {_host_dtype(dtype)}")
    if expected.ndim and actual.shape != expected.shape:
        raise AssertionError(f"{where}the result has shape {actual.shape}, the reference {expected.shape}")
    default_rtol, default_atol = tolerance(actual.dtype)
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                               rtol=default_rtol if rtol is None else rtol,
                               atol=default_atol if atol is None else atol, err_msg=err_msg)


def reference(name: str, *args) -> np.ndarray:
    """float64 numpy references for the basic ops, by popdsl name."""
    x = [np.asarray(a, np.float64) for a in args]
    table = {
        "exp": lambda a: np.exp(a), "log": lambda a: np.log(a), "tanh": lambda a: np.tanh(a),
        "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "sqrt": lambda a: np.sqrt(a),
        "relu": lambda a: np.maximum(a, 0), "matmul": lambda a, b: a @ b,
        "softmax": lambda a: np.exp(a - a.max(-1, keepdims=True)) / np.exp(a - a.max(-1, keepdims=True)).sum(-1, keepdims=True),
    }
    if name not in table:
        raise KeyError(f"no reference for {name!r}; known: {sorted(table)}")
    return table[name](*x)


from popdsl.testing.gradients import check_grads  # noqa: E402,F401  (imports popdsl: last)
