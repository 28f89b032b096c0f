"""Instances (engine options target.firstRuntimeReplica / numberRuntimeReplica /
syncReplicasIndependently) on the raw API, as threads of one process: 2 instances x 2
replicas give the bits of 1 process x 4 replicas for every collective; instances that
diverge or fail raise on every instance instead of hanging."""
import re
import time

import numpy as np
import pytest

import popdsl as pd
from popdsl import gcl, poplar, popops, poputil, program

pytestmark = pytest.mark.needs_emulator("instances exchange through the emulator's seam")

TILES, REPLICAS, ROWS = 4, 4, 4
TYPES = {np.float32: poplar.FLOAT, np.float16: poplar.HALF, np.int32: poplar.INT}
GROUPS = {"all": gcl.CommGroup(), "consecutive": gcl.CommGroup(gcl.CommGroupType.CONSECUTIVE, 2),
          "orthogonal": gcl.CommGroup(gcl.CommGroupType.ORTHOGONAL, 2)}


def slice_options(first, count):
    return {"target.firstRuntimeReplica": str(first), "target.numberRuntimeReplica": str(count),
            "target.syncReplicasIndependently": "true"}


def build(dtype):
    """A 4-replica graph whose one program runs every collective on input x ([ROWS, 3]) and
    returns (device, graph, program, names of the outputs)."""
    model = poplar.IPUModel("ipu2")
    model.numIPUs, model.tilesPerIPU = REPLICAS, TILES
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget(), poplar.replication_factor(REPLICAS))
    popops.addCodelets(graph)
    x = graph.addVariable(TYPES[dtype], [ROWS, 3], "x")
    poputil.mapTensorLinearly(graph, x)
    graph.createHostWrite("x", x)
    seq = program.Sequence()
    ops = ["ADD", "MAX", "MIN"] + (["MEAN"] if dtype != np.int32 else [])
    outs = {}
    for group_name, group in GROUPS.items():
        for op in ops:
            outs[f"allReduce {op} {group_name}"] = gcl.allReduceCrossReplica(
                graph, x, getattr(gcl.CollectiveOperator, op), seq, group)
        outs[f"reduceScatter {group_name}"] = gcl.reduceScatterCrossReplica(graph, x, gcl.CollectiveOperator.ADD,
                                                                             seq, group)
        outs[f"allGather {group_name}"] = gcl.allGatherCrossReplica(graph, x, seq, group)
        size = REPLICAS if group_name == "all" else 2
        outs[f"allToAll {group_name}"] = gcl.allToAllCrossReplica(graph, x.reshape([size, ROWS * 3 // size]), seq, group)
        for root in range(size):  # root 3 of all lives on instance 1
            outs[f"broadcast root {root} {group_name}"] = gcl.broadcastCrossReplica(graph, x, seq, group, root)
    copied = graph.clone(x, "copied")
    seq.add(program.CrossReplicaCopy(x, copied, {0: 3, 1: 0, 2: 1, 3: 2}))
    outs["cross_replica_copy"] = copied
    index = graph.addReplicationIndexConstant("index")
    graph.setTileMapping(index, 0)
    outs["replica index"] = index
    for name, t in outs.items():
        graph.createHostRead(name, t)
    return device, graph, seq, outs


def values_for(dtype, replicas=REPLICAS):
    rng = np.random.default_rng(7)
    if dtype == np.int32:
        return rng.integers(-50, 50, (replicas, ROWS, 3)).astype(np.int32)
    return rng.uniform(-2, 2, (replicas, ROWS, 3)).astype(dtype)


def run_slice(dtype, first, count):
    """Runs replicas [first, first + count) of the graph; returns {output: [count, ...]}."""
    device, graph, seq, outs = build(dtype)
    options = slice_options(first, count) if count < REPLICAS else {}
    engine = poplar.Engine(graph, seq, options)
    engine.load(device)
    engine.writeTensor("x", np.ascontiguousarray(values_for(dtype)[first:first + count]))
    engine.run(0)
    result = {}
    for name, t in outs.items():
        host = np.empty((count, *t.shape()), {poplar.FLOAT: np.float32, poplar.HALF: np.float16}.get(
            t.elementType(), np.int32 if t.elementType() == poplar.INT else np.uint32))
        result[name] = engine.readTensor(name, host)
    return result


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_two_instances_of_two_replicas_give_the_bits_of_one_process_of_four(dtype):
    one = run_slice(dtype, 0, REPLICAS)
    halves = pd.distributed.run_in_threads(lambda: run_slice(dtype, 2 * pd.distributed.instance_index(), 2), 2)
    for name in one:
        both = np.concatenate([halves[0][name], halves[1][name]])
        assert both.tobytes() == one[name].tobytes(), name
    # The one-process results are right (independent check of a few against numpy).
    x = values_for(dtype).astype(np.float64)
    np.testing.assert_array_equal(one["replica index"].ravel(), np.arange(REPLICAS))
    np.testing.assert_allclose(one["allReduce ADD all"], np.broadcast_to(x.sum(0), x.shape), rtol=2e-3)
    np.testing.assert_allclose(one["allReduce MAX orthogonal"][0], np.maximum(x[0], x[2]), rtol=1e-3)
    np.testing.assert_array_equal(one["broadcast root 3 all"].astype(np.float64), np.broadcast_to(x[3], x.shape))
    np.testing.assert_array_equal(one["cross_replica_copy"].astype(np.float64), x[[1, 2, 3, 0]])
    rows = x.reshape(REPLICAS, REPLICAS, -1)  # allToAll all: replica j gets row j of every replica
    np.testing.assert_array_equal(one["allToAll all"].astype(np.float64), rows.transpose(1, 0, 2))


def test_all_to_all_checks_its_first_dimension():
    _, graph, seq, _ = build(np.float32)
    x = graph.addVariable(poplar.FLOAT, [3, 2], "odd")
    poputil.mapTensorLinearly(graph, x)
    with pytest.raises(poputil.poplibs_error, match="first dimension of .*odd.* must be the group's size, 4"):
        gcl.allToAllCrossReplica(graph, x, seq)


def diverging_graph():
    """Program 0 all-reduces x; program 1 all-gathers it; program 2 does nothing."""
    device, graph, _, _ = build(np.float32)
    reduce, gather = program.Sequence(), program.Sequence()
    y = graph.addVariable(poplar.FLOAT, [2], "y")
    poputil.mapTensorLinearly(graph, y)
    gcl.allReduceCrossReplica(graph, y, gcl.CollectiveOperator.ADD, reduce, "sum")
    gcl.allGatherCrossReplica(graph, y, gather, "gather")
    return device, graph, [reduce, gather, program.Sequence()]


@pytest.mark.parametrize("programs, reached", [
    ((0, 1), r"instance 0 reached step \d+ of program 0: all-reduce 'sum'.*instance 1 reached step \d+ of program 1: "
             r"all-gather 'gather'"),
    ((0, 2), r"instance 0 reached step \d+ of program 0: all-reduce 'sum'.*instance 1 reached the end of program 2"),
])
def test_instances_that_diverge_raise_on_every_instance_naming_the_steps(programs, reached):
    def instance():
        device, graph, progs = diverging_graph()
        k = pd.distributed.instance_index()
        engine = poplar.Engine(graph, progs, slice_options(2 * k, 2))
        engine.load(device)
        engine.run(programs[k])

    start = time.monotonic()
    with pytest.raises(pd.distributed.InstancesFailed) as failed:
        pd.distributed.run_in_threads(instance, 2, timeout=30)
    assert time.monotonic() - start < 20
    for k, error in enumerate(failed.value.errors):
        assert isinstance(error, poplar.poplar_error)
        assert f"Engine::run on instance {k}: the instances took different paths" in str(error)
        assert re.search(reached, str(error)), str(error)


def test_an_instance_that_raises_releases_the_others():
    def instance():
        device, graph, progs = diverging_graph()
        k = pd.distributed.instance_index()
        if k == 1:
            raise ValueError("instance 1 broke before running")
        engine = poplar.Engine(graph, progs, slice_options(0, 2))
        engine.load(device)
        engine.run(0)

    start = time.monotonic()
    with pytest.raises(pd.distributed.InstancesFailed, match="instance 1: ValueError: instance 1 broke") as failed:
        pd.distributed.run_in_threads(instance, 2, timeout=30)
    assert time.monotonic() - start < 20
    assert "aborted: instance 1 raised ValueError: instance 1 broke before running" in str(failed.value.errors[0])


@pytest.mark.parametrize("collective", ["device", "host"])
def test_an_instance_that_returns_while_another_waits_releases_it_naming_it(collective):
    def instance():
        device, graph, progs = diverging_graph()
        k = pd.distributed.instance_index()
        engine = poplar.Engine(graph, progs, slice_options(2 * k, 2))
        engine.load(device)
        if k == 0:
            engine.run(0) if collective == "device" else pd.distributed.barrier()

    start = time.monotonic()
    with pytest.raises(pd.distributed.InstancesFailed, match=r"1 of 2 instance\(s\) failed") as failed:
        pd.distributed.run_in_threads(instance, 2, timeout=30)
    assert time.monotonic() - start < 20
    assert failed.value.errors[1] is None
    assert ("aborted: instance 1 ended (its function returned) before reaching the exchange"
            in str(failed.value.errors[0]))


def test_an_instance_that_never_arrives_times_out_naming_it():
    def instance():
        if pd.distributed.instance_index() == 0:
            pd.distributed.barrier()
        else:
            time.sleep(1.5)

    with pytest.raises(pd.distributed.InstancesFailed, match=r"instance\(s\) 1 did not reach the exchange within 0\.5"):
        pd.distributed.run_in_threads(instance, 2, timeout=0.5)


def test_a_slice_is_checked_against_the_replicas():
    device, graph, seq, _ = build(np.float32)
    with pytest.raises(poplar.poplar_error, match="firstRuntimeReplica=3 and target.numberRuntimeReplica=2 choose "
                                                  "replicas outside the graph's 4"):
        poplar.Engine(graph, seq, slice_options(3, 2))
    with pytest.raises(poplar.poplar_error, match="needs target.syncReplicasIndependently=true"):
        poplar.Engine(graph, seq, {"target.firstRuntimeReplica": "0", "target.numberRuntimeReplica": "2"})
    engine = poplar.Engine(graph, seq, slice_options(2, 2))  # no exchange on this thread
    engine.load(device)
    engine.writeTensor("x", np.zeros((2, ROWS, 3), np.float32))
    with pytest.raises(poplar.poplar_error, match="no exchange between instances was set up"):
        engine.run(0)
    with pytest.raises(poplar.poplar_error, match=r"needs 96 \(2 replicas x 12 x float\)"):
        engine.writeTensor("x", np.zeros((4, ROWS, 3), np.float32))
