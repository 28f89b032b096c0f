"""Replicated graphs on the raw API: replication_factor, per-replica memory and streams,
the replica index, and gcl's cross-replica collectives against numpy."""
import numpy as np
import pytest

from popdsl import gcl, poplar, popops, poputil, program
from popdsl.popops import expr as pe

pytestmark = pytest.mark.needs_emulator("runs replicated graphs, which the IPU Model of the SDK does not")

TILES = 4


def replicated(replicas, ipus_per_replica=1):
    """(device, graph) with `replicas` replicas of `ipus_per_replica` IPUs of TILES tiles."""
    model = poplar.IPUModel("ipu2")
    model.numIPUs = replicas * ipus_per_replica
    model.tilesPerIPU = TILES
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget(), poplar.replication_factor(replicas))
    popops.addCodelets(graph)
    return device, graph


def variable(graph, shape, name, type_=poplar.FLOAT):
    t = graph.addVariable(type_, list(shape), name)
    poputil.mapTensorLinearly(graph, t)
    graph.createHostWrite(name, t)
    graph.createHostRead(name, t)
    return t


def loaded(graph, device, prog):
    engine = poplar.Engine(graph, prog)
    engine.load(device)
    return engine


def per_replica_values(shape, replicas, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random((replicas, *shape)) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, (replicas, *shape)).astype(dtype)
    return rng.uniform(0.5, 2.0, (replicas, *shape)).astype(dtype)


# --- replicated graphs ---------------------------------------------------------------------

def test_a_replicated_graph_targets_one_replica_of_the_device():
    device, graph = replicated(2, ipus_per_replica=2)
    assert graph.getReplicationFactor() == 2
    assert device.getTarget().getNumIPUs() == 4
    assert graph.getTarget().getNumIPUs() == 2
    assert graph.getTarget().getNumTiles() == 2 * TILES
    assert poplar.Graph(device.getTarget()).getReplicationFactor() == 1


def test_a_replication_factor_must_divide_the_devices_ipus():
    model = poplar.IPUModel("ipu2")
    model.numIPUs, model.tilesPerIPU = 4, TILES
    with pytest.raises(poplar.graph_replication_error, match="replication factor of 3 does not divide the target's 4"):
        poplar.Graph(model.createDevice().getTarget(), poplar.replication_factor(3))


def test_the_engine_needs_a_device_with_every_replicas_ipus():
    _, graph = replicated(2)
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = TILES
    engine = poplar.Engine(graph, program.Sequence())
    with pytest.raises(poplar.poplar_error, match=r"1 IPU\(s\).*2 replica\(s\) of 1 IPU\(s\)"):
        engine.load(model.createDevice())


@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
def test_each_replica_has_its_own_memory_and_knows_its_index(replicas):
    device, graph = replicated(replicas)
    x = variable(graph, (3,), "x")
    index = graph.addReplicationIndexConstant("index")
    graph.setTileMapping(index, 0)
    out = variable(graph, (), "index_out", poplar.UNSIGNED_INT)
    seq = program.Sequence([program.Copy(index, out)])
    popops.mapInPlace(graph, pe._1 * 10.0 + pe.Cast(pe._2, poplar.FLOAT), [x, index], seq, "scale")
    engine = loaded(graph, device, seq)
    start = per_replica_values((3,), replicas)
    engine.writeTensor("x", start)
    engine.run(0)
    got = engine.readTensor("x", np.empty((replicas, 3), np.float32))
    expected = start.astype(np.float64) * 10 + np.arange(replicas)[:, None]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_array_equal(engine.readTensor("index_out", np.empty(replicas, np.uint32)), np.arange(replicas))


def test_host_buffers_of_a_replicated_graph_hold_every_replica():
    device, graph = replicated(2)
    variable(graph, (3,), "x")
    engine = loaded(graph, device, program.Sequence())
    with pytest.raises(poplar.poplar_error, match=r"holds 12 bytes but the tensor needs 24 \(2 replicas x 3 x float\)"):
        engine.writeTensor("x", np.zeros(3, np.float32))


def test_a_replicated_executable_serializes_with_its_replication():
    device, graph = replicated(3)
    index = graph.addReplicationIndexConstant("index")
    graph.setTileMapping(index, 0)
    out = variable(graph, (), "out", poplar.UNSIGNED_INT)
    exe = poplar.compileGraph(graph, [program.Sequence([program.Copy(index, out)])])
    engine = poplar.Engine(poplar.Executable.deserialize(exe.serialize()))
    engine.load(device)
    engine.run(0)
    np.testing.assert_array_equal(engine.readTensor("out", np.empty(3, np.uint32)), [0, 1, 2])


# --- streams ------------------------------------------------------------------------------

def test_a_replicate_stream_buffer_holds_one_item_per_replica_for_each_copy():
    replicas = 3
    device, graph = replicated(replicas)
    x = variable(graph, (2,), "x")
    total = variable(graph, (2,), "total")
    inp = graph.addHostToDeviceFIFO("in", poplar.FLOAT, 2)
    outp = graph.addDeviceToHostFIFO("out", poplar.FLOAT, 2)
    assert inp.replicationFactor() == replicas
    body = program.Sequence([program.Copy(inp, x)])
    popops.addInPlace(graph, total, x, body)
    body.add(program.Copy(total, outp))
    engine = loaded(graph, device, program.Repeat(2, body))
    feed = per_replica_values((replicas, 2), 2).reshape(2, replicas, 2)  # [copy][replica][elements]
    received = np.zeros((2, replicas, 2), np.float32)
    engine.connectStream("in", feed)
    engine.connectStream("out", received)
    engine.run(0)
    expected = np.cumsum(feed.astype(np.float64), axis=0)
    np.testing.assert_allclose(received, expected, rtol=1e-6)
    np.testing.assert_allclose(engine.readTensor("total", np.empty((replicas, 2), np.float32)), expected[-1], rtol=1e-6)


def test_a_broadcast_stream_callback_feeds_every_replica_the_same_data():
    replicas = 2
    device, graph = replicated(replicas)
    x = variable(graph, (4,), "x")
    graph.addHostToDeviceFIFO("in", poplar.FLOAT, 4, poplar.ReplicatedStreamMode.BROADCAST)
    body = program.Sequence([program.Copy(graph._streams["in"], x)])
    engine = loaded(graph, device, program.Repeat(3, body))
    calls = []

    def fill(buffer):
        calls.append(len(calls))
        buffer[:] = np.arange(4) + 10 * len(calls)

    engine.connectStreamToCallback("in", fill)
    engine.run(0)
    assert len(calls) == 3  # once per copy, not once per replica
    np.testing.assert_array_equal(engine.readTensor("x", np.empty((replicas, 4), np.float32)),
                                  np.tile(np.arange(4) + 30, (replicas, 1)))


def test_stream_callbacks_and_host_functions_per_replica():
    replicas = 3
    device, graph = replicated(replicas)
    x = variable(graph, (2,), "x")
    y = variable(graph, (2,), "y")
    graph.addHostToDeviceFIFO("in", poplar.FLOAT, 2)
    twice = graph.addHostFunction("twice", [(poplar.FLOAT, 2)], [(poplar.FLOAT, 2)])
    seq = program.Sequence([program.Copy(graph._streams["in"], x), program.Call(twice, [x], [y])])
    engine = loaded(graph, device, seq)
    for r in range(replicas):
        engine.connectStreamToCallback("in", r, lambda buffer, r=r: buffer.__setitem__(slice(None), [r, -r]))

        def host(inputs, outputs, r=r):
            outputs[0][:] = inputs[0] * 2 + 100 * r
        engine.connectHostFunction("twice", r, host)
    engine.run(0)
    rows = np.array([[r, -r] for r in range(replicas)], np.float64)
    np.testing.assert_array_equal(engine.readTensor("y", np.empty((replicas, 2), np.float32)),
                                  rows * 2 + 100 * np.arange(replicas)[:, None])
    with pytest.raises(poplar.stream_connection_error, match=r"replica 3 does not exist \(the graph has 3 replica"):
        engine.connectStreamToCallback("in", 3, lambda buffer: None)
    with pytest.raises(poplar.stream_connection_error, match="replica 5 does not exist"):
        engine.connectHostFunction("twice", 5, lambda i, o: None)


# --- collectives --------------------------------------------------------------------------

NUMPY_REDUCTIONS = {
    "ADD": lambda v: v.sum(0), "MEAN": lambda v: v.mean(0), "MUL": lambda v: v.prod(0),
    "MIN": lambda v: v.min(0), "MAX": lambda v: v.max(0), "SQUARE_ADD": lambda v: (v * v).sum(0),
    "LOGICAL_AND": lambda v: v.all(0), "LOGICAL_OR": lambda v: v.any(0),
}


def groups(replicas, group):
    """The replica groups of a gcl.CommGroup, as numpy index lists."""
    if group.type == gcl.CommGroupType.ALL or group.replicaGroupSize == 0:
        return [list(range(replicas))]
    k = group.replicaGroupSize
    if group.type == gcl.CommGroupType.CONSECUTIVE:
        return [list(range(g * k, (g + 1) * k)) for g in range(replicas // k)]
    stride = replicas // k
    return [list(range(first, replicas, stride)) for first in range(stride)]


def run_collective(replicas, build, values, out_shape, out_type=None, group_ipus=1):
    """Writes values[r] to replica r's input, runs build(graph, input, seq) -> output and
    returns every replica's output."""
    device, graph = replicated(replicas, group_ipus)
    type_ = {np.float32: poplar.FLOAT, np.int32: poplar.INT, np.bool_: poplar.BOOL}[values.dtype.type]
    x = variable(graph, values.shape[1:], "x", type_)
    seq = program.Sequence()
    out = build(graph, x, seq)
    graph.createHostRead("out", out)
    engine = loaded(graph, device, seq)
    engine.writeTensor("x", np.ascontiguousarray(values))
    engine.run(0)
    return engine.readTensor("out", np.empty((replicas, *out_shape), out_type or values.dtype)), engine


@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("op", ["ADD", "MEAN", "MUL", "MIN", "MAX", "SQUARE_ADD"])
def test_all_reduce_matches_numpy(replicas, op):
    values = per_replica_values((2, 3), replicas, seed=replicas)
    got, _ = run_collective(replicas, lambda g, x, seq: gcl.allReduceCrossReplica(
        g, x, getattr(gcl.CollectiveOperator, op), seq, "reduce"), values, (2, 3))
    expected = NUMPY_REDUCTIONS[op](values.astype(np.float64))
    np.testing.assert_allclose(got, np.broadcast_to(expected, got.shape), rtol=1e-6)


@pytest.mark.parametrize("op", ["LOGICAL_AND", "LOGICAL_OR"])
def test_logical_all_reduce_of_bools(op):
    values = per_replica_values((8,), 3, np.bool_)
    got, _ = run_collective(3, lambda g, x, seq: gcl.allReduceCrossReplica(
        g, x, getattr(gcl.CollectiveOperator, op), seq), values, (8,))
    np.testing.assert_array_equal(got, np.broadcast_to(NUMPY_REDUCTIONS[op](values), got.shape))


def test_local_keeps_each_replicas_value_and_integers_reduce_exactly():
    values = per_replica_values((5,), 3, np.int32)
    local, _ = run_collective(3, lambda g, x, seq: gcl.allReduceCrossReplica(
        g, x, gcl.CollectiveOperator.LOCAL, seq), values, (5,))
    np.testing.assert_array_equal(local, values)
    summed, _ = run_collective(3, lambda g, x, seq: gcl.allReduceCrossReplica(
        g, x, gcl.CollectiveOperator.ADD, seq), values, (5,))
    np.testing.assert_array_equal(summed, np.broadcast_to(values.sum(0), (3, 5)))


@pytest.mark.parametrize("replicas", [2, 4])
def test_all_reduce_in_place_and_to_destination(replicas):
    values = per_replica_values((4,), replicas)

    def in_place(g, x, seq):
        gcl.allReduceInPlaceCrossReplica(g, x, gcl.CollectiveOperator.MAX, seq)
        gcl.allReduceInPlaceCrossReplica(g, x, gcl.CollectiveOperator.ADD, seq, gcl.CommGroup())
        return x
    got, _ = run_collective(replicas, in_place, values, (4,))
    np.testing.assert_allclose(got, np.broadcast_to(replicas * values.astype(np.float64).max(0), got.shape))

    def to_destination(g, x, seq):
        dest = g.clone(x, "dest")
        gcl.allReduceToDestinationCrossReplica(g, x, dest, gcl.CollectiveOperator.ADD, seq, gcl.CommGroup())
        return dest
    got, _ = run_collective(replicas, to_destination, values, (4,))
    np.testing.assert_allclose(got, np.broadcast_to(values.astype(np.float64).sum(0), got.shape), rtol=1e-6)


@pytest.mark.parametrize("replicas,elements", [(1, 5), (2, 6), (3, 7), (4, 10)])
def test_reduce_scatter_gives_each_rank_its_zero_padded_chunk(replicas, elements):
    values = per_replica_values((elements,), replicas)
    chunk = -(-elements // replicas)
    got, _ = run_collective(replicas, lambda g, x, seq: gcl.reduceScatterCrossReplica(
        g, x, gcl.CollectiveOperator.ADD, seq), values, (chunk,))
    padded = np.zeros(replicas * chunk)
    padded[:elements] = values.astype(np.float64).sum(0)
    np.testing.assert_allclose(got, padded.reshape(replicas, chunk), rtol=1e-6)


@pytest.mark.parametrize("replicas", [1, 2, 3])
def test_all_gather_stacks_every_replicas_data(replicas):
    values = per_replica_values((2, 2), replicas)
    got, _ = run_collective(replicas, lambda g, x, seq: gcl.allGatherCrossReplica(g, x, seq), values,
                            (replicas, 2, 2))
    np.testing.assert_array_equal(got, np.broadcast_to(values, (replicas, *values.shape)))


def test_broadcast_copies_the_roots_data():
    values = per_replica_values((3,), 3)
    got, _ = run_collective(3, lambda g, x, seq: gcl.broadcastCrossReplica(g, x, seq, gcl.CommGroup(), 2), values, (3,))
    np.testing.assert_array_equal(got, np.broadcast_to(values[2], (3, 3)))


@pytest.mark.parametrize("group_type", ["CONSECUTIVE", "ORTHOGONAL"])
def test_groups_reduce_within_themselves(group_type):
    replicas = 4
    group = gcl.CommGroup(getattr(gcl.CommGroupType, group_type), 2)
    values = per_replica_values((3,), replicas)
    got, _ = run_collective(replicas, lambda g, x, seq: gcl.allReduceCrossReplica(
        g, x, gcl.CollectiveOperator.ADD, seq, group), values, (3,))
    expected = np.empty((replicas, 3))
    for members in groups(replicas, group):
        expected[members] = values[members].astype(np.float64).sum(0)
    assert groups(replicas, group) == ([[0, 1], [2, 3]] if group_type == "CONSECUTIVE" else [[0, 2], [1, 3]])
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    gathered, _ = run_collective(replicas, lambda g, x, seq: gcl.allGatherCrossReplica(g, x, seq, group),
                                 values, (2, 3))
    scattered, _ = run_collective(replicas, lambda g, x, seq: gcl.reduceScatterCrossReplica(
        g, x, gcl.CollectiveOperator.ADD, seq, group), values, (2,))
    for members in groups(replicas, group):
        padded = np.append(values[members].astype(np.float64).sum(0), 0.0)  # 3 elements in 2 chunks of 2
        for rank, r in enumerate(members):
            np.testing.assert_array_equal(gathered[r], values[members])
            np.testing.assert_allclose(scattered[r], padded[2 * rank:2 * rank + 2], rtol=1e-6)


def test_collectives_refuse_what_does_not_fit():
    _, graph = replicated(4)
    ints = variable(graph, (3,), "ints", poplar.INT)
    floats = variable(graph, (3,), "floats")
    seq = program.Sequence()
    with pytest.raises(poputil.poplibs_error, match="MEAN needs a FLOAT or HALF tensor, not .*ints"):
        gcl.allReduceCrossReplica(graph, ints, gcl.CollectiveOperator.MEAN, seq)
    with pytest.raises(poputil.poplibs_error, match="LOGICAL_AND does not apply to tensor .*floats"):
        gcl.allReduceCrossReplica(graph, floats, gcl.CollectiveOperator.LOGICAL_AND, seq)
    with pytest.raises(poplar.graph_replication_error, match="group of 3 replicas does not divide the 4"):
        gcl.allReduceCrossReplica(graph, floats, gcl.CollectiveOperator.ADD, seq,
                                  gcl.CommGroup(gcl.CommGroupType.CONSECUTIVE, 3))
    with pytest.raises(poputil.poplibs_error, match="root replica 4 is not a rank of the group of 4"):
        gcl.broadcastCrossReplica(graph, floats, seq, gcl.CommGroup(), 4)


def test_replicas_that_skip_a_collective_raise_naming_it():
    device, graph = replicated(2)
    x = variable(graph, (2,), "x")
    index = graph.addReplicationIndexConstant("index")
    graph.setTileMapping(index, 0)
    reduce = program.Sequence()
    gcl.allReduceInPlaceCrossReplica(graph, x, gcl.CollectiveOperator.ADD, reduce, "sum")
    engine = loaded(graph, device, program.If(index, program.Sequence(), reduce))
    with pytest.raises(poplar.poplar_error, match="replicas took different paths: replica 0 reached cross-replica "
                                                  "step 'sum' but replica 1 reached the end of the program"):
        engine.run(0)


def test_a_collective_costs_its_ipu_link_traffic_in_the_profile():
    replicas, elements = 4, 1024
    values = per_replica_values((elements,), replicas)
    _, engine = run_collective(replicas, lambda g, x, seq: gcl.allReduceCrossReplica(
        g, x, gcl.CollectiveOperator.ADD, seq, "gradients"), values, (elements,))
    (step,) = [s for s in engine.getProfileData()["steps"] if s["name"] == "gradients"]
    assert step["kind"] == "CrossReplica" and step["executions"] == 1
    # A ring all-reduce sends 2 (k-1)/k of the data per replica over the IPU-Links
    # (64 GB/s assumed) at the ipu2's 1.33 GHz tile clock.
    link_bytes = 2 * elements * 4 * (replicas - 1) // replicas
    assert step["exchange_bytes"] == link_bytes
    assert step["exchange_cycles"] == int(np.ceil(link_bytes / (64e9 / 1.33e9)))
    assert step["sync_cycles"] > 0

def test_several_tensors_reduce_in_one_call():
    device, graph = replicated(2)
    a = variable(graph, (2,), "a")
    b = variable(graph, (3,), "b", poplar.INT)
    seq = program.Sequence()
    outs = gcl.allReduceCrossReplica(graph, [a, b], gcl.CollectiveOperator.ADD, seq, gcl.CommGroup())
    graph.createHostRead("outA", outs[0])
    graph.createHostRead("outB", outs[1])
    engine = loaded(graph, device, seq)
    va, vb = per_replica_values((2,), 2), per_replica_values((3,), 2, np.int32)
    engine.writeTensor("a", va)
    engine.writeTensor("b", vb)
    engine.run(0)
    np.testing.assert_allclose(engine.readTensor("outA", np.empty((2, 2), np.float32)),
                               np.broadcast_to(va.astype(np.float64).sum(0), (2, 2)), rtol=1e-6)
    np.testing.assert_array_equal(engine.readTensor("outB", np.empty((2, 3), np.int32)),
                                  np.broadcast_to(vb.sum(0), (2, 3)))


def test_cross_replica_copy_checks_its_map():
    _, g = replicated(2)
    a, b = variable(g, [2], "a"), variable(g, [2], "b")
    c = variable(g, [2], "c", poplar.HALF)
    with pytest.raises(poplar.poplar_error, match="replica 1 is the destination of more than one replica"):
        program.CrossReplicaCopy(a, b, {0: 1, 1: 1})
    with pytest.raises(poplar.poplar_error, match="must have the same element type and number of elements"):
        program.CrossReplicaCopy(a, c, {0: 1})
    with pytest.raises(poplar.graph_program_compilation_error, match="replica 3 does not exist"):
        poplar.Engine(g, program.CrossReplicaCopy(a, b, {0: 3}, "shift"))
