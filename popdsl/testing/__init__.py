"""Helpers for testing graphs: dtype-aware comparisons and float64 numpy references.

The pytest plugin (popdsl.testing.plugin, registered as an entry point) adds the
fixtures `ipu_device` and `session_factory`. check_grads (popdsl.testing.gradients) checks
pd.grad against finite differences.
"""
import numpy as np

from popdsl.dtypes import as_type, numpy_dtype

# (rtol, atol) by device dtype: float32 rounds at ~6e-8 per op, float16 at ~5e-4.
TOLERANCES = {
    np.dtype(np.float32): (1e-5, 1e-6),
    np.dtype(np.float16): (1e-2, 1e-3),
}


def tolerance(dtype) -> tuple:
    """(rtol, atol) for results computed in `dtype`; exact for integers and bool."""
    return TOLERANCES.get(numpy_dtype(as_type(dtype)) if not isinstance(dtype, np.dtype) else dtype, (0.0, 0.0))


def assert_close(actual, expected, dtype=None, rtol=None, atol=None, err_msg=""):
    """Compares a device result with a float64 reference using the device dtype's tolerance."""
    actual = np.asarray(actual)
    dtype = actual.dtype if dtype is None else numpy_dtype(as_type(dtype))
    default_rtol, default_atol = TOLERANCES.get(np.dtype(dtype), (0.0, 0.0))
    np.testing.assert_allclose(actual.astype(np.float64), np.asarray(expected, np.float64),
                               rtol=default_rtol if rtol is None else rtol,
                               atol=default_atol if atol is None else atol, err_msg=err_msg)


def reference(name: str, *args):
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
