"""Layers by torch.nn.functional's names, composed of the layer's ops (so pd.grad
differentiates them): a linear layer with torch's weight layout and an embedding lookup."""
from typing import Optional

import popdsl as pd
from popdsl.debug import BuildError
from popdsl.dtypes import is_floating

__all__ = ["embedding", "linear"]


def linear(x: pd.Tensor, weight: pd.Tensor, bias: Optional[pd.Tensor] = None) -> pd.Tensor:
    """x @ weight^T + bias for x [..., in], weight [out, in] and bias [out], as
    torch.nn.functional.linear (a torch state dict's weights load unchanged)."""
    for value, what in ((x, "x"), (weight, "weight")) + (() if bias is None else ((bias, "bias"),)):
        if not isinstance(value, pd.Tensor) or not is_floating(value.dtype):
            raise BuildError(f"pd.nn.linear: {what} must be a float pd.Tensor, got {value!r}")
    if weight.ndim != 2 or x.ndim == 0 or x.shape[-1] != weight.shape[1]:
        raise BuildError(f"pd.nn.linear: weight must be [out, in] with in = x.shape[-1]; got x {x!r}, "
                         f"weight {weight!r}")
    if bias is not None and bias.shape != weight.shape[:1]:
        raise BuildError(f"pd.nn.linear: bias must be [out] = [{weight.shape[0]}], got {bias!r}")
    y = x @ weight.T
    return y if bias is None else y + bias


def embedding(ids: pd.Tensor, table: pd.Tensor) -> pd.Tensor:
    """The rows of table [num_embeddings, dim] at the integer ids (any shape), shaped
    ids.shape + [dim], as torch.nn.functional.embedding; the gradient adds into the rows
    looked up (an id outside the table gives zeros and no gradient: pd.gather)."""
    if not isinstance(table, pd.Tensor) or table.ndim != 2:
        raise BuildError(f"pd.nn.embedding: table must be a [num_embeddings, dim] pd.Tensor, got {table!r}")
    return pd.gather(table, ids, axis=0)
