"""poputil/Util.hpp interval helpers: merging, flattening, balanced splitting."""
import pytest

from popdsl import poplar, poputil

I = poplar.Interval


def pairs(intervals):
    return [(i.begin(), i.end()) for i in intervals]


def test_merge_and_flatten():
    merged = poputil.mergeAdjacentRegions([I(5, 7), I(0, 2), I(2, 4), I(9, 9), I(7, 8)])
    assert pairs(merged) == [(0, 4), (5, 8)]
    mapping = poputil.mergeAdjacentRegions([[I(3, 4), I(1, 3)], [], [I(8, 9)]])
    assert [pairs(m) for m in mapping] == [[(1, 4)], [], [(8, 9)]]
    assert pairs(poputil.flattenIntervals([[I(0, 1)], [], [I(4, 6), I(2, 3)]])) == [(0, 1), (4, 6), (2, 3)]
    assert poputil.intervalSequenceNumElements([[I(0, 1)], [I(4, 6), I(2, 3)]]) == 4


def elements(intervals):
    return [e for i in intervals for e in range(i.begin(), i.end())]


@pytest.mark.parametrize("regions,grain,parts,max_region", [
    ([(0, 10), (20, 27), (40, 41)], 1, 4, 2**32 - 1),
    ([(0, 10), (20, 27), (40, 41)], 4, 3, 2**32 - 1),
    ([(0, 100)], 8, 6, 16),
    ([(3, 5)], 2, 6, 2**32 - 1),
])
def test_split_regions_is_ordered_balanced_and_grain_aligned(regions, grain, parts, max_region):
    regions = [I(*r) for r in regions]
    split = poputil.splitRegions(regions, grain, parts, 0, 2**32 - 1, max_region)
    assert 0 < len(split) <= parts
    assert [e for p in split for e in elements(p)] == elements(regions)  # every element once, in order
    total_grains = sum(-(-r.size() // grain) for r in regions)
    per_partition = -(-total_grains // parts)
    for p in split[:-1]:
        assert sum(-(-i.size() // grain) for i in p) <= per_partition
    for p in split:
        for i in p:
            assert i.size() <= max(max_region // grain * grain, grain)
            region = next(r for r in regions if r.begin() <= i.begin() < r.end())
            assert (i.begin() - region.begin()) % grain == 0  # cuts only at grain boundaries


def test_split_sequences_and_between_workers():
    sequences = [[I(0, 3), I(10, 13)], [I(20, 26)]]
    split = poputil.splitRegions(sequences, 2, 4)  # 6 grains: 2 per partition, grains run across regions
    assert [[pairs(seq) for seq in p] for p in split] == [
        [[(0, 3), (10, 11)]], [[(11, 13)], [(20, 22)]], [[(22, 26)]]]
    target = poplar.IPUModel("ipu2").createDevice().getTarget()
    workers = poputil.splitRegionsBetweenWorkers(target, [I(0, 60)], 1)
    assert len(workers) == target.getNumWorkerContexts() == 6 and all(sum(i.size() for i in w) == 10 for w in workers)
    assert len(poputil.splitRegionsBetweenWorkers(target, sequences, 1)) == 6


def test_split_limits():
    assert len(poputil.splitRegions([I(0, 60)], 1, 6, 25)) == 3  # at least 25 per partition
    with pytest.raises(poputil.poplibs_error, match="splitRegions: 60 grains of 1 elements do not fit 2 partitions of at most 20"):
        poputil.splitRegions([I(0, 60)], 1, 2, 0, 20)
    with pytest.raises(poputil.poplibs_error, match=r"grainSize \(0\) and maxPartitions \(1\) must be at least 1"):
        poputil.splitRegions([I(0, 6)], 0, 1)


def test_balanced_partition():
    assert poputil.balancedPartition(10, 4) == [3, 3, 2, 2]
    assert poputil.balancedPartition(0, 2) == [0, 0]
    with pytest.raises(poputil.poplibs_error, match="balancedPartition: cannot split 5 into 0 parts"):
        poputil.balancedPartition(5, 0)
