"""Stopping runs: Ctrl-C (SIGINT) during a run raises KeyboardInterrupt within a short
time and leaves the engine or session usable (other signals: test_signals.py); Engine.stop() from another thread ends a
run early; a host callback that raises ends the run at that call."""
import os
import signal
import threading
import time

import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, popops, program
from popdsl.popops import expr as pe

# Nested Repeats of this many iterations each run a one-element step for minutes.
FOREVER = 100_000

CTRL_C = "Ctrl-C stopping a run (a run that pauses for signals)"


@pytest.fixture(autouse=True)
def python_handles_ctrl_c():
    """Python's own Ctrl-C handler for each test: a shell that starts the suite in the
    background starts it with SIGINT ignored, and an ignored SIGINT stops no run."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def after(seconds, action):
    timer = threading.Timer(seconds, action)
    timer.start()
    return timer


def counting_engine(graph, device):
    """Program 0 adds 1 to `count` FOREVER x FOREVER times; program 1 sets it to 7."""
    count = graph.addVariable(poplar.UNSIGNED_INT, [1], "count")
    graph.setTileMapping(count, 0)
    graph.createHostRead("count", count)
    forever = program.Sequence()
    popops.mapInPlace(graph, pe._1 + 1, [count], forever, "count+=1")
    seven = program.Sequence()
    popops.mapInPlace(graph, pe._1 * 0 + 7, [count], seven, "count=7")
    engine = poplar.Engine(graph, [program.Repeat(FOREVER, program.Repeat(FOREVER, forever)), seven])
    engine.load(device)
    return engine


def read_count(engine):
    out = np.zeros(1, np.uint32)
    engine.readTensor("count", out)
    return int(out[0])


@pytest.mark.needs_emulator(CTRL_C)
def test_ctrl_c_stops_a_run_and_raises_keyboard_interrupt(graph, device):
    engine = counting_engine(graph, device)
    timer = after(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        engine.run(0)
    stopped_after = time.perf_counter() - start
    timer.join()
    assert 0.25 < stopped_after < 0.3 + 0.5
    assert 0 < read_count(engine) < FOREVER ** 2  # it stopped part way
    engine.run(1)  # and the engine still runs programs
    assert read_count(engine) == 7


@pytest.mark.needs_emulator(CTRL_C)
def test_ctrl_c_reaches_a_python_sigint_handler(graph, device):
    engine = counting_engine(graph, device)
    seen = []

    def handler(signum, frame):
        seen.append(signum)
        engine.stop()  # the run goes on after a handler that returns, unless it is stopped

    previous = signal.signal(signal.SIGINT, handler)
    try:
        timer = after(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
        engine.run(0)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.SIGINT]
    assert signal.getsignal(signal.SIGINT) is previous


@pytest.mark.needs_emulator(CTRL_C)
def test_ctrl_c_stops_a_session_run_and_the_session_runs_again(device):
    g = pd.Graph(device)
    count = g.variable(pd.uint32, (1,), name="count", init=0)
    with pd.Sequence() as forever:
        with pd.Repeat(FOREVER), pd.Repeat(FOREVER):
            count += 1
    with pd.Sequence() as reset:
        pd.fill(count, 5)
    with pd.Session(g, {"forever": forever, "reset": reset}, device=device) as s:
        timer = after(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        with pytest.raises(KeyboardInterrupt):
            s.run("forever")
        timer.join()
        s.run("reset")
        assert s.read(count)[0] == 5


def test_stop_from_another_thread_ends_the_run(graph, device):
    engine = counting_engine(graph, device)
    timer = after(0.2, engine.stop)
    start = time.perf_counter()
    engine.run(0)
    timer.join()
    assert time.perf_counter() - start < 0.2 + 0.5
    assert 0 < read_count(engine) < FOREVER ** 2
    engine.stop()  # between runs: the next run is not affected
    engine.run(1)
    assert read_count(engine) == 7


def test_a_host_callback_that_raises_ends_the_run_at_that_call(device):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (2,), name="x", init=np.ones(2))
    calls = []

    def fails_third_time(values):
        calls.append(values.copy())
        if len(calls) == 3:
            raise ValueError("third call")
        return values

    with pd.Sequence() as main:
        with pd.Repeat(1000):
            pd.host_callback(fails_third_time, x, outputs=x)
    with pd.Session(g, main, device=device) as s:
        with pytest.raises(ValueError, match="third call"):
            s.run()
    assert len(calls) == 3
