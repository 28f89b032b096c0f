"""Programs nested as deep as Poplar allows (10000 levels) build, compile, serialize,
load, run, dump and are freed on a thread with a 1 MiB stack: every walk of a program
tree, in the emulator and in the Pythonic layer, keeps its own stack instead of
recursing once per level. Each program adds one to a counter at its innermost level;
the count expected follows from how the levels are nested."""
import contextlib
import threading

import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, popops, program
from popdsl.popops import expr as pe

DEPTH = 10000  # Poplar's limit, and the emulator's
SMALL_STACK = 1 << 20


def on_small_stack(fn, stack_bytes=SMALL_STACK):
    """fn() computed on a new thread with a stack of `stack_bytes`; its exception is raised here."""
    outcome = {}

    def target():
        try:
            outcome["value"] = fn()
        except BaseException as e:  # noqa: BLE001 (handed to the test's thread)
            outcome["error"] = e

    previous = threading.stack_size(stack_bytes)
    try:
        thread = threading.Thread(target=target)
        thread.start()
    finally:
        threading.stack_size(previous)
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class Counter:
    """A one-element UNSIGNED_INT counter with a host read handle, on a new graph."""

    def __init__(self, device):
        self.graph = poplar.Graph(device.getTarget())
        popops.addCodelets(self.graph)
        self.count = self.scalar(poplar.UNSIGNED_INT, 0, "count")
        self.graph.createHostRead("count", self.count)

    def scalar(self, dtype, initial, name):
        t = self.graph.addVariable(dtype, [1], name)
        self.graph.setTileMapping(t, 0)
        self.graph.setInitialValue(t, np.array([initial], np.uint32 if dtype == poplar.UNSIGNED_INT else bool))
        return t

    def increment(self):
        seq = program.Sequence()
        popops.mapInPlace(self.graph, pe._1 + 1, [self.count], seq)
        return seq


def compile_run_and_reload(device, graph, prog):
    """The count after running `prog` compiled, and after running it serialized and
    loaded again; also the lines of its dump and whether it is empty."""
    dump = program.dumpProgram(graph, prog)
    executable = poplar.compileGraph(graph, [prog])
    counts = []
    for exe in (executable, poplar.Executable.deserialize(executable.serialize())):
        engine = poplar.Engine(exe)
        engine.load(device)
        engine.run(0)
        out = np.zeros(1, np.uint32)
        engine.readTensor("count", out)
        counts.append(int(out[0]))
        if pd.backend() == "emulator":  # the profile's walk of the programs (emulator-only data)
            assert engine.getProfileData()["runs"] == 1
    return {"counts": counts, "dump_lines": dump.count("\n"), "empty": prog.isEmpty()}


def nest(innermost, wrap):
    """`innermost` (2 levels: a Sequence around the increment) inside DEPTH - 2 levels of
    wrap(inner, level), level 0 the innermost: DEPTH levels in all."""
    prog = innermost
    for level in range(DEPTH - 2):
        prog = wrap(prog, level)
    return prog


# Each builds a program on the counter's graph: (the program, the count it leaves, the
# least number of lines its dump has).

def deep_sequences(c):
    return nest(c.increment(), lambda inner, level: program.Sequence([inner])), 1, DEPTH


def deep_repeats(c):
    # Each level runs once but the outermost, which runs its body three times.
    return nest(c.increment(), lambda inner, level: program.Repeat(3 if level == DEPTH - 3 else 1, inner)), 3, DEPTH


def deep_ifs(c):
    taken = c.scalar(poplar.BOOL, True, "taken")
    skipped = c.scalar(poplar.BOOL, False, "skipped")
    wrong = program.Abort("the wrong branch ran")
    # The nested program alternates between the then-branch and the else-branch.
    return nest(c.increment(), lambda inner, level: (program.If(taken, inner, wrong) if level % 2
                                                     else program.If(skipped, wrong, inner))), 1, DEPTH


def deep_switches(c):
    control = c.scalar(poplar.UNSIGNED_INT, 1, "control")
    wrong = program.Abort("the wrong case ran")
    # The nested program alternates between case 1 and the default.
    return nest(c.increment(), lambda inner, level: (
        program.Switch(control, [(0, wrong), (1, inner)], wrong) if level % 2
        else program.Switch(control, [(0, wrong)], inner))), 1, DEPTH


def deep_whiles(c):
    # Every level loops while `more` is set; the innermost body clears it, so each runs once.
    more = c.scalar(poplar.BOOL, True, "more")
    innermost = c.increment()
    popops.zero(c.graph, more, innermost)
    return nest(innermost, lambda inner, level: program.RepeatWhileTrue(program.Sequence(), more, inner)), 1, DEPTH


def deep_mixture(c):
    # Every sixth level is a function call: a function's body is dumped where it is defined.
    taken = c.scalar(poplar.BOOL, True, "taken")
    control = c.scalar(poplar.UNSIGNED_INT, 0, "control")
    kinds = [lambda inner: program.Sequence([inner]), lambda inner: program.Repeat(1, inner),
             lambda inner: program.If(taken, inner), lambda inner: program.Switch(control, [(0, inner)]),
             lambda inner: program.Block(inner), lambda inner: program.Call(c.graph.addFunction(inner))]
    return nest(c.increment(), lambda inner, level: kinds[level % len(kinds)](inner)), 1, 3


def calls_of_calls(c):
    # Function k calls function k - 1: 10000 calls deep when the program runs.
    function = c.graph.addFunction(c.increment())
    for _ in range(DEPTH - 1):
        function = c.graph.addFunction(program.Sequence([program.Call(function)]))
    return program.Call(function), 1, 1


@pytest.mark.parametrize("build", [deep_sequences, deep_repeats, deep_ifs, deep_switches, deep_whiles,
                                   deep_mixture, calls_of_calls])
def test_deep_programs_run_on_a_small_stack(device, build):
    def build_and_run():
        c = Counter(device)
        prog, expected, dump_lines = build(c)
        return compile_run_and_reload(device, c.graph, prog), expected, dump_lines

    result, expected, dump_lines = on_small_stack(build_and_run)
    assert result["counts"] == [expected, expected]
    assert not result["empty"]
    assert result["dump_lines"] >= dump_lines


def test_an_empty_deep_sequence_is_empty():
    def build():
        prog = program.Sequence()
        for _ in range(DEPTH - 1):
            prog = program.Sequence([prog])
        return prog.isEmpty()

    assert on_small_stack(build) is True


def test_deep_pythonic_blocks_build_on_a_small_stack():
    # A pd.Repeat is two levels (the Repeat and its body's Sequence); with the main
    # Sequence and the increment (a Sequence around an Execute) that makes DEPTH - 1 levels.
    repeats = (DEPTH - 3) // 2

    def build_and_run():
        device = pd.ipu_model(tiles=4)
        g = pd.Graph(device)
        count = g.variable(pd.uint32, (1,), name="count", init=0)
        with pd.Sequence("main") as main, contextlib.ExitStack() as levels:
            for level in range(repeats):
                levels.enter_context(pd.Repeat(2 if level == 0 else 1))
            count += 1
        with pd.Session(g, main, device=device) as s:
            s.run()
            return s.read(count).tolist()

    assert on_small_stack(build_and_run) == [2]


@pytest.mark.needs_emulator("the emulator's dumpProgram format")
def test_deep_lines_of_a_dump_say_their_level(device):
    # Indenting every level would make the dump grow with the square of the depth
    # (100 MB for 10000 levels); past 64 levels a line says its level instead.
    c = Counter(device)
    prog, _, _ = deep_sequences(c)
    lines = program.dumpProgram(c.graph, prog).splitlines()
    assert len(lines) == DEPTH
    assert lines[64] == " " * 128 + "Sequence"
    assert lines[65] == " " * 128 + "[level 65] Sequence"
    assert lines[-1].startswith(" " * 128 + f"[level {DEPTH - 1}] Execute")
    assert max(len(line) for line in lines) < 200


def test_views_of_views_nest_deeper_than_pythons_recursion_limit():
    # 3000 views deep (Python stops recursions at 1000): recording the write through the
    # innermost view, and pd.grad reading it, walk the chain of views on lists.
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (4,), name="x", init=np.array([1, 2, 3, 4], np.float32))
    w = g.variable(pd.float32, (4,), name="w", init=np.full(4, 0.5, np.float32))
    view = x
    for _ in range(3000):
        view = view[:]
    with pd.Sequence("main") as main:
        view += 1
        loss = (view * w).sum()
        (dw,) = pd.grad(loss, [w])
    with pd.Session(g, main) as s:
        s.run()
        np.testing.assert_array_equal(s.read(x), [2, 3, 4, 5])
        np.testing.assert_array_equal(s.read(dw), [2, 3, 4, 5])  # d(sum(view * w))/dw = view = x + 1
