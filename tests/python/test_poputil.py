"""poputil: linear tile mapping, numpy broadcasting of views, duplicate and cloneN."""
import numpy as np
import pytest

from popdsl import poplar, poputil, program


def mapped_elements(mapping):
    return sorted((i.begin(), i.end(), tile) for tile, intervals in enumerate(mapping) for i in intervals)


def test_linear_mapping_spreads_whole_grains_in_tile_order(graph):
    mapping = poputil.calcLinearTileMapping(graph, [10, 3], 2, 4)
    # 30 elements in grains of 4 = 8 grains over 4 tiles: 2 grains (8 elements) per tile.
    assert mapped_elements(mapping) == [(0, 8, 0), (8, 16, 1), (16, 24, 2), (24, 30, 3)]


def test_linear_mapping_respects_minimum_per_tile_and_offset(graph):
    mapping = poputil.calcLinearTileMapping(graph, [20], 12, 2, offset=3)
    assert mapped_elements(mapping) == [(0, 12, 3), (12, 20, 0)]


def test_set_tile_mapping_takes_intervals_in_any_order_and_later_ones_win(graph):
    t = graph.addVariable(poplar.FLOAT, [2, 6], "t")
    interval = poplar.Interval
    # Tile 1's intervals come first but lie after tile 0's; on the overlap [4, 5) the later tile 2 wins.
    graph.setTileMapping(t, [[interval(0, 4)], [interval(8, 12), interval(4, 6)], [interval(6, 8), interval(3, 5)]])
    assert mapped_elements(graph.getTileMapping(t)) == [(0, 3, 0), (3, 5, 2), (5, 6, 1), (6, 8, 2), (8, 12, 1)]
    v = graph.addVariable(poplar.FLOAT, [4, 3], "v")
    graph.setTileMapping(v.slice(0, 2).transpose(), [[interval(0, 2)], [interval(2, 6)]])  # elements 0, 3 | 1, 4, 2, 5
    graph.setTileMapping(v.slice(1, 3), [[interval(3, 6)], [interval(0, 3)]])  # a dense view: elements 6-8 | 3-5
    assert mapped_elements(graph.getTileMapping(v, False)) == [(0, 1, 0), (1, 6, 1), (6, 9, 0)]
    clone = graph.clone(t, "clone")
    assert mapped_elements(graph.getTileMapping(clone)) == mapped_elements(graph.getTileMapping(t))


def test_map_tensor_linearly_maps_every_element_with_128_byte_minimum(graph):
    t = graph.addVariable(poplar.FLOAT, [100], "t")
    poputil.mapTensorLinearly(graph, t)
    mapping = graph.getTileMapping(t)
    # At least 32 floats (128 bytes) per used tile: 100 elements use 4 tiles of 32, 32, 32, 4.
    assert mapped_elements(mapping) == [(0, 32, 0), (32, 64, 1), (64, 96, 2), (96, 100, 3)]


def test_broadcast_to_match_follows_numpy(graph):
    a = graph.addVariable(poplar.FLOAT, [3, 1], "a")
    b = graph.addVariable(poplar.FLOAT, [4], "b")
    a2, b2 = poputil.broadcastToMatch(a, b)
    assert a2.shape() == [3, 4] and b2.shape() == [3, 4]
    assert poputil.canBroadcastToMatch(a, b)
    c = graph.addVariable(poplar.FLOAT, [2], "c")
    assert not poputil.canBroadcastToMatch(b, c)
    with pytest.raises(poputil.poplibs_error, match=r"Cannot broadcast shapes \[4\] and \[2\]"):
        poputil.broadcastToMatch(b, c)


def test_broadcast_view_reads_like_numpy(graph, device):
    a = graph.addVariable(poplar.FLOAT, [3, 1], "a")
    graph.setTileMapping(a, 0)
    values = np.array([[1], [2], [3]], np.float32)
    graph.setInitialValue(a, values)
    view = poputil.broadcastToMatch(a, [2, 3, 4])
    graph.createHostRead("view", view)
    engine = poplar.Engine(graph, program.Sequence())
    engine.load(device)
    out = np.zeros((2, 3, 4), np.float32)
    engine.readTensor("view", out)
    np.testing.assert_array_equal(out, np.broadcast_to(values, (2, 3, 4)))


def test_duplicate_copies_values_and_mapping(graph, device):
    src = graph.addVariable(poplar.INT, [6], "src")
    poputil.mapTensorLinearly(graph, src, 1, 1)
    graph.setInitialValue(src, np.arange(6, dtype=np.int32) * 7)
    seq = program.Sequence()
    dup = poputil.duplicate(graph, src, seq, "dup")
    assert mapped_elements(graph.getTileMapping(dup)) == mapped_elements(graph.getTileMapping(src))
    graph.createHostRead("dup", dup)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    engine.run(0)
    out = np.zeros(6, np.int32)
    engine.readTensor("dup", out)
    np.testing.assert_array_equal(out, np.arange(6) * 7)


def test_clone_n_stacks_clones_mapped_like_the_original(graph):
    t = graph.addVariable(poplar.FLOAT, [2, 5], "t")
    poputil.mapTensorLinearly(graph, t, 1, 1)
    stacked = poputil.cloneN(graph, t, 3, "copies")
    assert stacked.shape() == [3, 2, 5] and not stacked.containsAliases()
    for i in range(3):
        assert mapped_elements(graph.getTileMapping(stacked[i])) == mapped_elements(graph.getTileMapping(t))
        assert not stacked[i].intersectsWith(t)
