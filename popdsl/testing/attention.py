"""numpy references for causal attention, written from the equations (float64 by default).

out = softmax(Q K^T + M) V for qkv [3, G, L, D], with M = -10000 where the key comes
after the query and no 1/sqrt(D) scaling; log-sum-exp = log(sum over keys of exp(S + M)).
The gradient of sum(out * dO)::

    dV = P^T dO,  dP = dO V^T,  dS = P * (dP - rowsum(P * dP)),  dQ = dS K,  dK = dS^T Q

(the softmax Jacobian dP_rc/dS_rc' = P_rc (delta_cc' - P_rc') contracted with dP).
"""

from __future__ import annotations

from typing import Optional, Tuple

from numpy.typing import ArrayLike, DTypeLike

import numpy as np


def causal_mask(length: int, dtype: DTypeLike = np.float64) -> np.ndarray:
    """The additive causal mask [length, length]: 0 where a key precedes or is the query, -10000 after."""
    return np.triu(np.full((length, length), -10000.0, dtype), 1)


def causal_attention(qkv: ArrayLike, dtype: DTypeLike = np.float64) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(out [G, L, D], log-sum-exp [G, L], probabilities P [G, L, L]) computed in `dtype`."""
    q, k, v = np.asarray(qkv, dtype)
    scores = q @ k.transpose(0, 2, 1)
    scores += causal_mask(q.shape[1], dtype)
    top = scores.max(-1, keepdims=True)
    p = np.exp(scores - top, out=scores)
    total = p.sum(-1, keepdims=True)
    p /= total
    return p @ v, (top + np.log(total))[..., 0], p


def causal_attention_grad(qkv: ArrayLike, d_out: ArrayLike, probabilities: Optional[np.ndarray] = None,
                          dtype: DTypeLike = np.float64) -> np.ndarray:
    """d(sum(out * d_out)) / d qkv, [3, G, L, D]; pass causal_attention's P to reuse it."""
    q, k, v = np.asarray(qkv, dtype)
    d_out = np.asarray(d_out, dtype)
    p = causal_attention(qkv, dtype)[2] if probabilities is None else probabilities
    d_v = p.transpose(0, 2, 1) @ d_out
    d_s = d_out @ v.transpose(0, 2, 1)
    d_s -= (p * d_s).sum(-1, keepdims=True)
    d_s *= p
    return np.stack([d_s @ k, d_s.transpose(0, 2, 1) @ q, d_v])
