"""Streamed runs against a numpy copy of the same bytes (budget: within 2x), and the
cost of a run of a small program.

One run of `Session.run` reads 100k rows of 256 floats from a host-to-device stream and
sends each back on a device-to-host stream (a Repeat of two stream copies). The bytes it
moves are the feed's in and the output's out; numpy's reference copies as many bytes, a
[100k, 256] float32 array into another twice. The second figure is the time of one run of
a program with one 4-float stream each way and one row, feed and output included: what a
run costs beside its rows.
"""
import time

import numpy as np

from ratios import report
from timing import best_times

import popdsl as pd

ROWS, WIDTH = 100_000, 256


def streaming_session(rows):
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    rows_in = g.host_to_device(pd.float32, (WIDTH,), name="rows_in")
    rows_out = g.device_to_host(pd.float32, (WIDTH,), name="rows_out")
    with pd.Sequence("stream") as main:
        with pd.Repeat(rows):
            rows_out.write(rows_in.read())
    return pd.Session(g, main, device=dev), rows_in, rows_out


def small_session():
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    x_in = g.host_to_device(pd.float32, (4,), name="x_in")
    y_out = g.device_to_host(pd.float32, (4,), name="y_out")
    with pd.Sequence("small") as main:
        y_out.write(x_in.read() * 2)
    return pd.Session(g, main, device=dev), x_in, y_out


def main():
    feed = np.random.default_rng(0).standard_normal((ROWS, WIDTH), dtype=np.float32)
    session, rows_in, rows_out = streaming_session(ROWS)
    with session:
        result = session.run(feeds={rows_in: feed})
        np.testing.assert_array_equal(result[rows_out], feed)  # checked before it is timed
        copy_in, copy_out = np.empty_like(feed), np.empty_like(feed)

        def numpy_copy():
            np.copyto(copy_in, feed)
            np.copyto(copy_out, copy_in)

        streamed, copied = best_times([lambda: session.run(feeds={rows_in: feed}), numpy_copy], repeats=5)
    print(f"streamed run: {ROWS / streamed / 1e6:.2f} M rows/s ({streamed * 1e3:.1f} ms for {ROWS} rows of "
          f"{WIDTH} floats in and out); numpy copy of the same bytes: {ROWS / copied / 1e6:.2f} M rows/s "
          f"({copied * 1e3:.1f} ms)")
    report(f"streamed run {ROWS // 1000}k rows of {WIDTH} floats / numpy copy", streamed / copied, 2.0)

    small, x_in, y_out = small_session()
    with small:
        x = np.arange(4, dtype=np.float32)
        np.testing.assert_array_equal(small.run(feeds={x_in: x})[y_out], [2 * x])
        runs = 2000
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(runs):
                small.run(feeds={x_in: x})
            best = min(best, (time.perf_counter() - start) / runs)
    report("one run of a small program (one row each way)", best * 1e6, None, unit=" us")


if __name__ == "__main__":
    main()
