"""Control programs, copies, streams, host handles and PrintTensor on the emulator.

There are no arithmetic vertices here, so programs are observed through data
movement: a body that copies the next host-to-device stream element to a
device-to-host stream shows, on the host, how often and in which order it ran.
Expected values come from numpy or are written out by hand.
"""
import io

import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, program


def mapped_variable(graph, dtype, shape, name):
    tensor = graph.addVariable(dtype, shape, name)
    graph.setTileMapping(tensor, 0)
    return tensor


def mapped_constant(graph, dtype, shape, values, name):
    tensor = graph.addConstant(dtype, shape, values, name)
    graph.setTileMapping(tensor, 1)
    return tensor


def loaded_engine(graph, device, programs):
    engine = poplar.Engine(graph, programs)
    engine.load(device)
    return engine


def read_tensor(engine, handle, dtype, shape):
    out = np.zeros(shape, dtype)
    engine.readTensor(handle, out)
    return out


class Received:
    """A device-to-host stream callback that keeps every array it is handed."""

    def __init__(self):
        self.arrays = []

    def __call__(self, array):
        self.arrays.append(array)

    def values(self):
        return [a.tolist() for a in self.arrays]


class Feed:
    """A host-to-device stream callback handing out the given values in order."""

    def __init__(self, values):
        self.pending = list(values)
        self.calls = 0

    def __call__(self, array):
        self.calls += 1
        array[...] = self.pending.pop(0)


def relay(graph, name, dtype=poplar.INT, n=1):
    """A program moving `n` elements from stream `name`_in through a variable to `name`_out,
    so the host sees each time it runs and what it read."""
    data_in = graph.addHostToDeviceFIFO(name + "_in", dtype, n)
    data_out = graph.addDeviceToHostFIFO(name + "_out", dtype, n)
    buffer = mapped_variable(graph, dtype, [n], name)
    return program.Sequence([program.Copy(data_in, buffer), program.Copy(buffer, data_out)])


# --- Repeat ---------------------------------------------------------------------------------------


def test_repeat_runs_its_body_count_times_in_order(graph, device):
    engine = loaded_engine(graph, device, program.Repeat(5, relay(graph, "step")))
    received = Received()
    engine.connectStream("step_in", np.arange(10, 15, dtype=np.int32))
    engine.connectStreamToCallback("step_out", received)
    engine.run(0)
    assert received.values() == [[10], [11], [12], [13], [14]]


def test_repeat_zero_times_never_runs_its_body(graph, device):
    engine = loaded_engine(graph, device, program.Repeat(0, relay(graph, "step")))
    feed, received = Feed([1]), Received()
    engine.connectStreamToCallback("step_in", feed)
    engine.connectStreamToCallback("step_out", received)
    engine.run(0)
    assert feed.calls == 0 and received.arrays == []


def test_nested_repeats_interleave_inner_and_outer_steps(graph, device):
    # Both bodies report to one log, so the order of the 3 x (4 inner + 1 outer) steps shows.
    log = []
    inner, outer = relay(graph, "inner"), relay(graph, "outer")
    main = program.Repeat(3, program.Sequence([program.Repeat(4, inner), outer]))
    engine = loaded_engine(graph, device, main)
    engine.connectStream("inner_in", np.arange(100, 112, dtype=np.int32))
    engine.connectStream("outer_in", np.arange(-1, -4, -1, dtype=np.int32))
    engine.connectStreamToCallback("inner_out", lambda a: log.append(int(a[0])))
    engine.connectStreamToCallback("outer_out", lambda a: log.append(int(a[0])))
    engine.run(0)
    expected = []
    for outer_step in range(3):
        expected += [100 + 4 * outer_step + k for k in range(4)] + [-1 - outer_step]
    assert log == expected


def test_same_repeat_program_used_twice_keeps_separate_counts(graph, device):
    step = program.Repeat(2, relay(graph, "step"))
    main = program.Repeat(2, program.Sequence([step, step]))
    engine = loaded_engine(graph, device, main)
    received = Received()
    engine.connectStream("step_in", np.arange(8, dtype=np.int32))
    engine.connectStreamToCallback("step_out", received)
    engine.run(0)
    assert received.values() == [[k] for k in range(8)]


# --- If -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype, value, takes_true_branch",
    [
        (poplar.BOOL, True, True),
        (poplar.BOOL, False, False),
        (poplar.INT, 0, False),
        (poplar.INT, -7, True),
        (poplar.UNSIGNED_INT, 0, False),
        (poplar.UNSIGNED_INT, 2**32 - 1, True),
        (poplar.UNSIGNED_CHAR, 1, True),
    ],
)
def test_if_chooses_the_branch_from_a_host_written_predicate(graph, device, dtype, value,
                                                             takes_true_branch):
    predicate = mapped_variable(graph, dtype, [], "predicate")
    result = mapped_variable(graph, poplar.FLOAT, [2], "result")
    when_true = mapped_constant(graph, poplar.FLOAT, [2], np.array([1, 2], np.float32), "whenTrue")
    when_false = mapped_constant(graph, poplar.FLOAT, [2], np.array([3, 4], np.float32), "whenFalse")
    graph.createHostWrite("predicate", predicate)
    graph.createHostRead("result", result)
    engine = loaded_engine(graph, device,
                           program.If(predicate, program.Copy(when_true, result),
                                      program.Copy(when_false, result)))
    engine.writeTensor("predicate", np.array(value, dtype.numpy_dtype))
    engine.run(0)
    expected = [1, 2] if takes_true_branch else [3, 4]
    assert read_tensor(engine, "result", np.float32, [2]).tolist() == expected


def test_if_without_else_leaves_state_alone_when_false(graph, device):
    predicate = mapped_variable(graph, poplar.INT, [1], "predicate")
    result = mapped_variable(graph, poplar.INT, [1], "result")
    nine = mapped_constant(graph, poplar.INT, [1], 9, "nine")
    graph.createHostWrite("predicate", predicate)
    graph.createHostRead("result", result)
    engine = loaded_engine(graph, device, program.If(predicate, program.Copy(nine, result)))
    engine.writeTensor("predicate", np.array([0], np.int32))
    engine.run(0)
    assert read_tensor(engine, "result", np.int32, [1]).tolist() == [0]
    engine.writeTensor("predicate", np.array([5], np.int32))
    engine.run(0)
    assert read_tensor(engine, "result", np.int32, [1]).tolist() == [9]


# --- RepeatWhileTrue / RepeatWhileFalse -----------------------------------------------------------


@pytest.mark.parametrize(
    "loop, conditions, body_runs",
    [
        (program.RepeatWhileTrue, [1, 1, 1, 0], 3),
        (program.RepeatWhileTrue, [0], 0),
        (program.RepeatWhileFalse, [0, 0, 7], 2),
        (program.RepeatWhileFalse, [1], 0),
    ],
)
def test_while_loops_evaluate_the_condition_before_each_body(graph, device, loop, conditions,
                                                             body_runs):
    predicate = mapped_variable(graph, poplar.INT, [1], "predicate")
    conditions_in = graph.addHostToDeviceFIFO("conditions", poplar.INT, 1)
    main = loop(program.Copy(conditions_in, predicate), predicate, relay(graph, "body"))
    engine = loaded_engine(graph, device, main)
    feed, received = Feed(conditions), Received()
    engine.connectStreamToCallback("conditions", feed)
    engine.connectStream("body_in", np.arange(50, 60, dtype=np.int32))
    engine.connectStreamToCallback("body_out", received)
    engine.run(0)
    assert feed.calls == len(conditions)  # the condition runs once more than the body
    assert received.values() == [[50 + k] for k in range(body_runs)]


# --- Switch ---------------------------------------------------------------------------------------


def switch_graph(graph, make_switch):
    """A switch on a host-written INT whose branches copy distinct constants to `result`."""
    control = mapped_variable(graph, poplar.INT, [], "control")
    result = mapped_variable(graph, poplar.INT, [1], "result")
    graph.createHostWrite("control", control)
    graph.createHostRead("result", result)

    def set_result(value):
        return program.Copy(mapped_constant(graph, poplar.INT, [1], value, f"c{value}"), result)

    return make_switch(control, set_result)


def run_switch(engine, value):
    engine.writeTensor("control", np.array(value, np.int32))
    engine.run(0)
    return int(read_tensor(engine, "result", np.int32, [1])[0])


def test_switch_runs_the_matching_case_or_the_default(graph, device):
    switch = switch_graph(graph, lambda control, set_result: program.Switch(
        control, [(0, set_result(100)), (3, set_result(103)), (-2, set_result(98))], set_result(-1)))
    engine = loaded_engine(graph, device, switch)
    assert [run_switch(engine, v) for v in [3, 0, -2, 1, 4]] == [103, 100, 98, -1, -1]


def test_switch_with_only_a_default_always_runs_it(graph, device):
    switch = switch_graph(graph, lambda control, set_result: program.Switch(control, set_result(42)))
    engine = loaded_engine(graph, device, switch)
    assert [run_switch(engine, v) for v in [0, -5]] == [42, 42]


def test_switch_built_with_add_and_no_default_does_nothing_when_unmatched(graph, device):
    def build(control, set_result):
        switch = program.Switch(control)
        switch.add(1, set_result(11)).add(2, set_result(12))
        return switch

    engine = loaded_engine(graph, device, switch_graph(graph, build))
    assert run_switch(engine, 2) == 12
    assert run_switch(engine, 7) == 12  # unmatched: result keeps its value
    assert run_switch(engine, 1) == 11


def test_switch_with_bounds_checking_aborts_on_an_unmatched_value(graph, device):
    switch = switch_graph(graph, lambda control, set_result: program.Switch.switchWithBoundsChecking(
        control, [(0, set_result(10)), (1, set_result(11))]))
    engine = loaded_engine(graph, device, switch)
    assert run_switch(engine, 1) == 11
    with pytest.raises(poplar.application_runtime_error, match="matches no case"):
        run_switch(engine, 2)
    assert run_switch(engine, 0) == 10  # the engine still runs after the abort


def test_switch_with_unreachable_default_aborts_when_the_default_is_reached(graph, device):
    def build(control, set_result):
        switch = program.Switch.switchWithUnreachableDefault(control)
        switch.add(5, set_result(55))
        return switch

    engine = loaded_engine(graph, device, switch_graph(graph, build))
    assert run_switch(engine, 5) == 55
    with pytest.raises(poplar.application_runtime_error, match="unreachable"):
        run_switch(engine, 6)


def test_programs_are_captured_by_value_when_added_to_another(graph, device):
    x = mapped_variable(graph, poplar.INT, [1], "x")
    graph.createHostRead("x", x)
    one = mapped_constant(graph, poplar.INT, [1], 1, "one")
    two = mapped_constant(graph, poplar.INT, [1], 2, "two")
    body = program.Sequence([program.Copy(one, x)])
    main = program.Sequence([body])
    body.add(program.Copy(two, x))  # too late for main, which holds the one-step body
    assert main != body
    engine = loaded_engine(graph, device, [main, body])
    engine.run(0)
    assert read_tensor(engine, "x", np.int32, [1]).tolist() == [1]
    engine.run(1)
    assert read_tensor(engine, "x", np.int32, [1]).tolist() == [2]


def test_adding_a_program_to_itself_adds_its_old_value(graph, device):
    # Added by reference, the node contained itself and compiling recursed until SIGSEGV.
    x = mapped_variable(graph, poplar.INT, [1], "x")
    data_out = graph.addDeviceToHostFIFO("x_out", poplar.INT, 1)
    one = mapped_constant(graph, poplar.INT, [1], 1, "one")
    sequence = program.Sequence([program.Copy(x, data_out)])
    sequence.add(sequence)
    switch = program.Switch(mapped_variable(graph, poplar.INT, [], "control"))
    switch.add(0, program.Copy(one, x)).add(1, switch)
    engine = loaded_engine(graph, device, [sequence, switch])
    received = Received()
    engine.connectStreamToCallback("x_out", received)
    engine.run(1)  # control 0: x = 1
    engine.run(0)
    assert received.values() == [[1], [1]]


def test_programs_nest_at_most_10000_levels_deep(graph, device):
    # Poplar's limit: the 10001st level is refused (before it was, 30000 nested Sequences
    # overflowed the stack of the recursive walks; test_deep_programs.py runs 10000).
    deepest = program.Sequence()
    for _ in range(9999):
        deepest = program.Sequence([deepest])
    exe = poplar.Executable.deserialize(poplar.compileGraph(graph, [deepest]).serialize())
    engine = poplar.Engine(exe)
    engine.load(device)
    engine.run(0)
    predicate = mapped_variable(graph, poplar.BOOL, [], "predicate")
    for deeper in (lambda: program.Sequence([deepest]), lambda: program.Sequence().add(deepest),
                   lambda: program.Repeat(2, deepest), lambda: program.If(predicate, program.Sequence(), deepest),
                   lambda: program.Switch(predicate).add(1, deepest)):
        with pytest.raises(poplar.control_program_error, match="cannot nest more than 10000 levels deep"):
            deeper()


# --- Call -----------------------------------------------------------------------------------------


def test_call_runs_a_graph_function_each_time_with_current_data(graph, device):
    x = mapped_variable(graph, poplar.INT, [2], "x")
    report = graph.addDeviceToHostFIFO("report", poplar.INT, 2)
    first = mapped_constant(graph, poplar.INT, [2], np.array([1, 2], np.int32), "first")
    second = mapped_constant(graph, poplar.INT, [2], np.array([3, 4], np.int32), "second")
    send_x = graph.addFunction(program.Copy(x, report))
    main = program.Sequence([
        program.Copy(first, x), program.Call(send_x),
        program.Copy(second, x), program.Call(send_x),
        program.Repeat(2, program.Call(send_x)),
    ])
    engine = loaded_engine(graph, device, main)
    received = Received()
    engine.connectStreamToCallback("report", received)
    engine.run(0)
    assert received.values() == [[1, 2], [3, 4], [3, 4], [3, 4]]


def test_functions_can_call_functions_and_be_shared_by_programs(graph, device):
    inner = graph.addFunction(relay(graph, "step"))
    outer = graph.addFunction(program.Sequence([program.Call(inner), program.Call(inner)]))
    engine = loaded_engine(graph, device, [program.Call(outer), program.Call(inner)])
    received = Received()
    engine.connectStream("step_in", np.arange(3, dtype=np.int32))
    engine.connectStreamToCallback("step_out", received)
    engine.run(0)
    engine.run(1)
    assert received.values() == [[0], [1], [2]]


def test_recursive_functions_are_a_compilation_error(graph, device):
    # A Call can name a function id before it exists; recursion grew the run-time
    # call stack until the host ran out of memory, or forever inside Repeat or If.
    first = poplar.Function(1)  # the ids addFunction is about to hand out
    main = graph.addFunction(program.Sequence([program.Call(first)]))
    graph.addFunction(program.Repeat(2, program.Call(poplar.Function(2))))
    graph.addFunction(program.Sequence([program.Call(first)]))
    with pytest.raises(poplar.graph_cycle_error, match=r"function\(s\) 1, 2 call themselves"):
        poplar.Engine(graph, program.Call(main))


def chain_of_functions(graph, length, last):
    """Functions 0 .. length-1 of a fresh graph, each calling the next; the last runs `last`."""
    for f in range(1, length):
        graph.addFunction(program.Call(poplar.Function(f)))
    graph.addFunction(last)
    return poplar.Function(0)


def test_a_long_chain_of_functions_compiles_and_runs(graph, device):
    # The recursion check was quadratic in the number of functions (8000: 4.5 s to compile);
    # it is one depth-first pass now (10000: 0.16 s). Timed by hand, not here: tests time nothing.
    x = mapped_variable(graph, poplar.INT, [1], "x")
    seven = mapped_constant(graph, poplar.INT, [1], np.array([7], np.int32), "seven")
    graph.createHostRead("x", x)
    first = chain_of_functions(graph, 10000, program.Copy(seven, x))
    engine = poplar.Engine(graph, program.Call(first))
    engine.load(device)
    engine.run(0)
    assert read_tensor(engine, "x", np.int32, [1]) == [7]


def test_a_long_call_cycle_is_refused_naming_its_first_functions(graph):
    first = chain_of_functions(graph, 10000, program.Call(poplar.Function(0)))
    with pytest.raises(poplar.graph_cycle_error,
                       match=r"function\(s\) 0, 1, 2, 3, 4, 5, 6, 7, \.\.\. \(10000 functions\) call themselves"):
        poplar.Engine(graph, program.Call(first))


# --- Copies between views -------------------------------------------------------------------------


def host_copy(graph, device, initial, dst_of, src_of):
    """Runs Copy(src_of(v), dst_of(v)) on a variable v starting at `initial`; returns v."""
    v = mapped_variable(graph, poplar.INT, list(initial.shape), "v")
    graph.setInitialValue(v, initial)
    graph.createHostRead("v", v)
    engine = loaded_engine(graph, device, program.Copy(src_of(v), dst_of(v)))
    engine.run(0)
    return read_tensor(engine, "v", np.int32, initial.shape)


@pytest.mark.parametrize(
    "src_of, dst_of, numpy_src, numpy_dst",
    [
        (lambda v: v.slice(0, 4), lambda v: v.slice(1, 5), np.s_[0:4], np.s_[1:5]),
        (lambda v: v.slice(1, 5), lambda v: v.slice(0, 4), np.s_[1:5], np.s_[0:4]),
        (lambda v: v.reverse(0), lambda v: v, np.s_[::-1], np.s_[:]),
        (lambda v: v.slice(0, 3), lambda v: v.slice(2, 5).reverse(0), np.s_[0:3], np.s_[4:1:-1]),
        (lambda v: v.subSample(2, 0), lambda v: v.slice(0, 3), np.s_[::2], np.s_[0:3]),
    ],
)
def test_copy_between_overlapping_views_reads_the_source_first(graph, device, src_of, dst_of,
                                                               numpy_src, numpy_dst):
    initial = np.arange(10, 16, dtype=np.int32)
    expected = initial.copy()
    expected[numpy_dst] = initial[numpy_src].copy()
    assert host_copy(graph, device, initial, dst_of, src_of).tolist() == expected.tolist()


def test_copy_of_a_square_matrix_onto_its_own_transpose(graph, device):
    initial = np.arange(16, dtype=np.int32).reshape(4, 4)
    result = host_copy(graph, device, initial, lambda v: v, lambda v: v.transpose())
    assert result.tolist() == initial.T.tolist()


def test_copies_write_through_views_into_the_variable(graph, device):
    m = mapped_variable(graph, poplar.FLOAT, [3, 4], "m")
    column = mapped_constant(graph, poplar.FLOAT, [3], np.array([1, 2, 3], np.float32), "column")
    row = mapped_constant(graph, poplar.FLOAT, [4], np.array([5, 6, 7, 8], np.float32), "row")
    corner = mapped_constant(graph, poplar.FLOAT, [2, 2], np.array([[9, 10], [11, 12]], np.float32), "corner")
    graph.createHostRead("m", m)
    engine = loaded_engine(graph, device, program.Sequence([
        program.Copy(column, m.transpose()[1]),
        program.Copy(row, m[0].reverse(0)),
        program.Copy(corner, m.slice([1, 2], [3, 4]).transpose()),
    ]))
    engine.run(0)
    expected = np.zeros((3, 4), np.float32)
    expected.T[1] = [1, 2, 3]
    expected[0][::-1] = [5, 6, 7, 8]
    expected[1:3, 2:4].T[...] = [[9, 10], [11, 12]]
    assert read_tensor(engine, "m", np.float32, [3, 4]).tolist() == expected.tolist()


def test_copy_from_a_broadcast_view_fills_every_destination_element(graph, device):
    m = mapped_variable(graph, poplar.INT, [3, 2], "m")
    pair = mapped_constant(graph, poplar.INT, [1, 2], np.array([[7, 8]], np.int32), "pair")
    graph.createHostRead("m", m)
    engine = loaded_engine(graph, device, program.Copy(pair.broadcast(3, 0), m))
    engine.run(0)
    assert read_tensor(engine, "m", np.int32, [3, 2]).tolist() == [[7, 8]] * 3


# --- Engine runs and program indices --------------------------------------------------------------


def test_state_persists_between_runs_and_load_restores_initial_values(graph, device):
    v = mapped_variable(graph, poplar.INT, [4], "v")
    graph.setInitialValue(v, np.array([1, 2, 3, 4], np.int32))
    graph.createHostRead("v", v)
    engine = loaded_engine(graph, device, program.Copy(v.slice(0, 3), v.slice(1, 4)))
    engine.run(0)
    assert read_tensor(engine, "v", np.int32, [4]).tolist() == [1, 1, 2, 3]
    engine.run(0)
    assert read_tensor(engine, "v", np.int32, [4]).tolist() == [1, 1, 1, 2]
    engine.load(device)
    assert read_tensor(engine, "v", np.int32, [4]).tolist() == [1, 2, 3, 4]


def test_several_programs_share_state_and_run_by_index(graph, device):
    x = mapped_variable(graph, poplar.INT, [1], "x")
    y = mapped_variable(graph, poplar.INT, [1], "y")
    graph.createHostRead("y", y)
    programs = [program.Copy(mapped_constant(graph, poplar.INT, [1], k, f"k{k}"), x) for k in range(3)]
    programs.append(program.Copy(x, y))
    engine = loaded_engine(graph, device, programs)
    for index, expected in [(2, 2), (0, 0), (1, 1)]:
        engine.run(index)
        engine.run(3)
        assert read_tensor(engine, "y", np.int32, [1]).tolist() == [expected]


def test_load_and_run_runs_the_chosen_program(graph, device, capsys):
    x = mapped_variable(graph, poplar.INT, [2], "x")
    engine = poplar.Engine(graph, [program.Sequence(), program.PrintTensor("x", x)])
    engine.loadAndRun(device, 1)
    engine.loadAndRun(device, 1)
    assert capsys.readouterr().out == "x: [0 0]\n" * 2


def test_engine_reports_compile_progress(graph, device):
    calls = []
    poplar.Engine(graph, program.Sequence(), {}, lambda done, total: calls.append((done, total)))
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1] > 0


# --- Streams --------------------------------------------------------------------------------------


def test_circular_buffers_wrap_in_both_directions(graph, device):
    # Poplar tutorial 1: a 30-element host buffer feeds 10-element copies.
    main = relay(graph, "v", poplar.FLOAT, 10)
    engine = loaded_engine(graph, device, program.Repeat(2, main))
    host_in = np.arange(30, dtype=np.float32)
    host_out = np.zeros(25, np.float32)
    engine.connectStream("v_in", host_in)
    engine.connectStream("v_out", host_out)
    engine.run(0)  # reads 0..9, 10..19; writes host_out[0:10], host_out[10:20]
    assert host_out.tolist() == list(range(20)) + [0] * 5
    engine.run(0)  # reads 20..29, then wraps to 0..9; the second write wraps at 25
    expected = np.zeros(25, np.float32)
    writes = np.concatenate([np.arange(20), np.arange(20, 30), np.arange(10)])
    for position, value in enumerate(writes):
        expected[position % 25] = value
    assert host_out.tolist() == expected.tolist()


def test_a_buffer_of_exactly_one_copy_is_reread_and_seen_live(graph, device):
    engine = loaded_engine(graph, device, relay(graph, "v", poplar.INT, 3))
    host_in = np.array([1, 2, 3], np.int32)
    received = Received()
    engine.connectStream("v_in", host_in)
    engine.connectStreamToCallback("v_out", received)
    engine.run(0)
    host_in[:] = [4, 5, 6]  # the engine reads the array itself, not a snapshot
    engine.run(0)
    assert received.values() == [[1, 2, 3], [4, 5, 6]]


def test_engine_keeps_a_connected_temporary_array_alive(graph, device):
    engine = loaded_engine(graph, device, relay(graph, "v", poplar.INT, 4))
    engine.connectStream("v_in", np.arange(4, dtype=np.int32) * 3)
    # Same-sized allocations would reuse the array's memory had the engine let it go.
    decoys = [np.full(4, -1, np.int32) for _ in range(100)]
    received = Received()
    engine.connectStreamToCallback("v_out", received)
    engine.run(0)
    assert received.values() == [[0, 3, 6, 9]]
    assert all(d.tolist() == [-1] * 4 for d in decoys)


def test_host_to_device_callback_may_fill_its_array_or_return_data(graph, device):
    engine = loaded_engine(graph, device, relay(graph, "v", poplar.FLOAT, 3))
    received = Received()
    engine.connectStreamToCallback("v_out", received)
    given = []

    def fill(array):
        given.append((array.dtype, array.shape))
        array[:] = [0.5, 1.5, 2.5]

    engine.connectStreamToCallback("v_in", fill)
    engine.run(0)
    engine.connectStreamToCallback("v_in", lambda array: [7, 8, 9])
    engine.run(0)
    assert given == [(np.dtype(np.float32), (3,))]
    assert received.values() == [[0.5, 1.5, 2.5], [7, 8, 9]]


def test_device_to_host_callback_receives_an_independent_copy(graph, device):
    engine = loaded_engine(graph, device, program.Repeat(3, relay(graph, "v", poplar.INT, 2)))
    engine.connectStream("v_in", np.arange(6, dtype=np.int32))
    received = Received()
    engine.connectStreamToCallback("v_out", received)
    engine.run(0)
    for array in received.arrays:
        array[:] = -1  # scribbling on one delivery must not affect the device or the others
    engine.run(0)
    assert received.values() == [[-1, -1]] * 3 + [[0, 1], [2, 3], [4, 5]]
    assert all(a.dtype == np.int32 for a in received.arrays)


def test_reconnecting_a_stream_replaces_the_previous_connection(graph, device):
    engine = loaded_engine(graph, device, relay(graph, "v", poplar.INT, 1))
    received = Received()
    engine.connectStreamToCallback("v_in", Feed([41]))
    engine.connectStreamToCallback("v_out", received)
    engine.run(0)
    engine.connectStream("v_in", np.array([42], np.int32))
    engine.run(0)
    engine.connectStreamToCallback("v_in", Feed([43]))
    engine.run(0)
    assert received.values() == [[41], [42], [43]]
    assert sorted(engine.listStreams()) == ["v_in", "v_out"]


# --- Host read and write handles ------------------------------------------------------------------


def test_host_handles_on_views_read_and_write_through_the_view(graph, device):
    m = mapped_variable(graph, poplar.INT, [3, 4], "m")
    graph.createHostWrite("columns", m.transpose())
    graph.createHostWrite("row1", m[1])
    graph.createHostRead("m", m)
    graph.createHostRead("column2", m.transpose()[2])
    engine = loaded_engine(graph, device, program.Sequence())
    columns = np.arange(12, dtype=np.int32).reshape(4, 3)
    engine.writeTensor("columns", columns)
    engine.writeTensor("row1", np.array([-1, -2, -3, -4], np.int32))
    expected = columns.T.copy()
    expected[1] = [-1, -2, -3, -4]
    assert read_tensor(engine, "m", np.int32, [3, 4]).tolist() == expected.tolist()
    out = np.zeros(3, np.int32)
    assert engine.readTensor("column2", out) is out
    assert out.tolist() == expected[:, 2].tolist()


def test_host_writes_are_seen_by_the_next_run(graph, device):
    x = mapped_variable(graph, poplar.FLOAT, [2], "x")
    y = mapped_variable(graph, poplar.FLOAT, [2], "y")
    graph.createHostWrite("x", x)
    graph.createHostRead("y", y)
    engine = loaded_engine(graph, device, program.Copy(x, y.reverse(0)))
    for values in ([1.25, -2], [3, 4]):
        engine.writeTensor("x", np.array(values, np.float32))
        engine.run(0)
        assert read_tensor(engine, "y", np.float32, [2]).tolist() == values[::-1]


# --- PrintTensor ----------------------------------------------------------------------------------


def test_print_tensor_formats_like_poplar(graph, device, capsys):
    v1 = mapped_constant(graph, poplar.FLOAT, [4], np.array([1, 1.5, 2, 2.5], np.float32), "v1")
    v3 = mapped_constant(graph, poplar.FLOAT, [2, 2], np.array([[5, 4.5], [4, 3.5]], np.float32), "v3")
    v4 = mapped_constant(graph, poplar.INT, [2, 10], np.arange(20, dtype=np.int32), "v4")
    engine = loaded_engine(graph, device, program.Sequence([
        program.PrintTensor("v1-debug", v1),
        program.PrintTensor("v3", v3),
        program.PrintTensor("v4-0", v4[0]),
        program.PrintTensor("v4-col", v4.transpose()[3]),
    ]))
    engine.run(0)
    assert capsys.readouterr().out == (
        "v1-debug: [1.0000000 1.5000000 2.0000000 2.5000000]\n"
        "v3: [\n  [5.0000000 4.5000000]\n  [4.0000000 3.5000000]\n]\n"
        "v4-0: [0 1 2 3 4 5 6 7 8 9]\n"
        "v4-col: [3 13]\n"
    )


def test_print_tensor_nests_deeper_ranks_two_spaces_per_level(graph, device, capsys):
    t = mapped_constant(graph, poplar.INT, [2, 2, 2], np.arange(8, dtype=np.int32), "t")
    loaded_engine(graph, device, program.PrintTensor("t", t)).run(0)
    assert capsys.readouterr().out == (
        "t: [\n"
        "  [\n    [0 1]\n    [2 3]\n  ]\n"
        "  [\n    [4 5]\n    [6 7]\n  ]\n"
        "]\n"
    )


def test_print_tensor_shows_values_at_that_point_of_the_program(graph, device, capsys):
    x = mapped_variable(graph, poplar.SHORT, [3], "x")
    ramp = mapped_constant(graph, poplar.SHORT, [3], np.array([-3, 0, 3], np.int16), "ramp")
    engine = loaded_engine(graph, device, program.Sequence([
        program.PrintTensor("before", x), program.Copy(ramp, x), program.PrintTensor("after", x)]))
    engine.run(0)
    assert capsys.readouterr().out == "before: [0 0 0]\nafter: [-3 0 3]\n"


def test_print_tensor_summarises_large_tensors(graph, device, capsys):
    big = mapped_constant(graph, poplar.INT, [2000], np.arange(2000, dtype=np.int32), "big")
    loaded_engine(graph, device, program.PrintTensor("big", big)).run(0)
    assert capsys.readouterr().out == "big: [0 1 2 ... 1997 1998 1999]\n"


def test_print_tensor_honours_its_format(graph, device, capsys):
    values = mapped_constant(graph, poplar.FLOAT, [3], np.array([0.5, -2, 1250], np.float32), "values")
    fmt = program.PrintTensorFmt
    engine = loaded_engine(graph, device, program.Sequence([
        program.PrintTensor("fixed", values, fmt(digits=2, floatFormat=fmt.FloatFormat.Fixed)),
        program.PrintTensor("sci", values, fmt(digits=1, floatFormat=fmt.FloatFormat.Scientific)),
        program.PrintTensor("tuple", values, fmt(digits=3, floatFormat=fmt.FloatFormat.Fixed,
                                                 separator=",", openBracket="(", closeBracket=")")),
        program.PrintTensor("short", values, fmt(summariseThreshold=2, edgeItems=1, digits=4)),
    ]))
    engine.run(0)
    assert capsys.readouterr().out == (
        "fixed: [0.50 -2.00 1250.00]\n"
        "sci: [5.0e-01 -2.0e+00 1.2e+03]\n"
        "tuple: (0.500,-2.000,1250.000)\n"
        "short: [0.5000 ... 1250.]\n"
    )


def test_print_tensor_prints_integers_of_every_width_exactly(graph, device, capsys):
    cases = [
        (poplar.LONGLONG, np.int64, "[-9223372036854775808 9223372036854775807]"),
        (poplar.UNSIGNED_LONGLONG, np.uint64, "[0 18446744073709551615]"),
        (poplar.UNSIGNED_INT, np.uint32, "[0 4294967295]"),
        (poplar.CHAR, np.int8, "[-128 127]"),
        (poplar.BOOL, np.bool_, "[0 1]"),
    ]
    prints = []
    for dtype, numpy_type, _ in cases:
        info = np.iinfo(numpy_type) if numpy_type is not np.bool_ else None
        values = np.array([info.min, info.max] if info else [False, True], numpy_type)
        t = mapped_variable(graph, dtype, [2], dtype.toString())
        graph.setInitialValue(t, values)
        prints.append(program.PrintTensor(dtype.toString(), t))
    loaded_engine(graph, device, program.Sequence(prints)).run(0)
    assert capsys.readouterr().out == "".join(f"{d.toString()}: {text}\n" for d, _, text in cases)


def test_untitled_print_tensor_is_titled_with_the_tensor_name(graph, device, capsys):
    x = mapped_constant(graph, poplar.FLOAT, [2], np.array([1, 2], np.float32), "someName")
    fixed = program.PrintTensorFmt(digits=1, floatFormat=program.PrintTensorFmt.FloatFormat.Fixed)
    loaded_engine(graph, device, program.PrintTensor(x, fixed)).run(0)
    title, values = capsys.readouterr().out.split(": ")
    assert "someName" in title and values == "[1.0 2.0]\n"


def test_print_tensor_stream_can_be_redirected(graph, device, capsys):
    x = mapped_constant(graph, poplar.HALF, [2], np.array([0.5, -1], np.float16), "x")
    engine = loaded_engine(graph, device, program.PrintTensor("x", x))
    sink = io.StringIO()
    engine.setPrintTensorStream(sink)
    engine.run(0)
    assert sink.getvalue() == "x: [0.50000000 -1.0000000]\n"
    assert capsys.readouterr().out == ""


def test_print_tensor_stream_that_raises_fails_the_run(graph, device):
    # The error used to escape pybind11's pythonbuf destructor: std::terminate (SIGABRT).
    class BrokenFile:
        def write(self, text):
            raise OSError("disk full")

        def flush(self):
            pass

    x = mapped_constant(graph, poplar.FLOAT, [2], np.array([1, 2], np.float32), "x")
    engine = loaded_engine(graph, device, program.Sequence([program.PrintTensor("x", x)] * 2))
    engine.setPrintTensorStream(BrokenFile())
    with pytest.raises(OSError, match="disk full"):
        engine.run(0)
    sink = io.StringIO()
    engine.setPrintTensorStream(sink)
    engine.run(0)
    assert sink.getvalue() == "x: [1.0000000 2.0000000]\n" * 2


# --- Abort, WriteUndef, Sync ----------------------------------------------------------------------


def test_abort_stops_the_run_with_its_message(graph, device):
    x = mapped_variable(graph, poplar.INT, [1], "x")
    graph.createHostRead("x", x)
    one = mapped_constant(graph, poplar.INT, [1], 1, "one")
    two = mapped_constant(graph, poplar.INT, [1], 2, "two")
    engine = loaded_engine(graph, device, program.Sequence([
        program.Copy(one, x), program.Abort("stopped early"), program.Copy(two, x)]))
    with pytest.raises(poplar.application_runtime_error, match="stopped early") as info:
        engine.run(0)
    assert isinstance(info.value, poplar.runtime_error)
    assert isinstance(info.value, poplar.poplar_error)
    assert read_tensor(engine, "x", np.int32, [1]).tolist() == [1]


def test_abort_without_a_message_still_explains_itself(graph, device):
    engine = loaded_engine(graph, device, [program.Abort(), program.Abort("", "namedAbort")])
    with pytest.raises(poplar.application_runtime_error, match="^Abort program reached$"):
        engine.run(0)
    with pytest.raises(poplar.application_runtime_error, match="namedAbort"):
        engine.run(1)


def test_abort_on_condition_aborts_only_when_the_predicate_is_true(graph, device):
    predicate = mapped_variable(graph, poplar.BOOL, [], "predicate")
    graph.createHostWrite("predicate", predicate)
    main = program.Sequence([program.AbortOnCondition(predicate, "predicate was set"),
                             relay(graph, "after")])
    engine = loaded_engine(graph, device, main)
    received = Received()
    engine.connectStream("after_in", np.array([5], np.int32))
    engine.connectStreamToCallback("after_out", received)
    engine.writeTensor("predicate", np.array(False))
    engine.run(0)
    engine.writeTensor("predicate", np.array(True))
    with pytest.raises(poplar.application_runtime_error, match="predicate was set"):
        engine.run(0)
    assert received.values() == [[5]]


def test_write_undef_and_sync_change_nothing(graph, device):
    x = mapped_variable(graph, poplar.FLOAT, [3], "x")
    values = mapped_constant(graph, poplar.FLOAT, [3], np.array([1, 2, 3], np.float32), "values")
    graph.createHostRead("x", x)
    engine = loaded_engine(graph, device, program.Sequence([
        program.Copy(values, x),
        program.WriteUndef(x),
        program.Sync(poplar.SyncType.INTERNAL),
        program.Sync(poplar.SyncType.GLOBAL),
    ]))
    engine.run(0)
    assert read_tensor(engine, "x", np.float32, [3]).tolist() == [1, 2, 3]


def test_empty_programs(graph, device):
    assert program.Sequence().isEmpty()
    assert program.Sequence([program.Sequence(), program.Program()]).isEmpty()
    assert not program.Sequence([program.Sync(poplar.SyncType.INTERNAL)]).isEmpty()
    loaded_engine(graph, device, program.Sequence()).run(0)


# --- Element types --------------------------------------------------------------------------------


def extremes(numpy_type):
    """A few values of a numpy type including its limits."""
    if numpy_type == np.bool_:
        return np.array([True, False, True], numpy_type)
    if np.issubdtype(numpy_type, np.integer):
        info = np.iinfo(numpy_type)
        return np.array([info.min, info.max, 0, 1, info.max // 3], numpy_type)
    info = np.finfo(numpy_type)
    return np.array([info.min, info.max, info.tiny, info.smallest_subnormal, -0.0, np.inf, 1 / 3],
                    numpy_type)


ALL_TYPES = [poplar.FLOAT, poplar.HALF, poplar.INT, poplar.UNSIGNED_INT, poplar.SHORT,
             poplar.UNSIGNED_SHORT, poplar.CHAR, poplar.UNSIGNED_CHAR, poplar.BOOL, poplar.LONGLONG,
             poplar.UNSIGNED_LONGLONG]


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.toString())
def test_every_type_copies_bit_exactly_through_streams_views_and_handles(graph, device, dtype):
    values = extremes(dtype.numpy_dtype.type)
    n = len(values)
    a = mapped_variable(graph, dtype, [n], "a")
    b = mapped_variable(graph, dtype, [n], "b")
    graph.createHostRead("b", b)
    stream_in = graph.addHostToDeviceFIFO("in", dtype, n)
    stream_out = graph.addDeviceToHostFIFO("out", dtype, n)
    engine = loaded_engine(graph, device, program.Sequence([
        program.Copy(stream_in, a.reverse(0)),
        program.Copy(a, b.reverse(0)),
        program.Copy(b, stream_out),
    ]))
    host_out = np.zeros(n, dtype.numpy_dtype)
    engine.connectStream("in", values)
    engine.connectStream("out", host_out)
    engine.run(0)
    assert host_out.tobytes() == values.tobytes()
    assert read_tensor(engine, "b", dtype.numpy_dtype, [n]).tobytes() == values.tobytes()


def test_half_round_trips_float16_bit_patterns_including_nan(graph, device):
    bits = np.array([0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x7bff, 0xfbff, 0x7c00,
                     0xfc00, 0x7e00, 0x7c01, 0x3555], np.uint16)
    values = bits.view(np.float16)
    x = mapped_variable(graph, poplar.HALF, [len(bits)], "x")
    graph.createHostWrite("x", x)
    graph.createHostRead("x", x)
    engine = loaded_engine(graph, device, program.Sequence())
    engine.writeTensor("x", values)
    assert read_tensor(engine, "x", np.float16, [len(bits)]).view(np.uint16).tolist() == bits.tolist()


def test_half_constants_round_to_nearest_even_like_numpy(graph, device):
    # Halfway cases, overflow to infinity, subnormals and underflow to zero.
    source = np.array([1 + 2**-11, 1 + 3 * 2**-11, 65504, 65519, 65520, -1e6, 2**-24, 2**-25,
                       3 * 2**-26, 0.1, -7.3], np.float32)
    c = mapped_constant(graph, poplar.HALF, [len(source)], source, "c")
    x = mapped_variable(graph, poplar.HALF, [len(source)], "x")
    graph.createHostRead("x", x)
    engine = loaded_engine(graph, device, program.Copy(c, x))
    engine.run(0)
    result = read_tensor(engine, "x", np.float16, [len(source)])
    with np.errstate(over="ignore"):  # the overflow to infinity is intended
        expected = source.astype(np.float16)
    assert result.view(np.uint16).tolist() == expected.view(np.uint16).tolist()


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.toString())
def test_add_constant_with_one_value_per_element_and_with_a_broadcast_scalar(graph, device, dtype):
    per_element = extremes(dtype.numpy_dtype.type)
    scalar = per_element[1]
    n = len(per_element)
    listed = mapped_constant(graph, dtype, [n], per_element, "listed")
    broadcast = mapped_constant(graph, dtype, [2, 3], scalar, "broadcast")
    x = mapped_variable(graph, dtype, [n], "x")
    y = mapped_variable(graph, dtype, [2, 3], "y")
    graph.createHostRead("x", x)
    graph.createHostRead("y", y)
    engine = loaded_engine(graph, device, program.Sequence([program.Copy(listed, x),
                                                            program.Copy(broadcast, y)]))
    engine.run(0)
    assert read_tensor(engine, "x", dtype.numpy_dtype, [n]).tobytes() == per_element.tobytes()
    assert read_tensor(engine, "y", dtype.numpy_dtype, [2, 3]).tobytes() == \
        np.full((2, 3), scalar, dtype.numpy_dtype).tobytes()


@pytest.mark.parametrize("dtype", [poplar.INT, poplar.UNSIGNED_CHAR, poplar.BOOL, poplar.SHORT],
                         ids=lambda t: t.toString())
def test_add_constant_converts_float_values_like_numpy_astype(graph, device, dtype):
    source = np.array([1.9, -1.9, 2.5, 0.0, 100.75]) if dtype != poplar.UNSIGNED_CHAR else \
        np.array([1.9, 0.2, 2.5, 0.0, 200.75])
    c = mapped_constant(graph, dtype, [5], source, "c")
    x = mapped_variable(graph, dtype, [5], "x")
    graph.createHostRead("x", x)
    engine = loaded_engine(graph, device, program.Copy(c, x))
    engine.run(0)
    assert read_tensor(engine, "x", dtype.numpy_dtype, [5]).tolist() == \
        source.astype(dtype.numpy_dtype).tolist()


# --- Loop, Block, ErrorProgram, AssumeEqualAcrossReplicas, dumpProgram -----------------------------


def stop_when_fed(graph, name):
    """A program reading one INT from stream `name` and aborting with "stop" when it is non-zero."""
    flag_in = graph.addHostToDeviceFIFO(name, poplar.INT, 1)
    flag = mapped_variable(graph, poplar.INT, [1], name + "_flag")
    return program.Sequence([program.Copy(flag_in, flag), program.AbortOnCondition(flag, "stop")])


def test_loop_runs_its_body_until_an_abort_inside_it(graph, device):
    body = program.Sequence([relay(graph, "step"), stop_when_fed(graph, "stop")])
    engine = loaded_engine(graph, device, program.Loop(body, "forever"))
    received = Received()
    engine.connectStream("step_in", np.arange(20, 30, dtype=np.int32))
    engine.connectStreamToCallback("step_out", received)
    engine.connectStreamToCallback("stop", Feed([0, 0, 0, 1]))
    with pytest.raises(poplar.application_runtime_error, match="Abort: stop"):
        engine.run(0)
    assert received.values() == [[20], [21], [22], [23]]


def test_a_loop_survives_executable_serialization(graph, device):
    body = program.Sequence([relay(graph, "step"), stop_when_fed(graph, "stop")])
    data = poplar.compileGraph(graph, [program.Loop(body)]).serialize()
    engine = poplar.Engine(poplar.Executable.deserialize(data))
    engine.load(device)
    received = Received()
    engine.connectStream("step_in", np.arange(20, 30, dtype=np.int32))
    # Each callback's buffer described: the sdk backend cannot read it from the executable.
    engine.connectStreamToCallback("step_out", received, (poplar.INT, 1, False))
    engine.connectStreamToCallback("stop", Feed([0, 1]), (poplar.INT, 1, True))
    with pytest.raises(poplar.application_runtime_error, match="Abort: stop"):
        engine.run(0)
    assert received.values() == [[20], [21]]


def test_block_runs_its_program_once_as_written(graph, device):
    engine = loaded_engine(graph, device, program.Block(program.Repeat(2, relay(graph, "step")), "block"))
    received = Received()
    engine.connectStream("step_in", np.array([7, 8], dtype=np.int32))
    engine.connectStreamToCallback("step_out", received)
    engine.run(0)
    assert received.values() == [[7], [8]]
    assert not program.Block(program.Repeat(2, relay(graph, "again"))).isEmpty()


def test_error_program_prints_its_tensor_then_stops_the_run(graph, device, capsys):
    t = mapped_constant(graph, poplar.INT, [3], np.array([4, 5, 6], np.int32), "t")
    engine = loaded_engine(graph, device, program.ErrorProgram("bad state", t))
    with pytest.raises(poplar.application_runtime_error, match="Abort: bad state"):
        engine.run(0)
    assert capsys.readouterr().out == "bad state: [4 5 6]\n"


def test_assume_equal_across_replicas_checks_its_tensor_and_changes_nothing(graph, device):
    x = mapped_variable(graph, poplar.INT, [2], "x")
    graph.setInitialValue(x, np.array([3, 9], np.int32))
    graph.createHostRead("x", x)
    engine = loaded_engine(graph, device, program.Sequence([program.AssumeEqualAcrossReplicas(x, "same")]))
    engine.run(0)
    assert read_tensor(engine, "x", np.int32, [2]).tolist() == [3, 9]
    with pytest.raises(poplar.poplar_error, match="not valid"):
        program.AssumeEqualAcrossReplicas(poplar.Tensor())


def test_dump_program_writes_the_tree_with_names_and_operands(graph):
    x = mapped_variable(graph, poplar.INT, [2], "x")
    cs = graph.addComputeSet("work")
    prog = program.Sequence([program.Repeat(3, program.Execute(cs, "run")),
                             program.Loop(program.WriteUndef(x, "undef"), "spin")], "main")
    assert program.dumpProgram(graph, prog) == (
        "Sequence 'main'\n"
        "  Repeat x3\n"
        "    Execute 'run' compute set 0 'work'\n"
        "  Loop 'spin'\n"
        "    WriteUndef 'undef' 'x' [2] int\n"
    )


# Copies that step across memory along one side's rows (transposes, column slices) go in
# tiles of rows and columns, over the pool when large: every shape, element size and layout
# must land each element where numpy puts it.
TILED_COPY_DTYPES = [(pd.uint8, np.uint8), (pd.float16, np.float16), (pd.float32, np.float32),
                     (pd.int64, np.int64)]


@pytest.mark.parametrize("rows, cols", [(16, 16), (40, 33), (17, 300), (1024, 260)])
@pytest.mark.parametrize("dsl_type, numpy_type", TILED_COPY_DTYPES)
def test_transposing_copies_match_numpy(rows, cols, dsl_type, numpy_type):
    values = (np.arange(rows * cols) % 251).astype(numpy_type).reshape(rows, cols)
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    src = g.variable(dsl_type, (rows, cols), name="src")
    gathered = g.variable(dsl_type, (cols, rows), name="gathered")    # strided reads
    scattered = g.variable(dsl_type, (cols, rows), name="scattered")  # strided writes
    both = g.variable(dsl_type, (cols // 2, rows + 3), name="both")   # strided on both sides
    with pd.Sequence("main") as main:
        pd.copy(src.T, gathered)
        pd.copy(src, scattered.T)
        pd.zero(both)
        pd.copy(src[:, 1::2][:, :cols // 2].T, both[:, 3:])
    with pd.Session(g, {"main": main}, device=dev) as s:
        s.write(src, values)
        s.run("main")
        assert np.array_equal(s.read(gathered), values.T)
        assert np.array_equal(s.read(scattered), values.T)
        expected = np.zeros((cols // 2, rows + 3), numpy_type)
        expected[:, 3:] = values[:, 1::2][:, :cols // 2].T
        assert np.array_equal(s.read(both), expected)


@pytest.mark.parametrize("rows, cols", [(24, 20), (64, 72), (300, 37)])
@pytest.mark.parametrize("dsl_type, numpy_type, nan_bits", [(pd.uint32, np.uint32, 0x7F800001),
                                                            (pd.uint16, np.uint16, 0x7C01)])
def test_transposes_of_joined_variables_keep_every_bit(rows, cols, dsl_type, numpy_type, nan_bits):
    # 2- and 4-byte transposes move 8x8 blocks through registers where 8 rows of one side lie
    # an element apart; joined variables break that within some blocks (the pieces' edges fall
    # inside them) and join rows of two variables in one segment list (pd.concat on axis 0).
    # Float NaN bit patterns (float32's, float16's) show that no element goes through arithmetic.
    values = [((np.arange(rows * cols, dtype=np.uint64) * 2654435761 + n) % (1 << (8 * np.dtype(numpy_type).itemsize))
               ).astype(numpy_type).reshape(rows, cols) | numpy_type(nan_bits) for n in range(2)]
    split = cols // 3
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    left = g.variable(dsl_type, (rows, split), name="left")
    right = g.variable(dsl_type, (rows, cols - split), name="right")
    top = g.variable(dsl_type, (rows, cols), name="top")
    bottom = g.variable(dsl_type, (rows, cols), name="bottom")
    side_by_side = g.variable(dsl_type, (cols, rows), name="sideBySide")
    stacked = g.variable(dsl_type, (cols, 2 * rows), name="stacked")
    scattered = g.variable(dsl_type, (rows, cols), name="scattered")
    with pd.Sequence("main") as main:
        pd.copy(pd.concat([left, right], axis=1).T, side_by_side)
        pd.copy(pd.concat([top, bottom], axis=0).T, stacked)
        pd.copy(side_by_side, pd.concat([left, right], axis=1).T)  # back again: a scatter
        pd.copy(side_by_side.T, scattered)
    with pd.Session(g, {"main": main}, device=dev) as s:
        s.write(left, values[0][:, :split])
        s.write(right, values[0][:, split:])
        s.write(top, values[0])
        s.write(bottom, values[1])
        s.run("main")
        assert np.array_equal(s.read(side_by_side), values[0].T)
        assert np.array_equal(s.read(stacked), np.concatenate(values, axis=0).T)
        assert np.array_equal(s.read(left), values[0][:, :split])
        assert np.array_equal(s.read(right), values[0][:, split:])
        assert np.array_equal(s.read(scattered), values[0])
