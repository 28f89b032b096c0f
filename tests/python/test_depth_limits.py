"""Depth on a thread with a 1 MiB stack. Element-wise expressions nest at most 1000 levels:
as deep as that they build, compile, run, print, serialize and are differentiated; one
level more is refused when it is built, with an error naming the operation and the
limit, so a runaway tracer stops at once instead of recursing off the end of the stack.
A tensor of 20000 dimensions prints.

The deep runs go in a subprocess: a stack overflow there would end the whole test
session."""
import re
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import popdsl as pd
from popdsl import poputil
from popdsl.popops import expr as pe

LIMIT = 1000


def chain(levels, leaf=pe._1):
    """((leaf + 1) + 1) ... : `levels` levels, the leaf one of them."""
    e = leaf
    for _ in range(levels - 1):
        e = e + 1
    return e


def test_one_level_past_the_limit_is_refused_naming_the_operation_and_the_limit():
    deepest = chain(LIMIT)
    with pytest.raises(poputil.poplibs_error, match=r"ADD would nest the expression 1001 levels deep; "
                                                    r"the limit is 1000"):
        deepest + 1
    with pytest.raises(poputil.poplibs_error, match=r"NEGATE would nest .* 1001 levels"):
        -deepest
    with pytest.raises(poputil.poplibs_error, match=r"SELECT would nest"):
        pe.Select(1.0, deepest, pe._2)
    with pytest.raises(poputil.poplibs_error, match=r"Cast would nest"):
        pe.Cast(deepest, pd.float32)
    assert repr(deepest).count("ADD(") == LIMIT - 1  # the tree itself is untouched


def test_a_runaway_pd_map_stops_at_the_limit_at_once():
    # 20000 levels used to clone the growing tree at every level (minutes) and then overflow the stack.
    x = pd.Graph(pd.ipu_model(tiles=4)).variable(pd.float32, (3,), name="x")

    def runaway(a):
        for _ in range(20000):
            a = a * 1.0
        return a

    started = time.perf_counter()
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=r"pd.map: popops::expr: MULTIPLY would nest the expression 1001 "
                                                 r"levels deep; the limit is 1000"):
            pd.map(runaway, x)
    assert time.perf_counter() - started < 10


def on_a_small_stack_in_a_subprocess(script: str):
    """What `script`'s run() returns, run on a thread with a 1 MiB stack in a new Python."""
    runner = script + textwrap.dedent("""
        import threading
        results = []
        threading.stack_size(1 << 20)
        thread = threading.Thread(target=lambda: results.append(run()))
        thread.start()
        thread.join()
        print(repr(results[0]))
    """)
    done = subprocess.run([sys.executable, "-c", runner], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 (our own script's printed value)


AT_THE_LIMIT = textwrap.dedent("""
    import numpy as np
    import popdsl as pd
    from popdsl import poplar, popops, program
    from popdsl.popops import expr as pe

    LIMIT = 1000

    def raw_run():
        # _1 + 1 + ... : LIMIT levels, compiled, serialized, loaded and run.
        e = pe._1
        for _ in range(LIMIT - 1):
            e = e + 1
        assert e.deepEquals(e) and len(repr(e)) > LIMIT
        device = poplar.IPUModel().createDevice()
        graph = poplar.Graph(device.getTarget())
        popops.addCodelets(graph)
        x = graph.addVariable(poplar.FLOAT, [3], "x")
        graph.setTileMapping(x, 0)
        graph.createHostWrite("x", x)
        graph.createHostRead("x", x)
        seq = program.Sequence()
        popops.mapInPlace(graph, e, [x], seq)
        exe = poplar.Executable.deserialize(poplar.compileGraph(graph, [seq]).serialize())
        engine = poplar.Engine(exe)
        engine.load(device)
        engine.writeTensor("x", np.array([0.5, 2.0, -3.0], np.float32))
        engine.run(0)
        out = np.zeros(3, np.float32)
        engine.readTensor("x", out)
        return out.tolist()

    def pythonic_grad():
        # y = x * 1.001 * ... (LIMIT - 2 multiplications, one map); dy/dx = 1.001 ** (LIMIT - 2).
        g = pd.Graph(pd.ipu_model(tiles=4))
        x = g.variable(pd.float32, (2,), name="x", init=np.array([1.0, 2.0], np.float32))

        def f(a):
            for _ in range(LIMIT - 2):
                a = a * 1.001
            return a

        with pd.Sequence("main") as main:
            y = pd.map(f, x)
            (dx,) = pd.grad(y.sum(), [x])
        with pd.Session(g, main) as s:
            s.run()
            return s.read(y).tolist(), s.read(dx).tolist()

    def run():
        return {"raw": raw_run(), "grad": pythonic_grad()}
""")


def test_expressions_at_the_limit_run_and_differentiate_on_a_1_mib_stack():
    results = on_a_small_stack_in_a_subprocess(AT_THE_LIMIT)
    np.testing.assert_allclose(results["raw"], [0.5 + 999, 2.0 + 999, -3.0 + 999])
    y, dx = results["grad"]
    factor = 1.001 ** (LIMIT - 2)
    np.testing.assert_allclose(y, [1.0 * factor, 2.0 * factor], rtol=1e-4)
    np.testing.assert_allclose(dx, [factor, factor], rtol=1e-4)


def test_a_tensor_of_20000_dimensions_prints_on_a_1_mib_stack():
    # PrintTensor walked the dimensions by recursion: SIGSEGV. Past 64 levels lines indent no further.
    printed = on_a_small_stack_in_a_subprocess(textwrap.dedent("""
        import io
        import numpy as np
        from popdsl import poplar, program

        def run():
            device = poplar.IPUModel().createDevice()
            graph = poplar.Graph(device.getTarget())
            x = graph.addConstant(poplar.INT, [1] * 20000 + [2], np.array([7, 8], np.int32), "x")
            graph.setTileMapping(x, 0)
            engine = poplar.Engine(graph, [program.PrintTensor("x", x)])
            engine.load(device)
            out = io.StringIO()
            engine.setPrintTensorStream(out)
            engine.run(0)
            return out.getvalue()
    """))
    lines = printed.splitlines()
    assert printed.count("[") == printed.count("]") == 20001
    assert re.search(r"\[7\D+8\]", printed)
    assert len(lines) == 2 * 20000 + 1  # an opening and a closing line per outer dimension, one innermost line
    assert max(len(line) for line in lines) < 200
