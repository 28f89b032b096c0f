"""check_grads: pd.grad against central finite differences (and torch's autograd)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, Sequence

import numpy as np
from numpy.typing import ArrayLike

import popdsl as pd
from popdsl._core import poplar

if TYPE_CHECKING:  # names for annotations only: popdsl's modules import each other
    from popdsl.tensor import Tensor


def check_grads(fn: Callable[..., Tensor], inputs: Sequence[ArrayLike], eps: float = 1e-3, rtol: float = 1e-2,
                atol: float = 1e-3, seed: int = 0, torch_fn: Optional[Callable] = None,
                device: Optional[poplar.Device] = None) -> list:
    """Checks pd.grad of `fn` (a function of pd.Tensors returning a float pd.Tensor) at
    `inputs` (host arrays: float ones are differentiated, integer ones, such as labels,
    are passed as they are) and returns the gradients pd.grad gave, one per float input.

    With a random output gradient c, pd.grad's vector-Jacobian product is compared, element
    by element, with central differences of sum(c * fn(x)) in float64 on the host, fn
    being run on the device at x +- eps in each element. When `torch_fn` (the same function
    on float64 torch tensors) is given and torch is importable, it is compared with torch's
    autograd too. A mismatch raises an AssertionError naming the input and the element.
    """
    arrays = [np.asarray(a) for a in inputs]
    arrays = [a.astype(np.float32) if a.dtype == np.float64 else a for a in arrays]
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    dev = device or pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    xs = [g.variable(a.dtype, a.shape, name=f"input{i}") for i, a in enumerate(arrays)]
    with pd.Sequence("forward") as forward:
        y = fn(*xs)
        out = pd.cast(y, y.dtype)  # a tensor of its own, readable whatever fn returned
    cotangent = g.variable(y.dtype, y.shape, name="cotangent")
    with pd.Sequence("backward") as backward:
        grads = pd.grad(fn(*xs), [xs[i] for i in floats], grad_y=cotangent)
    c = np.random.default_rng(seed).standard_normal(y.shape).astype(arrays[floats[0]].dtype)

    with pd.Session(g, {"forward": forward, "backward": backward}, device=dev) as s:
        for x, a in zip(xs, arrays):
            s.write(x, a)
        s.write(cotangent, c)
        s.run("backward")
        results = [s.read(t).astype(np.float64) for t in grads]

        def objective(i, index, step):
            moved = arrays[i].copy()
            moved[index] += step
            s.write(xs[i], moved)
            s.run("forward")
            s.write(xs[i], arrays[i])
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
    tensors = [torch.tensor(a.astype(np.float64) if i in floats else a, requires_grad=i in floats)
               for i, a in enumerate(arrays)]
    y = torch_fn(*tensors)
    y.backward(torch.tensor(c.astype(np.float64)))
    for i, got in zip(floats, results):
        _compare(got, tensors[i].grad.numpy(), f"input {i}: pd.grad against torch's autograd", rtol, atol)
