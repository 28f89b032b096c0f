"""poputil/TileMapping.hpp queries and IPU clones."""
import numpy as np
import pytest

from popdsl import poplar, poputil, program


def graph_on(ipus=1, tiles=4):
    model = poplar.IPUModel("ipu2")
    model.numIPUs = ipus
    model.tilesPerIPU = tiles
    device = model.createDevice()
    return device, poplar.Graph(device.getTarget())


def test_tile_imbalance():
    _, g = graph_on()
    t = g.addVariable(poplar.FLOAT, [16], "t")
    g.setTileMapping(t.slice(0, 10), 0)
    g.setTileMapping(t.slice(10, 16), 1)
    # 16 elements on 4 tiles would be 4 each: the fullest tile holds 6 more.
    assert poputil.getTileImbalance(g, t) == 6
    assert poputil.getTileImbalance(g, t, 0, 8) == 2  # balanced in grains of 8: 8 per tile
    assert poputil.getTileImbalance(g, t, 12) == 0
    poputil.mapTensorLinearly(g, t, 1, 1)
    assert poputil.getTileImbalance(g.getTileMapping(t)) == 0


def test_linear_mapping_with_new_offset_and_tile_transforms():
    _, g = graph_on(tiles=8)
    t = g.addVariable(poplar.FLOAT, [4, 32], "t")  # 128 floats: 4 tiles of 128 bytes
    mapping, offset = poputil.calcLinearTileMappingAndNewOffset(g, t, 6)
    assert [tile for tile, regions in enumerate(mapping) if regions] == [0, 1, 6, 7] and offset == 2
    for ascending in (True, False):
        for tile in range(8):
            position = poputil.transformTileIndex(tile, 8, 3, ascending)
            assert poputil.invTransformTileIndex(position, 8, 3, ascending) == tile
    assert poputil.invTransformTileIndex(0, 8, 3, True) == 3 and poputil.invTransformTileIndex(0, 8, 3, False) == 4
    offsets = {poputil.chooseMappingOffset(8, [n, 3]) for n in range(1, 40)}
    assert offsets <= set(range(8)) and len(offsets) > 4
    assert poputil.chooseMappingOffset(8, [5, 3], 1) == poputil.chooseMappingOffset(8, [5, 3], 1)


def test_dim_is_split_over_tiles_and_ipus():
    _, g = graph_on(ipus=2, tiles=2)
    t = g.addVariable(poplar.FLOAT, [4, 3], "t")
    for row in range(4):
        g.setTileMapping(t[row], row)  # rows on tiles 0..3: IPU 0 holds rows 0-1
    assert poputil.dimIsSplitOverTiles(g, t, 0) and not poputil.dimIsSplitOverTiles(g, t, 1)
    assert poputil.dimIsSplitOverIPUs(g, t, 0) and not poputil.dimIsSplitOverIPUs(g, t, 1)
    assert not poputil.dimIsSplitOverIPUs(g, t.slice(0, 2, 0), 0)
    with pytest.raises(poputil.poplibs_error, match="dimIsSplitOverTiles: dimension 2 is out of range"):
        poputil.dimIsSplitOverTiles(g, t, 2)


def test_copy_to_ipu_keeps_tiles_and_values():
    device, g = graph_on(ipus=2, tiles=4)
    t = g.addVariable(poplar.FLOAT, [8], "t")
    for i in range(8):
        g.setTileMapping(t[i], i // 2)  # IPU 0's tiles 0-3
    values = np.arange(8, dtype=np.float32)
    g.setInitialValue(t, values)
    prog = program.Sequence()
    moved = poputil.copyToIpu(g, t, prog, 1, "moved")
    source_tiles = [tile for tile, r in enumerate(g.getTileMapping(t)) if r]
    assert source_tiles == [0, 1, 2, 3]
    assert [tile for tile, r in enumerate(g.getTileMapping(moved)) if r] == [4, 5, 6, 7]
    clone, src, dst = poputil.createIpuCopy(g, t, 1)
    assert src.shape() == [8] and dst.shape() == clone.shape() == [8]
    g.createHostRead("moved", moved)
    engine = poplar.Engine(g, prog)
    engine.load(device)
    engine.run(0)
    out = np.zeros(8, np.float32)
    engine.readTensor("moved", out)
    np.testing.assert_array_equal(out, values)
    with pytest.raises(poputil.poplibs_error, match="cloneToIpu: IPU 2 is out of range: the target has 2 IPU"):
        poputil.cloneToIpu(g, t, 2)


def tile_of_each_element(g, t):
    where = [None] * t.numElements()
    for tile, regions in enumerate(g.getTileMapping(t)):
        for interval in regions:
            where[interval.begin():interval.end()] = [tile] * interval.size()
    return where


def test_map_linearly_with_offset_in_either_direction():
    _, g = graph_on(tiles=4)
    t = g.addVariable(poplar.FLOAT, [8], "t")
    poputil.mapTensorLinearlyWithOffset(g, t, 1, 2, 1)
    assert tile_of_each_element(g, t) == [1, 1, 2, 2, 3, 3, 0, 0]
    poputil.mapTensorLinearlyWithOffset(g, t, 1, 2, 1, False)  # from tile 4 - 1 - 1, descending
    assert tile_of_each_element(g, t) == [2, 2, 1, 1, 0, 0, 3, 3]
    # Grain: the float vector width; at least 128 bytes a tile, so 32 floats fit on one.
    poputil.mapTensorLinearlyWithOffset(g, t, 3)
    assert tile_of_each_element(g, t) == [3] * 8
    poputil.mapTensorLinearlyWithOffset(g, t, 3, False)
    assert tile_of_each_element(g, t) == [0] * 8


def test_broadcast_operand_follows_the_slices_of_the_full_tensor():
    _, g = graph_on(tiles=4)
    full = g.addVariable(poplar.FLOAT, [3, 4], "full")
    for row in range(3):
        g.setTileMapping(full[row], row + 1)
    operand = poputil.createBroadcastOperand(g, full, poplar.HALF, 0, False, "bias")
    assert operand.shape() == [3] and operand.elementType() == poplar.HALF
    assert tile_of_each_element(g, operand) == [1, 2, 3]
    columns = poputil.createBroadcastOperand(g, full, poplar.FLOAT, 1)
    assert columns.shape() == [4] and set(tile_of_each_element(g, columns)) <= {1, 2, 3}


def test_expand_to_match_ranks_prepends_unit_dimensions():
    _, g = graph_on()
    a, b = g.addVariable(poplar.FLOAT, [2, 3, 4], "a"), g.addVariable(poplar.FLOAT, [4], "b")
    ea, eb = poputil.expandToMatchRanks(a, b)
    assert ea.shape() == [2, 3, 4] and eb.shape() == [1, 1, 4] and eb.flatten() == b
    eb2, ea2 = poputil.expandToMatchRanks(b, a)
    assert eb2.shape() == [1, 1, 4] and ea2 == a
