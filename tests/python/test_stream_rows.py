"""Engine.feedStream and Engine.collectStream: a stream's rows moved in bulk (no Python
call per copy), as pd.Session.run feeds and collects streams."""
import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, program


@pytest.fixture
def rows_engine(graph, device):
    """Program 0 reads 3 INTs from 'in' twice into x; program 1 sends x to 'out' three times;
    program 2 doubles x (host write 'w' / read 'r')."""
    x = graph.addVariable(poplar.INT, [3], "x")
    graph.setTileMapping(x, 0)
    data_in = graph.addHostToDeviceFIFO("in", poplar.INT, 3)
    data_out = graph.addDeviceToHostFIFO("out", poplar.INT, 3)
    graph.createHostRead("r", x)
    graph.createHostWrite("w", x)
    engine = poplar.Engine(graph, [program.Repeat(2, program.Copy(data_in, x)),
                                   program.Repeat(3, program.Copy(x, data_out))])
    engine.load(device)
    return engine


def read_x(engine):
    out = np.zeros(3, np.int32)
    engine.readTensor("r", out)
    return out


def never(*_):
    raise AssertionError("no copy should find its rows exhausted here")


def test_a_feed_gives_its_rows_in_order_and_counts_them(rows_engine):
    rows = np.arange(12, dtype=np.int32).reshape(4, 3)
    fed = rows_engine.feedStream("in", rows, never)
    rows_engine.run(0)
    assert fed.count == 2
    np.testing.assert_array_equal(read_x(rows_engine), [3, 4, 5])  # the second row
    rows_engine.run(0)  # the same connection goes on with the next rows
    assert fed.count == 4
    np.testing.assert_array_equal(read_x(rows_engine), [9, 10, 11])


def test_a_copy_with_no_row_left_raises_what_exhausted_raises(rows_engine):
    class OutOfRows(Exception):
        pass

    calls = []

    def exhausted():
        calls.append(1)
        raise OutOfRows("no third row")

    fed = rows_engine.feedStream("in", np.array([[7, 8, 9]], np.int32), exhausted)
    with pytest.raises(OutOfRows, match="no third row"):
        rows_engine.run(0)
    assert fed.count == 1 and calls == [1]
    np.testing.assert_array_equal(read_x(rows_engine), [7, 8, 9])  # the one row was copied
    rows_engine.feedStream("in", np.zeros((2, 3), np.int32), never)  # the engine carries on
    rows_engine.run(0)
    np.testing.assert_array_equal(read_x(rows_engine), [0, 0, 0])


def test_collected_rows_come_back_as_one_array_the_caller_owns(rows_engine):
    rows_engine.writeTensor("w", np.array([1, -2, 3], np.int32))
    collected = rows_engine.collectStream("out", expected=1)  # room for fewer rows than come
    rows_engine.run(1)
    assert collected.count == 3
    first = collected.take()
    assert first.dtype == np.int32 and first.flags.writeable
    np.testing.assert_array_equal(first, np.tile([1, -2, 3], 3))
    assert collected.count == 0  # take() empties the buffer
    rows_engine.writeTensor("w", np.array([4, 5, 6], np.int32))
    rows_engine.run(1)
    np.testing.assert_array_equal(collected.take(), np.tile([4, 5, 6], 3))
    np.testing.assert_array_equal(first, np.tile([1, -2, 3], 3))  # the first take is its own
    empty = collected.take()
    assert empty.shape == (0,) and empty.dtype == np.int32


def test_feeds_must_be_whole_rows_of_the_streams_dtype_in_one_block(rows_engine):
    with pytest.raises(TypeError, match=r"feedStream: handle 'in' holds int \(numpy int32\); the array's "
                                        r"dtype is float32"):
        rows_engine.feedStream("in", np.zeros((2, 3), np.float32), never)
    with pytest.raises(ValueError, match="feedStream: a row of stream 'in' has 3 elements; the array's 4 are "
                                         "not whole rows"):
        rows_engine.feedStream("in", np.zeros(4, np.int32), never)
    with pytest.raises(ValueError, match="feedStream: the array must be C-contiguous"):
        rows_engine.feedStream("in", np.zeros((3, 3), np.int32).T, never)
    with pytest.raises(TypeError, match="feedStream: expected a numpy array"):
        rows_engine.feedStream("in", [1, 2, 3], never)


def test_each_direction_has_its_own_connection(rows_engine):
    with pytest.raises(ValueError, match="feedStream: stream 'out' is device-to-host: collect it with collectStream"):
        rows_engine.feedStream("out", np.zeros(3, np.int32), never)
    with pytest.raises(ValueError, match="collectStream: stream 'in' is host-to-device: feed it with feedStream"):
        rows_engine.collectStream("in")
    fed = rows_engine.feedStream("in", np.zeros(3, np.int32), never)
    with pytest.raises(ValueError, match="take: a host-to-device stream's rows are the caller's"):
        fed.take()
    with pytest.raises(poplar.stream_connection_error, match="no stream with handle 'inn'"):
        rows_engine.feedStream("inn", np.zeros(3, np.int32), never)


def test_session_outputs_of_successive_runs_are_separate_arrays():
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    rows_in = g.host_to_device(pd.float32, (2,), name="rows_in")
    rows_out = g.device_to_host(pd.float32, (2,), name="rows_out")
    with pd.Sequence() as main:
        with pd.Repeat(3):
            rows_out.write(rows_in.read() * 2)
    feed = np.arange(6, dtype=np.float32).reshape(3, 2)
    with pd.Session(g, main, device=dev) as s:
        first = s.run(feeds={rows_in: feed})[rows_out]
        second = s.run(feeds={rows_in: feed + 1})[rows_out]
    np.testing.assert_array_equal(first, feed.astype(np.float64) * 2)
    np.testing.assert_array_equal(second, (feed.astype(np.float64) + 1) * 2)
    np.testing.assert_array_equal(feed, np.arange(6).reshape(3, 2))  # the feed is only read
