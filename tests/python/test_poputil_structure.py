"""poputil layout structure and the remaining utilities: groupings, partitionable tensors,
use tracking, clones into other graphs or with aliases expanded, factored dimensions,
unshuffling intervals and the HALF cast checks."""
import subprocess

import numpy as np
import pytest

from popdsl import poplar, poputil
from cpp_build import build_program
from raw_runner import Runner


def tiles_of(graph, t):
    """The tile of each flat element of t."""
    where = np.full(t.numElements(), -1)
    for tile, regions in enumerate(graph.getTileMapping(t)):
        for interval in regions:
            where[interval.begin():interval.end()] = tile
    return where


def test_partitionable_tensor_has_one_contiguous_region_per_partition():
    r = Runner()
    t = poputil.createPartitionableTensor(r.graph, poplar.FLOAT, [5, 6], [2, 3], "p")
    assert t.shape() == [5, 6]
    seen = []
    poputil.iterateTensorPartitions(t, [2, 3], lambda i, s: seen.append((list(i), s.shape(), s.isContiguous())))
    assert seen == [([0, 0], [3, 2], True), ([0, 1], [3, 2], True), ([0, 2], [3, 2], True),
                    ([1, 0], [2, 2], True), ([1, 1], [2, 2], True), ([1, 2], [2, 2], True)]
    # A plain variable's partitions are not contiguous, but they are the same slices.
    v = r.graph.addVariable(poplar.FLOAT, [5, 6], "v")
    slices = []
    poputil.iterateTensorPartitions(v, [2, 3], lambda i, s: slices.append(s))
    assert slices[4] == v.slice(3, 5, 0).slice(2, 4, 1) and not slices[0].isContiguous()
    with pytest.raises(poputil.poplibs_error, match="rank 2 but 1 partition count"):
        poputil.iterateTensorPartitions(v, [2], lambda i, s: None)
    with pytest.raises(poputil.poplibs_error, match="rank 1 but 2 partition count"):
        poputil.createPartitionableTensor(r.graph, poplar.FLOAT, [5], [1, 1])


def test_innermost_grouping_follows_contiguity_and_tiles():
    r = Runner()
    v = r.graph.addVariable(poplar.FLOAT, [4, 8], "v")
    r.graph.setTileMapping(v, 0)
    assert poputil.detectInnermostGrouping(r.graph, v) == 8
    r.graph.setTileMapping(v.slice(4, 8, 1), 1)
    assert poputil.detectInnermostGrouping(r.graph, v) == 4
    assert poputil.detectInnermostGrouping(r.graph, v.transpose()) == 1
    with pytest.raises(poputil.poplibs_error, match="rank-0"):
        poputil.detectInnermostGrouping(r.graph, v[0][0])


def test_dim_groupings_factor_out_each_group_found():
    r = Runner()
    # t[i, j] lives at v[i // 4, j, i % 4]: dimension 0 comes in groups of 4.
    v = r.graph.addVariable(poplar.FLOAT, [2, 16, 4], "v")
    r.graph.setTileMapping(v, 0)
    t = v.dimShuffle([0, 2, 1]).reshape([8, 16])
    assert poputil.detectInnermostGrouping(r.graph, t) == 1
    assert poputil.detectDimGroupings(r.graph, t) == [(0, 4), (1, 16), (0, 2)]


def test_use_tracker_maps_each_element_to_a_tile_that_uses_it_spreading_shared_ones():
    r = Runner()
    t = r.graph.addVariable(poplar.FLOAT, [12], "t")
    tracker = poputil.TensorUseTracker(4)
    assert tracker.empty()
    tracker.add(r.graph, 0, t.slice(0, 6))
    other = poputil.TensorUseTracker(4)
    other.add(r.graph, 1, t.slice(4, 12))
    other.add(r.graph, 2, t.slice(4, 6))
    tracker.add(poputil.TensorUseTracker(other))
    assert not tracker.empty()
    # MappingMethod.None_ is C++'s MappingMethod::None (None is a Python keyword).
    tracker.mapTensorsByUse(r.graph, 1, 0, False, poputil.TensorUseTracker.MappingMethod.None_)
    where = tiles_of(r.graph, t)
    assert list(where[:4]) == [0] * 4 and list(where[6:]) == [1] * 6
    assert set(where[4:6]) <= {0, 1, 2} and where[4] != where[5]
    resolved = poputil.TensorUseTracker(4, 0, True)
    resolved.add(r.graph, 3, t)
    resolved.resolve(r.graph, 2, 0, False, poputil.TensorUseTracker.MappingMethod.ConstrainMappingToUsedTiles)
    halo = poputil.TensorUseTracker(resolved)
    halo.mapTensorsByUse(r.graph, 2, 0, False, poputil.TensorUseTracker.MappingMethod.OptimizeHaloRegions)
    assert list(tiles_of(r.graph, t)) == [3] * 12
    with pytest.raises(poputil.poplibs_error, match="tile 4 is out of range: the tracker has 4 tile"):
        tracker.add(r.graph, 4, t)
    with pytest.raises(poputil.poplibs_error, match="extendPartialUsage is not supported"):
        tracker.resolve(r.graph, 1, 0, True)


def test_clone_to_graph_keeps_tiles_and_checks_the_destination_size():
    src = Runner()
    t = src.tensor(np.zeros(10), poplar.FLOAT, "t")
    dst = Runner()
    clone = poputil.cloneToGraph(src.graph, dst.graph, t, "clone")
    assert clone.shape() == [10] and list(tiles_of(dst.graph, clone)) == list(tiles_of(src.graph, t))
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 2
    small = poplar.Graph(model.createDevice().getTarget())
    with pytest.raises(poputil.poplibs_error, match="has elements on tile 2; the destination graph has 2 tile"):
        poputil.cloneToGraph(src.graph, small, t)


def test_clone_and_expand_aliasing_gives_aliased_elements_their_own_storage():
    r = Runner()
    v = r.graph.addVariable(poplar.FLOAT, [6], "v")
    for i in range(6):
        r.graph.setTileMapping(v.slice(i, i + 1), i % 4)
    t = poplar.concat([v.slice(0, 4), v.slice(2, 6)])  # v[2] and v[3] appear twice
    assert t.containsAliases()
    clone, offset = poputil.cloneAndExpandAliasing(r.graph, t, 1)
    assert clone.shape() == [8] and not clone.containsAliases()
    where = tiles_of(r.graph, clone)
    assert [where[0], where[1], where[6], where[7]] == [0, 1, 0, 1]
    expected_mapping, expected_offset = poputil.calcLinearTileMappingAndNewOffset(
        r.graph, r.graph.addVariable(poplar.FLOAT, [4], "like_the_aliases"), 1)
    assert offset == expected_offset
    assert [tile for tile, regions in enumerate(expected_mapping) for i in regions for _ in range(i.size())] == \
        list(where[2:6])
    plain = r.graph.addVariable(poplar.FLOAT, [3], "plain")
    r.graph.setTileMapping(plain, 2)
    same, unchanged = poputil.cloneAndExpandAliasing(r.graph, plain, 3)
    assert unchanged == 3 and list(tiles_of(r.graph, same)) == [2, 2, 2]


def test_factor_dims_and_back():
    r = Runner()
    t = r.graph.addVariable(poplar.FLOAT, [4, 6, 4], "t")
    f = poputil.factorDims(t, [1, 2])
    assert f.shape() == [4, 3, 1, 2, 4]
    assert f[2][1][0][1] == t[2][3] and f[3][2][0][0] == t[3][4]
    assert poputil.unfactorDims(f, 2) == t
    assert poputil.factorDims(t, [2], 1).shape() == [4, 3, 2, 4]
    with pytest.raises(poputil.poplibs_error, match="factor 4 does not divide dimension 1 of size 6"):
        poputil.factorDims(t, [1, 4])


def test_unshuffling_intervals_undo_the_shuffle():
    r = Runner()
    t = r.graph.addVariable(poplar.FLOAT, [9], "t")
    shuffle = [poplar.Interval(4, 6), poplar.Interval(0, 4), poplar.Interval(6, 9)]
    shuffled = poplar.concat(t.slices(shuffle))
    unshuffle = poputil.calculateUnshufflingIntervals(shuffle)
    assert [(i.begin(), i.end()) for i in unshuffle] == [(2, 6), (0, 2), (6, 9)]
    assert poplar.concat(shuffled.slices(unshuffle)) == t
    with pytest.raises(poputil.poplibs_error, match="none starts at 4"):
        poputil.calculateUnshufflingIntervals([poplar.Interval(0, 4), poplar.Interval(5, 9)])


def test_half_cast_checks():
    target = Runner().graph.getTarget()
    assert poputil.castToDeviceHalfValue(target, 1 / 3) == float(np.float16(1 / 3))
    assert poputil.castToDeviceHalfValue(target, 2.0) == 2.0
    assert poputil.checkAccuracyWhenCast(target, 1 / 3, poplar.FLOAT, poplar.HALF, 1e-3)
    assert not poputil.checkAccuracyWhenCast(target, 1 / 3, poplar.FLOAT, poplar.HALF, 1e-6)
    assert not poputil.checkAccuracyWhenCast(target, 70000.0, poplar.FLOAT, poplar.HALF, 1.0)
    assert poputil.checkAccuracyWhenCast(target, 0.5, poplar.HALF, poplar.FLOAT, 0.0)
    with pytest.raises(poputil.poplibs_error, match="the output type int must be HALF or FLOAT"):
        poputil.checkAccuracyWhenCast(target, 1.0, poplar.FLOAT, poplar.INT, 0.1)


def test_cpp_tensor_meta_data_and_index_helpers(tmp_path):
    exe = build_program(tmp_path, r'''
#include <poputil/TensorMetaData.hpp>
#include <poputil/Util.hpp>
#include <cstdio>
#include <utility>
int main() {
  poputil::TensorMetaData empty, copied(empty), moved(std::move(copied));
  copied = moved;
  moved = std::move(copied);
  std::vector<std::size_t> shape = {2, 3, 4}, where = poputil::unflattenIndex(shape, 17);
  std::printf("%d %zu %zu %zu %zu\n", empty.getData() == nullptr && moved.getData() == nullptr ? 1 : 0,
              where[0], where[1], where[2], poputil::flattenIndex(shape, where));
}''')
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert out == ["1", *map(str, np.unravel_index(17, (2, 3, 4))), "17"]
