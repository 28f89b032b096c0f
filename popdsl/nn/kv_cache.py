"""A key/value cache for generating with a decoder one token at a time (the role of
Hugging Face's past_key_values / torch's KV caches): each step's key and value are
appended on the device, and the step's query attends over every token so far, so a step
costs one row of attention instead of a whole sequence again::

    cache = pd.nn.KVCache(g, groups=G, max_length=L, head_dim=D)
    with pd.Sequence("prompt") as prompt:
        cache.reset()
        out = cache.prefill(q, k, v)          # [G, T, D]: causal attention over the prompt
    with pd.Sequence("step") as step:
        y = cache.step(q1, k1, v1)            # [G, D]: the new token over tokens 0..n

The cache holds ``keys`` and ``values`` [G, max_length, D] and the number of tokens held,
``length``, all device variables that persist between runs; positions at or past
``length`` are masked out of the scores, so ``reset()`` only sets length to 0. A step past
``max_length`` tokens writes nothing (poplibs' out-of-range rule) and attends over the
first max_length tokens only: size the cache for the longest generation.
"""
from __future__ import annotations

import math
import numbers
from typing import Optional

import numpy as np

import popdsl as pd
from popdsl.debug import LARGEST_INT, BuildError, describe, expect_int
from popdsl.dtypes import DType
from popdsl.nn.attention import scaled_dot_product_attention
from popdsl.nn.masks import MASK_VALUE

__all__ = ["KVCache"]


class KVCache:
    """Keys and values of the tokens so far, for attention one new token at a time."""

    def __init__(self, graph: pd.Graph, groups: int, max_length: int, head_dim: int,
                 dtype: DType = pd.float32, name: str = "kv_cache"):
        if not isinstance(graph, pd.Graph):
            raise BuildError(f"pd.nn.KVCache: graph must be a pd.Graph, got {describe(graph)}")
        self.groups, self.max_length, self.head_dim = (
            expect_int(n, f"pd.nn.KVCache: {what}", 1, LARGEST_INT)
            for n, what in ((groups, "groups"), (max_length, "max_length"), (head_dim, "head_dim")))
        shape = (self.groups, self.max_length, self.head_dim)
        self.keys = graph.variable(dtype, shape, name=f"{name}/keys", init=np.zeros(shape))
        self.values = graph.variable(dtype, shape, name=f"{name}/values", init=np.zeros(shape))
        self.length = graph.variable(pd.int32, (1,), name=f"{name}/length", init=np.zeros(1))
        self._positions = graph.constant(np.arange(self.max_length, dtype=np.int32), name=f"{name}/positions")

    def reset(self) -> None:
        """Empties the cache (in the program being built): the next token is position 0."""
        pd.zero(self.length)

    def prefill(self, q: pd.Tensor, k: pd.Tensor, v: pd.Tensor, scale: Optional[float] = None) -> pd.Tensor:
        """Causal attention over a prompt (q, k, v [G, T, D]) that also fills the cache's
        positions 0..T-1 and sets its length to T; returns the attention [G, T, D]."""
        self._check(k, "k", 3)
        self._check(v, "v", 3)
        tokens = k.shape[1]
        if tokens > self.max_length:
            raise BuildError(f"KVCache.prefill: the prompt has {tokens} tokens, more than max_length "
                             f"{self.max_length}")
        pd.copy(k, self.keys[:, :tokens])
        pd.copy(v, self.values[:, :tokens])
        pd.fill(self.length, tokens)
        return scaled_dot_product_attention(q, k, v, scale=scale, causal=True)

    def append(self, k: pd.Tensor, v: pd.Tensor) -> None:
        """Writes one token's key and value (each [G, D]) at position `length`, then adds 1
        to the length."""
        self._check(k, "k", 2)
        self._check(v, "v", 2)
        self.keys.at[:, self.length].set(k)
        self.values.at[:, self.length].set(v)
        self.length += 1

    def attend(self, q: pd.Tensor, scale: Optional[float] = None) -> pd.Tensor:
        """softmax(scale q k^T) v of one query per group (q [G, D]) over the cached tokens
        0..length-1; scale defaults to 1/sqrt(D). Returns [G, D]."""
        self._check(q, "q", 2)
        if scale is not None and (isinstance(scale, bool) or not isinstance(scale, numbers.Real)):
            raise BuildError(f"KVCache.attend: scale must be a number or None, got {describe(scale)}")
        scale = 1 / math.sqrt(self.head_dim) if scale is None else float(scale)
        scores = (q * scale).reshape((self.groups, 1, self.head_dim)) @ self.keys.mT  # [G, 1, max_length]
        held = self._positions < self.length
        weights = pd.softmax(pd.where(held, scores, MASK_VALUE))
        return (weights @ self.values).reshape((self.groups, self.head_dim))

    def step(self, q: pd.Tensor, k: pd.Tensor, v: pd.Tensor, scale: Optional[float] = None) -> pd.Tensor:
        """One generation step: append(k, v), then attend(q) over every token including it."""
        self.append(k, v)
        return self.attend(q, scale)

    def _check(self, t, what: str, ndim: int) -> None:
        expected = (self.groups, self.head_dim) if ndim == 2 else (self.groups, None, self.head_dim)
        if not isinstance(t, pd.Tensor) or t.ndim != ndim or t.dtype != self.keys.dtype or \
                any(e is not None and e != s for e, s in zip(expected, t.shape)):
            shape = "[G, D]" if ndim == 2 else "[G, T, D]"
            raise BuildError(f"KVCache: {what} must be a {self.keys.dtype} pd.Tensor {shape} with G={self.groups}, "
                             f"D={self.head_dim}, got {describe(t) if not isinstance(t, pd.Tensor) else repr(t)}")
