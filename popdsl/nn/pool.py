"""Pooling through popnn: pd.nn.pool over x [batch][channels][field...]."""

from __future__ import annotations

from typing import Optional, Sequence

from popdsl._core import popnn
from popdsl.control import record, Block
from popdsl.debug import BuildError
from popdsl.nn.conv import padding_ends, per_dimension, Dims, Padding
from popdsl.ops import _run_library
from popdsl.tensor import Tensor, expect_tensor
from popdsl.dtypes import DType

POOLING_TYPES = {"max": popnn.PoolingType.MAX, "avg": popnn.PoolingType.AVG, "sum": popnn.PoolingType.SUM}


def pool_params(kind: str, x_shape: Sequence[int], dtype: DType, kernel: Dims, stride: Optional[Dims] = None,
                padding: Padding = 0) -> popnn.pooling.PoolParams:
    """The popnn.pooling.PoolParams of pool(x, kind, ...): stride defaults to the kernel
    (windows that do not overlap); padding is an int, one per dimension, or one
    (lower, upper) pair per dimension, negative to truncate. Padding never takes part."""
    if kind not in POOLING_TYPES:
        raise BuildError(f"pool kind must be one of {sorted(POOLING_TYPES)}, not {kind!r}")
    x_shape = list(x_shape)
    dims = len(x_shape) - 2
    if dims < 1:
        raise BuildError(f"pool needs x [batch][channels][field...], not shape {x_shape}")
    kernel = per_dimension(kernel, dims, "kernel")
    stride = kernel if stride is None else per_dimension(stride, dims, "stride")
    lower, upper = padding_ends(padding, dims)
    return popnn.pooling.PoolParams(POOLING_TYPES[kind], x_shape[2:], kernel, stride, lower, upper, x_shape[1],
                                    x_shape[0], dtype)


def pool(x: Tensor, kind: str, kernel: Dims, stride: Optional[Dims] = None, padding: Padding = 0,
         name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Max, average or sum pooling (kind "max", "avg" or "sum") of each channel of x."""
    expect_tensor(x, "pd.nn.pool: x")
    params = pool_params(kind, x.shape, x.dtype, kernel, stride, padding)
    graph = x.graph
    out = _run_library(lambda seq, dc: popnn.pooling.pool(graph.raw, params, x.raw, seq, dc), name, prog,
                       "pd.nn.pool")
    pooled = graph.track(Tensor(out, graph))
    record("pd.nn.pool", [x], [pooled], prog, params=params)
    return pooled
