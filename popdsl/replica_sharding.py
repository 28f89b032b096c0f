"""Replica sharding: one tensor split over the replicas of a replicated graph, each replica
holding a 1-D chunk of its flattened elements (PopTorch's replicated tensor sharding, popxl's
replica-sharded variables).

The layout is pd.reduce_scatter's: the flattened tensor is zero-padded to a multiple of the
replica count and replica r holds chunk r of shard_size(size, replicas) elements. The
optimizers use it for their state under `shard_over_replicas=True` (docs/training_at_scale.rst),
and a ShardedVariable keeps a weight itself sharded between steps, gathered where it is used.
to_shards and from_shards convert between a whole array and the per-replica chunks on the host.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from popdsl.debug import BuildError, describe
from popdsl.dtypes import DType, is_floating
from popdsl.graph import Graph
from popdsl.ops import copy
from popdsl.replication import all_gather, reduce_scatter
from popdsl.session import Session
from popdsl.tensor import Shape, Tensor, as_shape

__all__ = ["ShardedVariable", "shard_size", "local_shard", "gather", "gather_into", "to_shards", "from_shards",
           "require_every_replica"]


class ShardedVariable:
    """A float variable that lives sharded over the replicas (popxl's replica_sharded_variable):
    each replica holds one chunk, `shard` (a 1-D session variable of shard_size elements), and
    `gather()` appends the all-gather of the whole tensor to the open block, where it is used.
    Step it with an optimizer made with shard_over_replicas=True, giving the gradient of the
    gathered tensor: the optimizer updates the chunks in place. On the host, `write` and
    `read` take and give the whole array."""

    def __init__(self, graph: Graph, dtype: DType, shape: Shape, name: str):
        if not isinstance(graph, Graph) or graph.replicas < 2:
            raise BuildError(f"pd.replica_sharding.ShardedVariable {name!r}: needs a replicated pd.Graph (replicas "
                             f">= 2), got {describe(graph)}")
        if not is_floating(dtype):
            raise BuildError(f"pd.replica_sharding.ShardedVariable {name!r}: dtype must be a float type, got {dtype}")
        self.graph, self.dtype, self.name = graph, dtype, name
        self.shape = tuple(as_shape(shape, f"pd.replica_sharding.ShardedVariable {name!r}: shape"))
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.shard = graph.variable(dtype, (shard_size(self.size, graph.replicas),), name=f"{name}/shard")

    def __repr__(self) -> str:
        return f"<pd.replica_sharding.ShardedVariable {self.name!r} shape={self.shape} dtype={self.dtype}>"

    def gather(self) -> Tensor:
        """The whole tensor (a new one, on every replica), all-gathered from the chunks."""
        return gather(self.shard, self.shape)

    def write(self, session: Session, values: ArrayLike) -> None:
        """Writes the whole array `values` (of the variable's shape) as every replica's chunk."""
        require_every_replica(session, f"{self!r}.write")
        array = np.asarray(values)
        if array.shape != self.shape:
            raise BuildError(f"{self!r}.write: values must have shape {self.shape}, got {array.shape}")
        session.write(self.shard, to_shards(array, self.graph.replicas))

    def read(self, session: Session) -> np.ndarray:
        """The whole array, from every replica's chunk in `session`."""
        require_every_replica(session, f"{self!r}.read")
        return from_shards(session.read(self.shard), self.shape)


def shard_size(size: int, replicas: int) -> int:
    """Elements of each replica's chunk of a tensor of `size` elements: ceil(size / replicas)."""
    return -(-size // replicas)


def local_shard(t: Tensor) -> Tensor:
    """This replica's chunk of its own t (a new 1-D tensor; the padding past t's end is zero)."""
    return reduce_scatter(t, op="local")


def gather(shard: Tensor, shape: tuple) -> Tensor:
    """The tensor of `shape` whose chunks the replicas hold as `shard`: all-gathered in replica
    order, without the padding (a new tensor, on every replica)."""
    size = int(np.prod(shape, dtype=np.int64))
    expected = (shard_size(size, shard.graph.replicas),)
    if shard.shape != expected:
        raise BuildError(f"pd.replica_sharding.gather: the shard of a tensor of shape {tuple(shape)} must have "
                         f"shape {expected}, got {shard!r}")
    return all_gather(shard).flatten()[:size].reshape(shape)


def gather_into(shard: Tensor, t: Tensor) -> Tensor:
    """Copies every replica's chunk, gathered in replica order without the padding, into t
    (on every replica); returns t. shard is a 1-D tensor of t's dtype and shard size."""
    if shard.dtype != t.dtype:
        raise BuildError(f"pd.replica_sharding.gather_into: the shard of {t!r} must be a {t.dtype} tensor, "
                         f"got {shard!r}")
    return copy(gather(shard, t.shape), t)


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


def require_every_replica(session: Session, what: str) -> None:
    """Raises unless `session` holds every replica: sharded values convert to and from their
    whole form only with every replica's chunk (a pd.distributed instance holds its own)."""
    if len(session.replica_range) != session.replicas:
        raise BuildError(f"{what}: sharded values need every replica's chunk, but this session holds replicas "
                         f"{session.replica_range.start} to {session.replica_range.stop - 1} of {session.replicas} "
                         "(a pd.distributed instance)")
