"""Replica sharding: one tensor split over the replicas of a replicated graph, each replica
holding a 1-D chunk of its flattened elements (PopTorch's replicated tensor sharding, popxl's
replica-sharded variables).

The layout is pd.reduce_scatter's: the flattened tensor is zero-padded to a multiple of the
replica count and replica r holds chunk r of shard_size(size, replicas) elements. The
optimizers use it for their state under `shard_over_replicas=True` (docs/training_at_scale.rst);
to_shards and from_shards convert between a whole array and the per-replica chunks on the host.
"""
from __future__ import annotations

import numpy as np

from popdsl.debug import BuildError
from popdsl.ops import copy
from popdsl.replication import all_gather, reduce_scatter
from popdsl.tensor import Tensor

__all__ = ["shard_size", "local_shard", "gather_into", "to_shards", "from_shards"]


def shard_size(size: int, replicas: int) -> int:
    """Elements of each replica's chunk of a tensor of `size` elements: ceil(size / replicas)."""
    return -(-size // replicas)


def local_shard(t: Tensor) -> Tensor:
    """This replica's chunk of its own t (a new 1-D tensor; the padding past t's end is zero)."""
    return reduce_scatter(t, op="local")


def gather_into(shard: Tensor, t: Tensor) -> Tensor:
    """Copies every replica's chunk, gathered in replica order without the padding, into t
    (on every replica); returns t. shard is a 1-D tensor of t's dtype and shard size."""
    expected = (shard_size(t.size, t.graph.replicas),)
    if shard.shape != expected or shard.dtype != t.dtype:
        raise BuildError(f"pd.replica_sharding.gather_into: the shard of {t!r} must be a {t.dtype} tensor of "
                         f"shape {expected}, got {shard!r}")
    return copy(all_gather(shard).flatten()[:t.size].reshape(t.shape), t)


def to_shards(array: np.ndarray, replicas: int) -> np.ndarray:
    """[replicas, shard size]: the chunk of each replica of a whole host array (zero-padded)."""
    flat = np.asarray(array).reshape(-1)
    padded = np.zeros(replicas * shard_size(flat.size, replicas), flat.dtype)
    padded[:flat.size] = flat
    return padded.reshape(replicas, -1)


def from_shards(shards: np.ndarray, shape: tuple) -> np.ndarray:
    """The whole array of `shape` from every replica's chunk ([replicas, shard size], as
    Session.read gives a sharded tensor)."""
    shards = np.asarray(shards)
    size = int(np.prod(shape, dtype=np.int64))
    if shards.ndim != 2 or shards.shape[1] != shard_size(size, shards.shape[0]):
        raise BuildError(f"pd.replica_sharding.from_shards: {shards.shape} is not [replicas, shard size] of a "
                         f"tensor of shape {tuple(shape)}")
    return shards.reshape(-1)[:size].reshape(shape)
