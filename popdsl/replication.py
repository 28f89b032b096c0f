"""Replication: collectives between the replicas of a replicated graph, and each replica's index.

pd.Graph(dev, replicas=n) runs every program on n replicas in lockstep, each with its own
copy of every tensor (the device has n x IPUs-per-replica IPUs). The collectives below
exchange data between them; each is one gcl program that every replica runs. Results are
exact and deterministic on the emulator (reduced in replica order, rounded once).

    op=  "add" (or "sum"), "mean", "mul" (or "prod"), "min", "max", "and", "or" (bool
         tensors), "square_add" (sum of squares), "local" (each replica keeps its own)
    group=  None (all replicas), an int k (consecutive groups of k: {0..k-1}, {k..2k-1}, ...)
            or a gcl.CommGroup
"""

from __future__ import annotations

from typing import Optional

from popdsl._core import gcl
from popdsl._core import program as _program
from popdsl.debug import BuildError, debug_name, describe, expect_int
from popdsl.control import emit, record, Block
from popdsl.graph import Graph
from popdsl.ops import _run_library
from popdsl.tensor import Tensor, expect_tensor

_OPERATORS = {
    "add": gcl.CollectiveOperator.ADD, "sum": gcl.CollectiveOperator.ADD, "mean": gcl.CollectiveOperator.MEAN,
    "mul": gcl.CollectiveOperator.MUL, "prod": gcl.CollectiveOperator.MUL, "min": gcl.CollectiveOperator.MIN,
    "max": gcl.CollectiveOperator.MAX, "and": gcl.CollectiveOperator.LOGICAL_AND,
    "or": gcl.CollectiveOperator.LOGICAL_OR, "square_add": gcl.CollectiveOperator.SQUARE_ADD,
    "local": gcl.CollectiveOperator.LOCAL,
}


def _operator(op, what: str):
    if isinstance(op, gcl.CollectiveOperator):
        return op
    if not isinstance(op, str) or op not in _OPERATORS:
        raise BuildError(f"{what}: op must be one of {sorted(_OPERATORS)} (or a gcl.CollectiveOperator), "
                         f"got {op!r}")
    return _OPERATORS[op]


def _group(group, graph: Graph, what: str):
    if group is None:
        return gcl.CommGroup()
    if isinstance(group, gcl.CommGroup):
        return group
    size = expect_int(group, f"{what}: group (a group size)", 1, graph.replicas)
    if graph.replicas % size:
        raise BuildError(f"{what}: a group size of {size} does not divide the graph's {graph.replicas} replicas")
    return gcl.CommGroup(gcl.CommGroupType.CONSECUTIVE, size)


def _collective(kind: str, t: Tensor, build, name, prog, **attrs) -> Tensor:
    out = _run_library(build, name, prog, kind)
    result = t if out is None else t.graph.track(Tensor(out, t.graph))
    record(kind, [t], [result], prog, written=[result] if out is None else (), **attrs)
    return result


def all_reduce(t: Tensor, op: str = "add", group: Optional[int] = None, inplace: bool = False,
               name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Every replica gets the reduction over the replicas (of its group) of t: a new tensor
    of t's shape, or t itself with inplace=True."""
    expect_tensor(t, "pd.all_reduce: t")
    operator, comm = _operator(op, "pd.all_reduce"), _group(group, t.graph, "pd.all_reduce")
    if inplace:
        return _collective("pd.all_reduce", t, lambda seq, dc: gcl.allReduceInPlaceCrossReplica(
            t.graph.raw, t.raw, operator, seq, comm, dc), name, prog, operator=operator, group=comm)
    return _collective("pd.all_reduce", t, lambda seq, dc: gcl.allReduceCrossReplica(
        t.graph.raw, t.raw, operator, seq, comm, dc), name, prog, operator=operator, group=comm)


def reduce_scatter(t: Tensor, op: str = "add", group: Optional[int] = None, name: Optional[str] = None,
                   prog: Optional[Block] = None) -> Tensor:
    """The reduction of flattened t split into group-size chunks of ceil(t.size / k)
    elements (zero-padded); replica of rank r in its group gets chunk r (a 1-D tensor)."""
    expect_tensor(t, "pd.reduce_scatter: t")
    operator, comm = _operator(op, "pd.reduce_scatter"), _group(group, t.graph, "pd.reduce_scatter")
    return _collective("pd.reduce_scatter", t, lambda seq, dc: gcl.reduceScatterCrossReplica(
        t.graph.raw, t.raw, operator, seq, comm, dc), name, prog)


def all_gather(t: Tensor, group: Optional[int] = None, name: Optional[str] = None,
               prog: Optional[Block] = None) -> Tensor:
    """`[k, *t.shape]`: row r is t of the replica of rank r in the group (k replicas)."""
    expect_tensor(t, "pd.all_gather: t")
    comm = _group(group, t.graph, "pd.all_gather")
    return _collective("pd.all_gather", t, lambda seq, dc: gcl.allGatherCrossReplica(
        t.graph.raw, t.raw, seq, comm, dc), name, prog)


def broadcast(t: Tensor, root: int = 0, group: Optional[int] = None, name: Optional[str] = None,
              prog: Optional[Block] = None) -> Tensor:
    """Every replica gets t of the replica of rank `root` in its group."""
    expect_tensor(t, "pd.broadcast: t")
    comm = _group(group, t.graph, "pd.broadcast")
    root = expect_int(root, "pd.broadcast: root", 0, t.graph.replicas - 1)
    return _collective("pd.broadcast", t, lambda seq, dc: gcl.broadcastCrossReplica(
        t.graph.raw, t.raw, seq, comm, root, dc), name, prog)


def cross_replica_copy(src: Tensor, dst: Tensor, replica_map: dict, name: Optional[str] = None,
                       prog: Optional[Block] = None) -> Tensor:
    """Copies src of replica k into dst of replica replica_map[k], for each k of the dict
    (poplar's CrossReplicaCopy: a ring shift is {k: (k + 1) % n}); the other replicas keep
    their dst. Returns dst."""
    expect_tensor(dst, "pd.cross_replica_copy: dst", expect_tensor(src, "pd.cross_replica_copy: src").graph, "src")
    if src.dtype != dst.dtype or src.size != dst.size:
        raise BuildError(f"pd.cross_replica_copy: cannot copy {src!r} into {dst!r}: dtypes and element counts must "
                         "match")
    if not isinstance(replica_map, dict):
        raise BuildError(f"pd.cross_replica_copy: replica_map must be a dict {{from replica: to replica}}, got "
                         f"{describe(replica_map)}")
    last = src.graph.replicas - 1
    pairs = {expect_int(k, "pd.cross_replica_copy: a source replica", 0, last):
             expect_int(v, "pd.cross_replica_copy: a destination replica", 0, last) for k, v in replica_map.items()}
    if len(set(pairs.values())) != len(pairs):
        raise BuildError(f"pd.cross_replica_copy: {replica_map} sends two replicas' src to one replica")
    emit(_program.CrossReplicaCopy(src.raw, dst.raw, pairs, debug_name(name, "pd.cross_replica_copy")), prog)
    record("pd.cross_replica_copy", [src, dst], [dst], prog, written=[dst])
    return dst


def replica_index(graph: Graph = None, name: Optional[str] = None) -> Tensor:
    """A uint32 scalar constant holding each replica's own index (mapped to tile 0)."""
    if graph is None:
        graph = Graph.latest()
    elif not isinstance(graph, Graph):
        raise TypeError(f"pd.replica_index: graph must be a pd.Graph, got {describe(graph)}")
    raw = graph.raw.addReplicationIndexConstant(name or "replica_index")
    graph.raw.setTileMapping(raw, 0)
    return graph.track(Tensor(raw, graph))
