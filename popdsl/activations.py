"""Activations by their common names, over popnn's non-linearities (so pd.grad differentiates
them with popnn's input gradients): pd.gelu with torch's `approximate=` and pd.softmax over
any axis."""
from typing import Optional

from popdsl.control import Block
from popdsl.debug import BuildError, describe, expect_int
from popdsl.dtypes import is_floating
from popdsl.ops import nonlinearity
from popdsl.tensor import Tensor, expect_tensor

__all__ = ["gelu", "softmax"]

_GELU_KINDS = {"tanh": "gelu", "none": "gelu_erf"}


def gelu(x: Tensor, approximate: str = "none", name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """x * Phi(x), Phi the standard normal's distribution function, as torch.nn.functional.gelu:
    approximate="none" (the default) computes it with erf, "tanh" with the tanh approximation
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    _expect_float(x, "pd.gelu: x")
    if approximate not in _GELU_KINDS:
        raise BuildError(f"pd.gelu: approximate must be 'none' or 'tanh' (torch's names), got {describe(approximate)}")
    return nonlinearity(x, _GELU_KINDS[approximate], name=name, prog=prog)


def softmax(x: Tensor, axis: int = -1, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis`, computed stably (the row's maximum subtracted
    first: popnn's SOFTMAX_STABLE)."""
    _expect_float(x, "pd.softmax: x")
    if x.ndim == 0:
        raise BuildError(f"pd.softmax: x must have an axis to normalise over, got {x!r}")
    axis = expect_int(axis, "pd.softmax: axis", -x.ndim, x.ndim - 1) % x.ndim
    last = x.ndim - 1
    if axis == last:
        return nonlinearity(x, "softmax_stable", name=name, prog=prog)
    swap = list(range(x.ndim))
    swap[axis], swap[last] = last, axis  # its own inverse
    return nonlinearity(x.transpose(*swap), "softmax_stable", name=name, prog=prog).transpose(*swap)


def _expect_float(x, what: str) -> None:
    expect_tensor(x, what)
    if not is_floating(x.dtype):
        raise BuildError(f"{what} must be a float tensor, got {x!r}")
