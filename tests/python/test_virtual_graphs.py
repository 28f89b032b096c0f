"""Graph::createVirtualGraph: the same graph seen through some of its tiles, numbered from 0.

Targets here have 2 IPUs of 4 tiles (tiles 0-3 on IPU 0, 4-7 on IPU 1)."""
import numpy as np
import pytest

from popdsl import poplar, popops, poputil, program
from popdsl.popops import expr as pe

pytestmark = pytest.mark.needs_emulator("checks the emulator's tile numbering of virtual graphs")


@pytest.fixture
def graph():
    model = poplar.IPUModel("ipu2")
    model.numIPUs, model.tilesPerIPU = 2, 4
    device = model.createDevice()
    g = poplar.Graph(device.getTarget())
    popops.addCodelets(g)
    return device, g


def tiles_holding(g, t):
    return [tile for tile, intervals in enumerate(g.getTileMapping(t)) if intervals]


def test_a_range_within_one_ipu_is_a_one_ipu_graph_of_its_tiles(graph):
    _, g = graph
    v = g.createVirtualGraph(4, 7)
    assert (v.getTarget().getNumIPUs(), v.getTarget().getTilesPerIPU(), v.getTarget().getNumTiles()) == (1, 3, 3)
    assert [v.convertVirtualTileToPhysicalTile(i) for i in range(3)] == [4, 5, 6]
    assert v.convertPhysicalTileToVirtualTile(5) == 1
    t = v.addVariable(poplar.FLOAT, [300], "t")
    poputil.mapTensorLinearly(v, t)
    assert tiles_holding(g, t) == [4, 5, 6]
    # The virtual graph reports the same intervals on its own tile numbers.
    assert [[(i.begin(), i.end()) for i in tile] for tile in v.getTileMapping(t)] == \
           [[(i.begin(), i.end()) for i in g.getTileMapping(t)[tile]] for tile in (4, 5, 6)]


def test_whole_ipus_and_tiles_of_every_ipu(graph):
    _, g = graph
    both = g.createVirtualGraph(0, 8)
    assert (both.getTarget().getNumIPUs(), both.getTarget().getTilesPerIPU()) == (2, 4)
    first_two = g.createVirtualGraph(2)  # the first 2 tiles of each IPU
    assert (first_two.getTarget().getNumIPUs(), first_two.getTarget().getTilesPerIPU()) == (2, 2)
    assert [first_two.convertVirtualTileToPhysicalTile(i) for i in range(4)] == [0, 1, 4, 5]
    odd = g.createVirtualGraph([1, 3])  # tiles 1 and 3 of each IPU
    assert [odd.convertVirtualTileToPhysicalTile(i) for i in range(4)] == [1, 3, 5, 7]
    t = odd.addVariable(poplar.FLOAT, [4], "t")
    odd.setTileMapping(t, 2)
    assert tiles_holding(g, t) == [5]


def test_a_virtual_graph_of_a_virtual_graph_counts_from_its_parent(graph):
    _, g = graph
    ipu1 = g.createVirtualGraph(4, 8)
    middle = ipu1.createVirtualGraph(1, 3)
    assert [middle.convertVirtualTileToPhysicalTile(i) for i in range(2)] == [5, 6]
    assert middle.getTopLevelGraph() is g
    assert ipu1.getTopLevelGraph() is g and g.getTopLevelGraph() is g


@pytest.mark.parametrize("make, message", [
    (lambda g: g.createVirtualGraph(3, 6), "within one IPU or cover whole IPUs"),
    (lambda g: g.createVirtualGraph(2, 9), "lowerTile < upperTile <= 8"),
    (lambda g: g.createVirtualGraph(5, 5), "lowerTile < upperTile"),
    (lambda g: g.createVirtualGraph(0), "between 1 and the graph's 4"),
    (lambda g: g.createVirtualGraph(5), "between 1 and the graph's 4"),
    (lambda g: g.createVirtualGraph([1, 4]), "tile 4 of perIpuTiles is not below"),
    (lambda g: g.createVirtualGraph([2, 2]), "named twice"),
    (lambda g: g.createVirtualGraph([]), "perIpuTiles is empty"),
])
def test_bad_tile_ranges_are_refused(graph, make, message):
    _, g = graph
    with pytest.raises(poplar.poplar_error, match=message):
        make(g)


def test_tiles_outside_a_virtual_graph_are_refused(graph):
    _, g = graph
    v = g.createVirtualGraph(4, 6)
    t = v.addVariable(poplar.FLOAT, [4], "t")
    with pytest.raises(poplar.invalid_tile_mapping, match="tile 2 does not exist"):
        v.setTileMapping(t, 2)
    with pytest.raises(poplar.invalid_tile_mapping, match="tile 2 does not exist"):
        v.convertVirtualTileToPhysicalTile(2)
    with pytest.raises(poplar.invalid_tile_mapping, match="tile 1 is not one of this virtual graph's tiles"):
        v.convertPhysicalTileToVirtualTile(1)
    # A tensor on IPU 0 is not mapped as far as IPU 1's graph can see.
    elsewhere = g.addVariable(poplar.FLOAT, [4], "elsewhere")
    g.setTileMapping(elsewhere, 0)
    assert all(not tile for tile in v.getTileMapping(elsewhere, False))
    with pytest.raises(poplar.invalid_tile_mapping, match="not completely mapped to this virtual graph's tiles"):
        v.getTileMapping(elsewhere)


def test_programs_built_on_virtual_graphs_run_in_the_top_level_engine(graph):
    device, g = graph
    ipu0, ipu1 = g.createVirtualGraph(0, 4), g.createVirtualGraph(4, 8)
    a = ipu0.addVariable(poplar.FLOAT, [256], "a")
    poputil.mapTensorLinearly(ipu0, a)
    inp = ipu0.addHostToDeviceFIFO("in", poplar.FLOAT, 256)  # recorded where g's Engine finds it
    seq = program.Sequence([program.Copy(inp, a)])
    doubled = popops.map(ipu0, pe._1 * 2, [a], seq, "double")
    moved = poputil.copyToIpu(g, doubled, seq, 1, "move")
    result = popops.map(ipu1, pe._1 + 1, [moved], seq, "increment")
    g.createHostRead("result", result)
    assert tiles_holding(g, doubled) == [0, 1, 2, 3]
    assert tiles_holding(g, moved) == tiles_holding(g, result) == [4, 5, 6, 7]

    values = np.arange(256, dtype=np.float32)
    engine = poplar.Engine(g, seq)
    engine.load(device)
    engine.connectStream("in", values)
    engine.run(0)
    out = engine.readTensor("result", np.zeros(256, np.float32))
    np.testing.assert_array_equal(out, values.astype(np.float64) * 2 + 1)


def test_a_virtual_graph_outlives_the_python_name_of_its_parent(graph):
    _, g = graph
    v = g.createVirtualGraph(0, 2)
    del g  # the virtual graph keeps its top-level graph alive
    t = v.addVariable(poplar.FLOAT, [2], "t")
    v.setTileMapping(t, 1)
    assert v.getTopLevelGraph().getTileMapping(t)[1][0].size() == 2
