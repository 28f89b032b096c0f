"""Custom vertices on the Pythonic layer: g.add_codelets(...) and compute-set blocks::

    g.add_codelets(CODELET_SOURCE)                   # C++ text, or a path to a .cpp file
    with pd.compute_set("sum rows") as cs:           # an Execute step of the open block
        for tile, rows in enumerate(row_blocks):
            cs.vertex("SumRows<float>", tile=tile, in_=x[rows], out=y[rows])

Keyword fields: a pd.Tensor or a list of them is connected to the field (an edge);
a number is the initial value of a plain field (`unsigned n;`) or a constant edge of an
Input (`Input<float> scale;`), as the SDK's ConnectionDesc values; a sequence of numbers
is the initial value of a plain Vector field (`Vector<unsigned> rows;`). A trailing underscore is dropped, so C++ fields named like
Python keywords are reachable (`in_=` is the field `in`).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from popdsl._core import poplar
from popdsl._core import program as _program
from popdsl.control import Block, current_block, record
from popdsl.debug import BuildError, debug_name, describe, expect_str
from popdsl.graph import Graph
from popdsl.tensor import Tensor


class ComputeSet:
    """A compute set whose Execute step is added to the open block where the `with` starts."""

    def __init__(self, name=None, graph=None, prog=None):
        if graph is not None and not isinstance(graph, Graph):
            raise BuildError(f"pd.compute_set: graph must be a pd.Graph or None, got {describe(graph)}")
        self.name = debug_name(name)
        self.graph = graph
        self.prog = prog
        self.raw = None
        self.vertices = []
        self.block = None  # where the compute set runs, once its `with` has started

    def __enter__(self):
        self.block = current_block(self.prog)
        self.block.add(self)  # built into an Execute when the program is built
        return self

    def __exit__(self, *exc):
        return False

    def build(self) -> _program.Program:
        """program.Execute of the compute set (an empty Sequence when no vertex was added)."""
        if self.raw is None:
            return _program.Sequence()
        return _program.Execute(self.raw, self.name)

    def _graph_for(self, fields):
        graphs = {id(t.graph): t.graph for v in fields.values() for t in (v if isinstance(v, (list, tuple)) else [v])
                  if isinstance(t, Tensor)}
        if self.graph is None:
            if len(graphs) != 1:
                raise BuildError("cs.vertex: cannot tell the graph from the fields; pass graph= to pd.compute_set")
            self.graph = next(iter(graphs.values()))
        if any(g is not self.graph for g in graphs.values()):
            raise BuildError("cs.vertex: the tensors belong to a different graph than the compute set")
        return self.graph

    def vertex(self, vertex_type: str, tile: int, perf_estimate: int = None, **fields) -> poplar.VertexRef:
        """Adds a `vertex_type` vertex on `tile` with its fields connected or set (see the module doc)."""
        expect_str(vertex_type, "cs.vertex: vertex_type")
        graph = self._graph_for(fields)
        tiles = graph.target.getNumTiles()
        if not isinstance(tile, (int, np.integer)) or not 0 <= tile < tiles:
            raise BuildError(f"cs.vertex('{vertex_type}'): tile {tile!r} does not exist (the target has {tiles} tiles)")
        raw = graph.raw
        try:
            if self.raw is None:
                self.raw = raw.addComputeSet(self.name)
            connections, initial_values = {}, {}
            for name, value in fields.items():
                name = name[:-1] if name.endswith("_") else name
                if isinstance(value, Tensor):
                    connections[name] = value.raw
                elif isinstance(value, (list, tuple)) and value and all(isinstance(t, Tensor) for t in value):
                    connections[name] = [t.raw for t in value]
                elif isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
                    connections[name] = value  # a plain field's initial value, an Input's constant edge
                else:
                    initial_values[name] = value
            v = raw.addVertex(self.raw, vertex_type, connections)
            raw.setTileMapping(v, int(tile))
            for name, values in initial_values.items():
                raw.setInitialValue(v[name], values)
            if perf_estimate is not None:
                raw.setPerfEstimate(v, int(perf_estimate))
        except poplar.poplar_error as e:
            raise BuildError(f"cs.vertex('{vertex_type}'): {type(e).__name__}: {e}") from None
        self.vertices.append(v)
        if self.block is not None:
            reads, writes = _reads_and_writes(raw, vertex_type, fields)
            record("pd.compute_set vertex", reads, writes, self.block, written=writes)
        return v


def _reads_and_writes(raw_graph, vertex_type: str, fields: dict) -> tuple:
    """The tensors a vertex reads (its Input and InOut fields) and writes (its Output and
    InOut fields), as its codelet declares them. Where the backend cannot tell (the SDK),
    every connected tensor is both, so pd.grad and the tape never miss a dependence."""
    directions = raw_graph._vertexFieldDirections(vertex_type)
    reads, writes = [], []
    for name, value in fields.items():
        tensors = [t for t in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(t, Tensor)]
        direction = "InOut" if directions is None else directions.get(name[:-1] if name.endswith("_") else name)
        if direction in ("Input", "InOut"):
            reads += tensors
        if direction in ("Output", "InOut"):
            writes += tensors
    return reads, writes


def compute_set(name: Optional[str] = None, graph: Optional[Graph] = None, prog: Optional[Block] = None) -> ComputeSet:
    """`with pd.compute_set("name") as cs:` adds vertices with cs.vertex(...); the compute set
    runs (program::Execute) where the block starts. The debug name defaults to the source line."""
    return ComputeSet(name, graph, prog)
