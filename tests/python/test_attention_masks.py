"""The causal mask block generator against the full triangular mask."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.testing.attention import causal_mask
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)


def triu_block(rows, cols, offset):
    """A [rows, cols] block masked where column - row >= offset (torch.triu's diagonal)."""
    return np.triu(np.full((rows, cols), -10000.0), offset)


def partly_masked_blocks(length, rows, cols, column_major):
    """The full mask's [rows, cols] blocks holding both masked and visible elements, in visiting order."""
    mask = causal_mask(length)
    grid = [(i, j) for i in range(length // rows) for j in range(length // cols)]
    if column_major:
        grid.sort(key=lambda ij: (ij[1], ij[0]))
    blocks = [mask[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols] for i, j in grid]
    return [b for b in blocks if (b == 0).any() and (b != 0).any()]


SIZES = [(r, c) for r in range(1, 9) for c in range(1, 9)] + [(3, 10), (10, 4), (12, 18), (7, 5)]


@pytest.mark.parametrize("rows, cols", SIZES)
def test_the_offsets_give_every_crossing_block_its_mask_in_both_orders(rows, cols):
    offsets = pd.nn.triu_offset_sequence(rows, cols)
    length = 2 * np.lcm(rows, cols)  # two periods, so the sequence must wrap around
    for column_major in (False, True):
        blocks = partly_masked_blocks(length, rows, cols, column_major)
        assert len(blocks) == 2 * len(offsets)
        for n, block in enumerate(blocks):
            np.testing.assert_array_equal(block, triu_block(rows, cols, offsets[n % len(offsets)]),
                                          err_msg=f"column_major={column_major}, block {n}")


def test_worked_offsets():
    assert pd.nn.triu_offset_sequence(4, 4) == [1]
    assert pd.nn.triu_offset_sequence(2, 6) == [1, 3, 5]       # cols = 3 rows: 1, 1 + rows, ...
    assert pd.nn.triu_offset_sequence(6, 2) == [1, -1, -3]     # rows = 3 cols: 1, 1 - cols, ...
    assert pd.nn.triu_offset_sequence(2, 3) == [1, 0, 2]       # the 6 x 6 example of the original
    assert pd.nn.triu_offset_sequence(3, 1) == [0, -1]         # columns of one: offset 1 masks nothing
    assert pd.nn.triu_offset_sequence(1, 1) == []              # nothing is partly masked
    with pytest.raises(ValueError, match=r"triu_offset_sequence: rows must be an int in \[1, 4294967295\], got int 0"):
        pd.nn.triu_offset_sequence(0, 3)


@pytest.mark.parametrize("dtype", [pd.float32, pd.float16])
def test_mask_blocks_on_the_device_and_their_counter(ipu_device, session_factory, dtype):
    """The blocks hold triu masks; add_next adds them in turn, wrapping around."""
    rows, cols = 4, 6
    offsets = pd.nn.triu_offset_sequence(rows, cols)
    g = pd.Graph(ipu_device)
    scores = g.variable(dtype, (2, rows, cols), name="scores")
    applied = g.variable(dtype, (2 * len(offsets), 2, rows, cols), name="applied")
    step = g.variable(pd.uint32, (1,), name="step")
    with pd.Sequence() as main:
        masks = pd.nn.causal_mask_blocks(scores)
        pd.zero(step)
        with pd.Repeat(2 * len(offsets)):
            pd.zero(scores)
            masks.add_next(scores)
            applied.at[step].set(scores)
            step += 1
    with session_factory(g, main) as s:
        s.run()
        blocks, applied_values, counter = s.read(masks.blocks), s.read(applied), s.read(masks.counter)
    expected = np.stack([triu_block(rows, cols, k) for k in offsets])
    np.testing.assert_array_equal(blocks, expected)
    np.testing.assert_array_equal(applied_values, np.concatenate([expected, expected])[:, None].repeat(2, 1))
    assert counter[0] == 0


def test_mask_blocks_need_a_crossing_block(ipu_device):
    g = pd.Graph(ipu_device)
    with pd.Sequence():
        with pytest.raises(ValueError, match=r"no \[1, 1\] block crosses the diagonal"):
            pd.nn.causal_mask_blocks(g.variable(pd.float32, (2, 1, 1)))
