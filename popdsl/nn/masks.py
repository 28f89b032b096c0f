"""Causal mask blocks: only the [rows, cols] blocks of the L x L causal mask that cross
the diagonal, made once on the device and applied in turn through a counter.

The causal mask adds MASK_VALUE where key index > query index. Cut into blocks of
`rows` queries by `cols` keys, block (i, j) is masked where c - r >= k with the local
offset k = i*rows - j*cols + 1. Blocks crossing the diagonal repeat with the period
lcm(rows, cols), and they are met in the same order whether the blocks are visited
row by row (the forward pass) or column by column (the backward pass): the diagonal
never goes back left or up. So one period of mask blocks and a counter modulo their
number give every block its mask.
"""
from typing import NamedTuple

import numpy as np

import popdsl as pd
from popdsl.debug import BuildError, expect_int
from popdsl.tensor import expect_tensor

MASK_VALUE = -10000.0  # additive, not -inf: a fully masked row stays finite


def triu_offset_sequence(rows: int, cols: int) -> list:
    """The offsets k of the partly masked [rows, cols] blocks over one period, in visiting order.

    Block (i, j) holds a masked element (c > r) when its last column passes the
    block's first row, and a visible one (c <= r) when its first column is at most
    the block's last row.
    """
    rows = expect_int(rows, "triu_offset_sequence: rows", 1)
    cols = expect_int(cols, "triu_offset_sequence: cols", 1)
    period = np.lcm(rows, cols)
    offsets = []
    for i in range(period // rows):
        first_row, last_row = i * rows, (i + 1) * rows - 1
        for j in range((first_row + 1) // cols, last_row // cols + 1):
            offsets.append(first_row - j * cols + 1)
    return offsets


class MaskBlocks(NamedTuple):
    """One period of causal mask blocks [n, rows, cols] and the counter picking the next one."""

    blocks: pd.Tensor
    counter: pd.Tensor

    def add_next(self, scores: pd.Tensor) -> None:
        """scores += the next mask block (broadcast over the leading group axis); advance the counter."""
        scores += self.blocks.at[self.counter].get()
        pd.map_(lambda k: (k + 1) % len(self.blocks), self.counter)


def causal_mask_blocks(ref: pd.Tensor) -> MaskBlocks:
    """Mask blocks for score blocks shaped like `ref` ([groups, rows, cols]), made now, with a zeroed counter.

    Adds the ops to the open program; the graph holds the blocks so later programs
    (loop iterations) can apply them.
    """
    expect_tensor(ref, "causal_mask_blocks: ref")
    if ref.ndim < 2:
        raise BuildError(f"causal_mask_blocks: ref must have at least two dimensions [..., rows, cols], got {ref!r}")
    rows, cols = ref.shape[-2:]
    offsets = triu_offset_sequence(rows, cols)
    if not offsets:
        raise ValueError(f"no [{rows}, {cols}] block crosses the diagonal of a causal mask: there is nothing to mask")
    graph = ref.graph
    blocks = graph.variable(ref.dtype, (len(offsets), rows, cols), name="causal mask blocks")
    column = graph.constant(np.arange(cols, dtype=np.int32), name="column index")
    row = graph.constant(np.arange(rows, dtype=np.int32).reshape(rows, 1), name="row index")
    offset = graph.constant(np.array(offsets, np.int32).reshape(-1, 1, 1), name="mask offsets")
    pd.fill(blocks, MASK_VALUE)
    pd.map_(lambda mask, c, r, k: pd.where(c - r < k, 0.0, mask), blocks, column, row, offset)
    counter = graph.variable(pd.uint32, (1,), name="mask counter")
    pd.zero(counter)
    return MaskBlocks(blocks, counter)
