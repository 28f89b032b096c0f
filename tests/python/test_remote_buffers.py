"""Remote buffers: Graph::addRemoteBuffer, program::Copy to and from their rows (one, or
those an offset tensor names at run time), Engine::copyToRemoteBuffer/copyFromRemoteBuffer,
per-replica rows, executables, and the Pythonic g.remote_buffer with Session.write_remote."""
import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, popops, program
from popdsl.popops import expr as pe

ROW = 6


def make(tiles=4, ipus=1, replicas=1):
    model = poplar.IPUModel("ipu2")
    model.numIPUs, model.tilesPerIPU = ipus, tiles
    device = model.createDevice()
    g = poplar.Graph(device.getTarget(), poplar.replication_factor(replicas))
    popops.addCodelets(g)
    return device, g


def variable(g, dtype, shape, name, tile=0):
    t = g.addVariable(dtype, shape, name)
    g.setTileMapping(t, tile)
    return t


def test_the_buffer_describes_itself():
    _, g = make()
    b = g.addRemoteBuffer("weights", poplar.HALF, ROW, 3, True, False)
    assert isinstance(b, poplar.RemoteBuffer)
    assert (b.handle(), b.numElements(), b.getRepeats(), b.elementType()) == ("weights", ROW, 3, poplar.HALF)
    assert (b.isRearrangeOnHost(), b.isOptimisedForMemory()) == (True, False)
    assert b.getHostToIpuStream().type() == poplar.DataStreamType.HostToDeviceBuffer
    assert b.getIpuToHostStream().type() == poplar.DataStreamType.DeviceToHostBuffer
    assert b == b and g.addRemoteBuffer("other", poplar.HALF, ROW, 3) != b
    single = g.addRemoteBuffer("single", poplar.FLOAT, 2)
    assert single.getRepeats() == 1


def rows_program(g, buffer, rows):
    """Loads `rows` (chosen at run time from an offset tensor), doubles them, stores them
    back to the rows after them."""
    offsets = variable(g, poplar.UNSIGNED_INT, [len(rows)], "offsets")
    g.setInitialValue(offsets, np.array(rows, np.uint32))
    moved = variable(g, poplar.FLOAT, [len(rows), ROW], "moved", 1)
    seq = program.Sequence([program.Copy(buffer, moved, offsets, "load")])
    popops.mapInPlace(g, pe._1 * 2, [moved], seq, "double")
    after = popops.map(g, pe._1 + 1, [offsets], seq, "next rows")
    seq.add(program.Copy(moved, buffer, after, "store"))
    return seq


def test_rows_chosen_by_an_offset_tensor_move_both_ways():
    device, g = make()
    buffer = g.addRemoteBuffer("rows", poplar.FLOAT, ROW, 5)
    engine = poplar.Engine(g, rows_program(g, buffer, [3, 0]))
    engine.load(device)
    table = np.arange(5 * ROW, dtype=np.float32).reshape(5, ROW)
    for r in range(5):
        engine.copyToRemoteBuffer(table[r].copy(), "rows", r)
    engine.run(0)
    out = np.stack([engine.copyFromRemoteBuffer("rows", np.zeros(ROW, np.float32), r) for r in range(5)])
    expected = table.astype(np.float64).copy()
    expected[4], expected[1] = 2 * table[3], 2 * table[0]  # rows 3 and 0 doubled into rows 4 and 1
    np.testing.assert_array_equal(out, expected)


def test_a_one_row_buffer_needs_no_offset_and_rows_persist_between_runs():
    device, g = make()
    buffer = g.addRemoteBuffer("acc", poplar.INT, 4)
    t = variable(g, poplar.INT, [2, 2], "t")
    seq = program.Sequence([program.Copy(buffer, t)])
    popops.mapInPlace(g, pe._1 + 3, [t], seq)
    seq.add(program.Copy(t, buffer))
    engine = poplar.Engine(g, seq)
    engine.load(device)
    engine.copyToRemoteBuffer(np.array([1, -2, 5, 0], np.int32), "acc", 0)
    for _ in range(4):
        engine.run(0)
    np.testing.assert_array_equal(engine.copyFromRemoteBuffer("acc", np.zeros(4, np.int32), 0), [13, 10, 17, 12])


def test_an_offset_past_the_rows_fails_the_run_naming_the_buffer():
    device, g = make()
    buffer = g.addRemoteBuffer("rows", poplar.FLOAT, ROW, 2)
    engine = poplar.Engine(g, rows_program(g, buffer, [1]))  # stores to row 2, which does not exist
    engine.load(device)
    with pytest.raises(poplar.poplar_error, match="offset 2 is outside remote buffer 'rows', which has 2 row"):
        engine.run(0)


@pytest.mark.parametrize("build, message", [
    (lambda g, b, t: program.Copy(b, t), "has 3 rows: give an offset tensor"),
    (lambda g, b, t: program.Copy(b, t.slice(0, 4), variable(g, poplar.UNSIGNED_INT, [], "o")),
     "1 row\\(s\\) need a tensor of 6 elements"),
    (lambda g, b, t: program.Copy(b, variable(g, poplar.HALF, [ROW], "h"), variable(g, poplar.INT, [], "o")),
     "holds float elements but tensor"),
    (lambda g, b, t: program.Copy(t, b, variable(g, poplar.FLOAT, [], "o")),
     "must be a scalar or a vector of UNSIGNED_INT or INT"),
    (lambda g, b, t: program.Copy(t, b, variable(g, poplar.INT, [1, 1], "o")),
     "must be a scalar or a vector of UNSIGNED_INT or INT"),
])
def test_copies_that_cannot_fit_a_row_are_refused(build, message):
    _, g = make()
    buffer = g.addRemoteBuffer("rows", poplar.FLOAT, ROW, 3)
    t = variable(g, poplar.FLOAT, [ROW], "t")
    with pytest.raises(poplar.poplar_error, match=message):
        build(g, buffer, t)


@pytest.mark.parametrize("call, error, message", [
    (lambda e, other: e.copyToRemoteBuffer(np.zeros(ROW + 1, np.float32), "rows", 0), ValueError, "has 6 elements"),
    (lambda e, other: e.copyToRemoteBuffer(np.zeros(ROW, np.float64), "rows", 0), TypeError, "holds float"),
    (lambda e, other: e.copyToRemoteBuffer(np.zeros(ROW, np.float32), "nope", 0), KeyError, "no remote buffer"),
    (lambda e, other: e.copyToRemoteBuffer(np.zeros(ROW, np.float32), "rows", 3), poplar.poplar_error,
     "row 3 is outside remote buffer 'rows'"),
    (lambda e, other: e.copyFromRemoteBuffer("rows", np.zeros(ROW, np.float32), 0, 1), poplar.poplar_error,
     "replica 1 does not exist"),
    (lambda e, other: e.copyFromRemoteBuffer("rows", np.zeros(ROW, np.float32)[::-1], 0), ValueError, "C-contiguous"),
    (lambda e, other: e.copyToRemoteBuffer(np.zeros(ROW, np.float32), "rows", 0, 0, other), ValueError,
     "buffer= describes 'other', not 'rows'"),
])
def test_host_copies_check_the_array_row_and_replica(call, error, message):
    device, g = make()
    g.addRemoteBuffer("rows", poplar.FLOAT, ROW, 3)
    other = g.addRemoteBuffer("other", poplar.FLOAT, ROW, 3)
    engine = poplar.Engine(g, program.Sequence())
    engine.load(device)
    with pytest.raises(error, match=message):
        call(engine, other)


def test_bad_buffers_are_refused():
    _, g = make()
    g.addHostToDeviceFIFO("taken", poplar.FLOAT, 1)
    with pytest.raises(poplar.poplar_error, match="already exists"):
        g.addRemoteBuffer("taken", poplar.FLOAT, 4)
    with pytest.raises(poplar.poplar_error, match="needs at least one element and one row"):
        g.addRemoteBuffer("empty", poplar.FLOAT, 4, 0)
    with pytest.raises(poplar.poplar_error, match="do not fit in memory"):
        g.addRemoteBuffer("huge", poplar.FLOAT, 2 ** 62, 4)


@pytest.mark.needs_emulator("a replicated graph, which the SDK's IPU Model does not run")
def test_each_replica_has_its_own_rows():
    device, g = make(ipus=2, replicas=2)
    buffer = g.addRemoteBuffer("rows", poplar.FLOAT, ROW, 2)
    engine = poplar.Engine(g, rows_program(g, buffer, [0]))
    engine.load(device)
    for replica in range(2):
        engine.copyToRemoteBuffer(np.full(ROW, 10.0 * (replica + 1), np.float32), "rows", 0, replica)
    engine.run(0)
    for replica in range(2):
        out = engine.copyFromRemoteBuffer("rows", np.zeros(ROW, np.float32), 1, replica)
        np.testing.assert_array_equal(out, np.full(ROW, 20.0 * (replica + 1)))


@pytest.mark.needs_emulator("reads the executable's remote buffers back")
def test_an_executable_keeps_its_remote_buffers():
    device, g = make()
    buffer = g.addRemoteBuffer("rows", poplar.FLOAT, ROW, 4)
    exe = poplar.compileGraph(g, [rows_program(g, buffer, [2])])
    engine = poplar.Engine(poplar.Executable.deserialize(exe.serialize(), True))
    engine.load(device)
    engine.copyToRemoteBuffer(np.arange(ROW, dtype=np.float32), "rows", 2)
    engine.run(0)
    np.testing.assert_array_equal(engine.copyFromRemoteBuffer("rows", np.zeros(ROW, np.float32), 3),
                                  2.0 * np.arange(ROW))


@pytest.mark.needs_emulator("checks the emulator's cost model")
def test_a_remote_copy_costs_a_host_transfer_of_its_rows():
    device, g = make()
    buffer = g.addRemoteBuffer("rows", poplar.FLOAT, ROW, 4)
    engine = poplar.Engine(g, rows_program(g, buffer, [0, 1]))
    engine.load(device)
    engine.run(0)
    steps = [s for s in engine.getProfileData()["steps"] if s["kind"].startswith("RemoteBufferCopy")]
    assert [s["kind"] for s in steps] == ["RemoteBufferCopy(to device)", "RemoteBufferCopy(to remote)"]
    for s in steps:  # 2 rows of 6 floats: kHostSyncCycles + 48 bytes / kHostBytesPerCycle (docs/emulator.rst)
        assert (s["sync_cycles"], s["exchange_cycles"], s["exchange_bytes"]) == (1000, 6, 48)


def test_pythonic_remote_buffers_load_and_store_rows():
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    table = g.remote_buffer(pd.float32, (2, 3), rows=4, name="table")
    picks = g.variable(pd.uint32, (2,), name="picks", mapping=0)
    with pd.Sequence("main") as main:
        first = table.load(row=1)
        both = table.load(row=picks)
        table.store(first + both[0] + both[1], row=3)
    values = np.random.default_rng(0).standard_normal((4, 2, 3)).astype(np.float32)
    with pd.Session(g, {"main": main}, device=dev) as s:
        for r in range(4):
            s.write_remote(table, r, values[r])
        s.write(picks, [0, 2])
        s.run("main")
        out = s.read_remote(table, 3)
    np.testing.assert_allclose(out, values[1].astype(np.float64) + values[0] + values[2], rtol=1e-6)
    assert repr(table) == "<pd.RemoteBuffer 'table' rows=4 shape=(2, 3) dtype=float>"


def test_pythonic_remote_buffer_misuse_says_what_is_wrong():
    g = pd.Graph(pd.ipu_model(tiles=4))
    table = g.remote_buffer(pd.float32, (3,), rows=2, name="table")
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match="it has 2 rows; say which"):
            table.load()
        with pytest.raises(pd.BuildError, match=r"row must be an int in \[0, 1\]"):
            table.load(row=2)
        with pytest.raises(pd.BuildError, match="need a tensor of \\(3,\\) float"):
            table.store(g.variable(pd.float32, (4,)), row=0)
        with pytest.raises(pd.BuildError, match="uint32/int32 tensor"):
            table.load(row=g.variable(pd.float32, ()))
    with pytest.raises(pd.BuildError, match="already exists"):
        g.remote_buffer(pd.float32, (3,), name="table")


@pytest.mark.needs_emulator("a replicated graph, which the SDK's IPU Model does not run")
def test_pythonic_remote_rows_per_replica():
    dev = pd.ipu_model(tiles=4, ipus=2)
    g = pd.Graph(dev, replicas=2)
    state = g.remote_buffer(pd.int32, (2,), name="state")
    with pd.Sequence("bump") as bump:
        t = state.load()
        state.store(t + pd.cast(pd.replica_index(g), pd.int32) + 1)
    with pd.Session(g, {"bump": bump}, device=dev) as s:
        s.write_remote(state, 0, [5, 6])  # every replica
        s.write_remote(state, 0, [100, 200], replica=1)
        s.run("bump")
        np.testing.assert_array_equal(s.read_remote(state, 0), [[6, 7], [102, 202]])
        np.testing.assert_array_equal(s.read_remote(state, 0, replica=1), [102, 202])
