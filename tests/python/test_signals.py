"""Signals during a run: any signal with a Python handler (SIGTERM, SIGHUP, SIGUSR1, ...)
reaches its handler within a fraction of a second, at the run's next step; a handler
that returns lets the run go on from where it paused, one that raises ends it with its
exception; a second Ctrl-C while a vertex does not return ends the process with a line
naming the vertex. Runs that could hang run in subprocesses with timeouts."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

pytestmark = pytest.mark.needs_emulator("a run that pauses for signals")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # popdsl imports from here

COUNTING = textwrap.dedent("""
    from popdsl import poplar, popops, program
    from popdsl.popops import expr as pe

    def counting_engine(outer, inner):
        model = poplar.IPUModel("ipu2")
        model.tilesPerIPU = 4
        device = model.createDevice()
        graph = poplar.Graph(device.getTarget())
        count = graph.addVariable(poplar.UNSIGNED_INT, [1], "count")
        graph.setTileMapping(count, 0)
        graph.createHostRead("count", count)
        step = program.Sequence()
        popops.mapInPlace(graph, pe._1 + 1, [count], step, "count+=1")
        engine = poplar.Engine(graph, program.Repeat(outer, program.Repeat(inner, step)))
        engine.load(device)
        return engine
""")


def start(script, *args):
    """A python running `script`; it prints 'running' just before its run starts."""
    return subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, env=dict(os.environ, POPDSL_CHECK_VERTEX_ACCESS="0"))


def wait_until_running(child):
    line = child.stdout.readline()
    assert line == "running\n", line + child.stderr.read()
    time.sleep(0.2)  # well inside the run


HANDLER_RAISES = COUNTING + textwrap.dedent("""
    import signal, sys, time
    engine = counting_engine(100_000, 100_000)  # hours
    class Stopped(Exception):
        pass
    def handler(signum, frame):
        print(f"handler {signum} at {time.monotonic():.6f}", flush=True)
        raise Stopped()
    signal.signal(int(sys.argv[1]), handler)
    print("running", flush=True)
    try:
        engine.run(0)
    except Stopped:
        print("run ended by the handler", flush=True)
""")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_python_handler_runs_during_a_run_and_what_it_raises_ends_the_run(sig):
    child = start(HANDLER_RAISES, str(int(sig)))
    try:
        wait_until_running(child)
        sent = time.monotonic()
        child.send_signal(sig)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 0, err
    handled = [line for line in out.splitlines() if line.startswith("handler")]
    assert handled and handled[0].startswith(f"handler {int(sig)} at "), out + err
    assert float(handled[0].split()[-1]) - sent < 0.5  # within a fraction of a second
    assert "run ended by the handler" in out


# The same builder in this process.
_namespace = {}
exec(COUNTING, _namespace)
counting_engine = _namespace["counting_engine"]


def read_count(engine):
    out = np.zeros(1, np.uint32)
    engine.readTensor("count", out)
    return int(out[0])


def test_a_handler_that_returns_lets_the_run_go_on_from_where_it_paused():
    outer, inner = 2000, 2000
    engine = counting_engine(outer, inner)
    start_time = time.perf_counter()
    engine.run(0)
    whole_run = time.perf_counter() - start_time
    seen = []

    def handler(signum, frame):
        seen.append((signum, read_count(engine)))

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        timer = threading.Timer(whole_run / 4, lambda: os.kill(os.getpid(), signal.SIGUSR1))
        timer.start()
        engine.run(0)
        timer.join()
    finally:
        signal.signal(signal.SIGUSR1, previous)
    # The count carries on from the first run: every step ran exactly once in each.
    assert read_count(engine) == 2 * outer * inner
    assert len(seen) == 1 and seen[0][0] == signal.SIGUSR1
    assert outer * inner < seen[0][1] < 2 * outer * inner  # the handler ran during the run


SPIN = textwrap.dedent("""
    import sys
    from popdsl import poplar, program
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    graph.addCodelets('''
    #include <poplar/Vertex.hpp>
    class Spin : public poplar::Vertex {
    public:
      poplar::Output<unsigned> out;
      void compute() {
        for (volatile unsigned i = 0; ; i = i + 1) {}
      }
    };
    ''')
    out = graph.addVariable(poplar.UNSIGNED_INT, [1], "out")
    graph.setTileMapping(out, 2)
    cs = graph.addComputeSet("spinning")
    v = graph.addVertex(cs, "Spin", {"out": out})
    graph.setTileMapping(v, 2)
    engine = poplar.Engine(graph, program.Execute(cs))
    engine.load(device)
    print("running", flush=True)
    engine.run(0)
    print("returned", flush=True)
""")


def test_a_second_ctrl_c_in_a_vertex_that_never_returns_ends_the_process_naming_it(codelet_cache):
    child = start(SPIN)
    try:
        wait_until_running(child)
        child.send_signal(signal.SIGINT)
        time.sleep(0.3)
        assert child.poll() is None  # one Ctrl-C waits for the next step, which never comes
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == -signal.SIGINT, err
    assert "returned" not in out
    assert "popdsl: a second Ctrl-C before the run reached its next step; still running: " \
           "vertex 'Spin' (id 0) on tile 2 of compute set 'spinning'. Ending the process." in err
