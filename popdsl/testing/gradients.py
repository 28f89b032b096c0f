"""check_grads: pd.grad against central finite differences (and torch's autograd)."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np
from numpy.typing import ArrayLike

import popdsl as pd
from popdsl._core import poplar
from popdsl.dtypes import numpy_dtype
from popdsl.tensor import Tensor


# (rtol, atol) by the inputs' dtype: central differences at eps=1e-3 in float32 lose ~1e-4,
# a float16 backward rounds each op at ~5e-4 and its sums of partial gradients grow that.
TOLERANCES = {np.dtype(np.float32): (1e-2, 1e-3), np.dtype(np.float16): (3e-2, 1e-2)}


def check_grads(fn: Callable[..., Tensor], inputs: Sequence[ArrayLike], eps: float = 1e-3,
                rtol: Optional[float] = None, atol: Optional[float] = None, seed: int = 0,
                torch_fn: Optional[Callable] = None, device: Optional[poplar.Device] = None) -> list:
    """Checks pd.grad of `fn` (a function of pd.Tensors returning a float pd.Tensor) at
    `inputs` (host arrays: float ones are differentiated, integer ones, such as labels,
    are passed as they are) and returns the gradients pd.grad gave, one per float input.

    With a random output gradient c, pd.grad's vector-Jacobian product is compared, element
    by element, with central differences of sum(c * fn(x)) in float64 on the host, fn
    being run on the device at x +- eps in each element. float16 inputs are differentiated
    in float16, against the differences of fn built again in float32 (a float16 forward
    cannot resolve eps), with float16's tolerance. When `torch_fn` (the same function on
    float64 torch tensors) is given and torch is importable, it is compared with torch's
    autograd too. A mismatch raises an AssertionError naming the input and the element.
    """
    arrays = [np.asarray(a) for a in inputs]
    arrays = [a.astype(np.float32) if a.dtype == np.float64 else a for a in arrays]
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    half = any(arrays[i].dtype == np.float16 for i in floats)
    default_rtol, default_atol = TOLERANCES[np.dtype(np.float16 if half else np.float32)]
    rtol, atol = default_rtol if rtol is None else rtol, default_atol if atol is None else atol
    dev = device or pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    xs = [g.variable(a.dtype, a.shape, name=f"input{i}") for i, a in enumerate(arrays)]
    arrays_at = [a.astype(np.float32) if a.dtype == np.float16 else a for a in arrays]  # for the differences
    xs_at = [x if a.dtype == b.dtype else g.variable(b.dtype, b.shape, name=f"input{i}/float32")
             for i, (x, a, b) in enumerate(zip(xs, arrays, arrays_at))]
    with pd.Sequence("forward") as forward:
        y = fn(*xs_at)
        out = pd.cast(y, y.dtype)  # a tensor of its own, readable whatever fn returned
    with pd.Sequence("backward") as backward:
        y = fn(*xs)
        cotangent = g.variable(y.dtype, y.shape, name="cotangent")
        grads = pd.grad(y, [xs[i] for i in floats], grad_y=cotangent)
    c = np.random.default_rng(seed).standard_normal(y.shape).astype(numpy_dtype(y.dtype))

    with pd.Session(g, {"forward": forward, "backward": backward}, device=dev) as s:
        for x, a in list(zip(xs, arrays)) + list(zip(xs_at, arrays_at)):
            s.write(x, a)
        s.write(cotangent, c)
        s.run("backward")
        results = [s.read(t).astype(np.float64) for t in grads]

        def objective(i, index, step):
            moved = arrays_at[i].copy()
            moved[index] += step
            s.write(xs_at[i], moved)
            s.run("forward")
            s.write(xs_at[i], arrays_at[i])
            return float(np.sum(c.astype(np.float64) * s.read(out).astype(np.float64)))

        for i, got in zip(floats, results):
            numeric = np.zeros(arrays[i].shape)
            for index in np.ndindex(arrays[i].shape):
                numeric[index] = (objective(i, index, eps) - objective(i, index, -eps)) / (2 * eps)
            _compare(got, numeric, f"input {i}: pd.grad against central differences", rtol, atol)
    if torch_fn is not None:
        _compare_with_torch(torch_fn, arrays, floats, c, results, rtol, atol)
    return results


def _compare(got, expected, what, rtol, atol):
    error = np.abs(got - expected) - (atol + rtol * np.abs(expected))
    if np.any(error > 0) or got.shape != expected.shape:
        worst = np.unravel_index(np.argmax(error), error.shape) if error.size else ()
        raise AssertionError(f"{what}: the gradients differ (rtol={rtol}, atol={atol}); worst at element "
                             f"{tuple(int(i) for i in worst)}: {got[worst]} against {expected[worst]}\n"
                             f"pd.grad:\n{got}\nexpected:\n{expected}")


def _compare_with_torch(torch_fn, arrays, floats, c, results, rtol, atol):
    try:
        import torch
    except ImportError:
        return
    tensors = [torch.tensor(a.astype(np.float64), requires_grad=True) if i in floats
               else torch.tensor(a.astype(np.int64)) for i, a in enumerate(arrays)]  # torch's index type
    y = torch_fn(*tensors)
    y.backward(torch.tensor(c.astype(np.float64)).reshape(y.shape))
    for i, got in zip(floats, results):
        grad = tensors[i].grad  # None where y does not depend on the input
        expected = np.zeros(got.shape) if grad is None else grad.numpy()
        _compare(got, expected, f"input {i}: pd.grad against torch's autograd", rtol, atol)
