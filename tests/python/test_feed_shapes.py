"""Each row of the feed and output shape table in docs/sessions_and_streams.rst: a program
reading a stream k times and writing k rows (x + 1 each, so the expected outputs are the
feed plus one), in one replica and in two, with every accepted feed shape, and the errors."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.session import SessionError

SHAPE = (2, 3)


def session(reads, replicas=1, broadcast=False):
    dev = pd.ipu_model(tiles=4, ipus=replicas)
    g = pd.Graph(dev, replicas=replicas)
    inp = g.host_to_device(pd.float32, SHAPE, name="in", broadcast=broadcast)
    out = g.device_to_host(pd.float32, SHAPE, name="out")
    with pd.Sequence("main") as main:
        for _ in range(reads):
            out.write(inp.read() + 1)
    return pd.Session(g, main, device=dev), inp, out


def rows(n, offset=0.0):
    return (np.arange(n * 6, dtype=np.float32).reshape(n, *SHAPE) + offset)


@pytest.mark.parametrize("feed_shape", [SHAPE, (1, *SHAPE)])
def test_read_once_takes_the_shape_or_one_row_and_outputs_one_row(feed_shape):
    s, inp, out = session(1)
    with s:
        result = s.run(feeds={inp: rows(1).reshape(feed_shape)})
    assert result[out].shape == (1, *SHAPE)
    np.testing.assert_array_equal(result[out], rows(1) + 1)


@pytest.mark.parametrize("reads", [0, 3])
def test_k_reads_take_k_rows_and_output_k_rows(reads):
    s, inp, out = session(reads)
    with s:
        result = s.run(feeds={inp: rows(reads)} if reads else {})
    assert result[out].shape == (reads, *SHAPE)
    np.testing.assert_array_equal(result[out], rows(reads) + 1)


@pytest.mark.parametrize("reads, feed_shape", [(1, (2, *SHAPE)), (1, (2, 1, *SHAPE)), (3, (2, 3, *SHAPE))])
def test_replicated_feeds_and_outputs_have_a_replica_axis(reads, feed_shape):
    s, inp, out = session(reads, replicas=2)
    feed = rows(2 * reads).reshape(feed_shape)
    with s:
        result = s.run(feeds={inp: feed})
    assert result[out].shape == (2, reads, *SHAPE)
    np.testing.assert_array_equal(result[out], feed.reshape(2, reads, *SHAPE) + 1)


def test_a_broadcast_stream_takes_one_feed_for_every_replica():
    s, inp, out = session(3, replicas=2, broadcast=True)
    with s:
        result = s.run(feeds={inp: rows(3)})
    np.testing.assert_array_equal(result[out], np.stack([rows(3) + 1] * 2))


def test_wrong_counts_and_shapes_are_named():
    s, inp, _ = session(3)
    with s:
        with pytest.raises(SessionError, match=r"stream 'in'.*read more than the 2 time\(s\)"):
            s.run(feeds={inp: rows(2)})
        with pytest.raises(SessionError, match=r"has 4 rows but program 'main' read 3"):
            s.run(feeds={inp: rows(4)})
        with pytest.raises(SessionError, match=r"has shape \(3, 6\); expected \(2, 3\) or \(reads, \*\(2, 3\)\)"):
            s.run(feeds={inp: np.zeros((3, 6), np.float32)})
    s, inp, _ = session(1, replicas=2)
    with s:
        with pytest.raises(SessionError, match=r"needs a leading replica axis: shape \(2, \*\(2, 3\)\)"):
            s.run(feeds={inp: rows(3)})
