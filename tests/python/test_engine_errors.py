"""Every misuse of programs and engines raises Poplar's exception class with a message
that names the problem (and the tensor, stream or handle involved)."""
import json

import re

import numpy as np
import pytest

from popdsl import poplar, popops, program


@pytest.fixture(autouse=True)
def no_engine_options_from_the_environment(monkeypatch):
    monkeypatch.delenv("POPLAR_ENGINE_OPTIONS", raising=False)


def mapped_variable(graph, dtype, shape, name):
    tensor = graph.addVariable(dtype, shape, name)
    graph.setTileMapping(tensor, 0)
    return tensor


def oversized_graph(device):
    """A graph whose one variable needs more memory than a tile has."""
    graph = poplar.Graph(device.getTarget())
    floats_per_tile = device.getTarget().getBytesPerTile() // 4
    big = mapped_variable(graph, poplar.FLOAT, [floats_per_tile + 1], "big")
    return graph, program.WriteUndef(big)


# --- Engine construction --------------------------------------------------------------------------


@pytest.mark.parametrize("programs", [[program.Sequence(), "run me"], 3])
def test_engine_needs_programs(graph, programs):
    with pytest.raises(TypeError, match="programs must be a program::Program or a list of them"):
        poplar.Engine(graph, programs)


def test_unmapped_variable_is_named_at_engine_construction(graph):
    mapped = mapped_variable(graph, poplar.FLOAT, [4], "mapped")
    partly = graph.addVariable(poplar.FLOAT, [2, 3], "partlyMapped")
    graph.setTileMapping(partly[0], 1)
    with pytest.raises(poplar.invalid_tile_mapping, match="'partlyMapped'.*3 of 6 elements"):
        poplar.Engine(graph, program.Copy(mapped.slice(0, 3), partly[1]))


def test_unmapped_constant_is_named_too(graph):
    constant = graph.addConstant(poplar.INT, [2], 5, "five")
    target = mapped_variable(graph, poplar.INT, [2], "target")
    with pytest.raises(poplar.invalid_tile_mapping, match="Constant 'five'"):
        poplar.Engine(graph, program.Copy(constant, target))


def test_strict_memory_rejects_a_variable_too_big_for_its_tile(device):
    graph, prog = oversized_graph(device)
    with pytest.raises(poplar.graph_memory_allocation_error) as info:
        poplar.Engine(graph, prog, {"debug.allowOutOfMemory": "false"})
    assert str(info.value).startswith("Out of memory")
    assert "tile 0" in str(info.value)


@pytest.mark.needs_emulator("profile data (Engine.getProfileData)")
def test_default_memory_accounting_accepts_an_over_full_tile(device):
    graph, prog = oversized_graph(device)
    engine = poplar.Engine(graph, prog)
    engine.load(device)
    engine.run(0)
    profile = engine.getProfileData()
    assert profile["runs"] == 1
    assert profile["variable_bytes_per_tile"][0] == device.getTarget().getBytesPerTile() + 4


@pytest.mark.needs_emulator("profile data (Engine.getProfileData)")
def test_strict_memory_accepts_a_tile_filled_exactly(device):
    graph = poplar.Graph(device.getTarget())
    bytes_per_tile = device.getTarget().getBytesPerTile()
    full = mapped_variable(graph, poplar.FLOAT, [bytes_per_tile // 4], "full")  # on tile 0, as oversized_graph's
    engine = poplar.Engine(graph, program.WriteUndef(full), {"debug.allowOutOfMemory": False})
    assert engine.getProfileData()["variable_bytes_per_tile"][0] == bytes_per_tile


def test_unknown_option_key_is_rejected(graph):
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'debug.allowOutOfMemroy'"):
        poplar.Engine(graph, program.Sequence(), {"debug.allowOutOfMemroy": "true"})


@pytest.mark.parametrize("value", ["yes", "1", "True", ""])
def test_boolean_options_take_only_true_or_false(graph, value):
    with pytest.raises(poplar.invalid_option, match=f"Invalid value '{value}'.*'debug.instrument'"):
        poplar.Engine(graph, program.Sequence(), {"debug.instrument": value})


def test_python_booleans_and_numbers_become_option_strings(graph):
    options = {"debug.instrument": True, "autoReport.all": False, "prng.seed": 7}
    engine = poplar.Engine(graph, program.Sequence(), options)
    assert engine.getEngineOptions() == {"debug.instrument": "true", "autoReport.all": "false",
                                         "prng.seed": "7"}


@pytest.mark.parametrize("env_options", [
    {"debug.allowOutOfMemory": "false"},
    {"debug": {"allowOutOfMemory": False}},
])
def test_environment_options_override_the_code(device, monkeypatch, env_options):
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", json.dumps(env_options))
    graph, prog = oversized_graph(device)
    with pytest.raises(poplar.graph_memory_allocation_error, match="Out of memory"):
        poplar.Engine(graph, prog, {"debug.allowOutOfMemory": "true"})


def test_environment_options_show_in_the_engine_options(graph, monkeypatch):
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", '{"target": {"hostSyncTimeout": 30}}')
    engine = poplar.Engine(graph, program.Sequence(), {"prng.seed": "1"})
    assert engine.getEngineOptions() == {"prng.seed": "1", "target.hostSyncTimeout": "30"}


def test_unknown_key_in_the_environment_is_rejected(graph, monkeypatch):
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", '{"no": {"such": "option"}}')
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'no.such'"):
        poplar.Engine(graph, program.Sequence())


def test_malformed_environment_json_is_a_parse_error(graph, monkeypatch):
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", '{"debug.trace": ')
    with pytest.raises(poplar.parse_error, match="the environment variable POPLAR_ENGINE_OPTIONS is not valid "
                                                 "option JSON: Invalid JSON options"):
        poplar.Engine(graph, program.Sequence())


def test_writing_into_a_constant_does_not_compile(graph):
    constant = graph.addConstant(poplar.INT, [3], 1, "one")
    graph.setTileMapping(constant, 0)
    source = mapped_variable(graph, poplar.INT, [3], "source")
    with pytest.raises(poplar.graph_program_compilation_error, match="'one'.*is a constant"):
        poplar.Engine(graph, program.Copy(source, constant))
    stream = graph.addHostToDeviceFIFO("in", poplar.INT, 1)
    with pytest.raises(poplar.graph_program_compilation_error, match="is a constant"):
        poplar.Engine(graph, program.Copy(stream, constant[2]))


def test_host_write_into_a_constant_does_not_compile(graph):
    constant = graph.addConstant(poplar.INT, [3], 1, "one")
    graph.setTileMapping(constant, 0)
    graph.createHostWrite("one", constant)
    with pytest.raises(poplar.graph_program_compilation_error, match="Host write 'one'.*is a constant"):
        poplar.Engine(graph, program.Sequence())


def test_writing_into_a_broadcast_view_does_not_compile(graph):
    x = mapped_variable(graph, poplar.INT, [1], "x")
    source = mapped_variable(graph, poplar.INT, [3], "source")
    with pytest.raises(poplar.graph_program_compilation_error, match="'x'.*aliased elements"):
        poplar.Engine(graph, program.Copy(source, x.broadcast(3, 0)))


def test_tensors_from_another_graph_do_not_compile(graph, device):
    other = poplar.Graph(device.getTarget())
    foreign = mapped_variable(other, poplar.INT, [1], "foreign")
    with pytest.raises(poplar.graph_program_compilation_error, match="'foreign'.*different graph"):
        poplar.Engine(graph, program.WriteUndef(foreign))


def graph_pair(device):
    """Two graphs, made one after the other (so numbered n and n + 1), each with a compute
    set, function, host function and streams of the same ids and handles: an element
    taken by its id alone would silently be the other graph's."""
    graphs = []
    for name in ("ours", "theirs"):
        g = poplar.Graph(device.getTarget())
        elements = {
            "tensor": mapped_variable(g, poplar.INT, [1], f"{name} x"),
            "compute set": g.addComputeSet(f"{name} cs"),
            "function": g.addFunction(program.Sequence([], f"{name} body")),
            "host function": g.addHostFunction("report", [], []),
            "to device": g.addHostToDeviceFIFO("in", poplar.INT, 1),
            "to host": g.addDeviceToHostFIFO("out", poplar.INT, 1),
        }
        graphs.append((g, elements))
    return graphs


def using(element, theirs, our_x):
    """A program of ours that uses one of their elements."""
    return {
        "compute set": lambda: program.Execute(theirs["compute set"], "step"),
        "function": lambda: program.Call(theirs["function"], "call"),
        "host function": lambda: program.Call(theirs["host function"], [], [], "call"),
        "to device": lambda: program.Copy(theirs["to device"], our_x, False, "copy"),
        "to host": lambda: program.Copy(our_x, theirs["to host"], False, "copy"),
    }[element]()


@pytest.mark.needs_emulator("which graph compute sets, functions, host functions and streams belong to")
@pytest.mark.parametrize("element, described", [
    ("compute set", r"Execute 'step': compute set 0 'theirs cs'"),
    ("function", r"Call 'call': function 0 'theirs body'"),
    ("host function", r"Call\(host function\) 'call': host function 'report'"),
    ("to device", r"StreamCopy\(host to device\) 'copy': stream 'in'"),
    ("to host", r"StreamCopy\(device to host\) 'copy': stream 'out'"),
])
def test_programs_using_another_graphs_elements_do_not_compile(device, element, described):
    (ours, our_elements), (_, their_elements) = graph_pair(device)
    prog = using(element, their_elements, our_elements["tensor"])
    for compile_it in (lambda: poplar.compileGraph(ours, [prog]), lambda: poplar.Engine(ours, prog)):
        with pytest.raises(poplar.graph_program_compilation_error) as caught:
            compile_it()
        found = re.fullmatch(described + r" belongs to a different graph \(graph #(\d+)\) than graph #(\d+), "
                             r"the graph being compiled", str(caught.value))
        assert found, str(caught.value)
        assert int(found[1]) == int(found[2]) + 1  # theirs, made after ours
    # Their own engine takes the element (and ours takes ours).
    poplar.Engine(ours, using(element, our_elements, our_elements["tensor"]))


@pytest.mark.needs_emulator("which graph compute sets, functions, host functions and streams belong to")
def test_functions_called_from_a_program_are_checked_too(device):
    (ours, our_elements), (_, their_elements) = graph_pair(device)
    helper = ours.addFunction(program.Sequence([program.WriteUndef(their_elements["tensor"], "forget")]))
    with pytest.raises(poplar.graph_program_compilation_error,
                       match=r"WriteUndef 'forget': tensor 'theirs x' \[1\] int belongs to a different graph "
                             r"\(graph #\d+\)"):
        poplar.Engine(ours, program.Sequence([program.Call(helper)]))


@pytest.mark.needs_emulator("which graph compute sets belong to")
def test_a_compute_set_of_a_graph_that_is_gone_does_not_compile(device):
    ours = poplar.Graph(device.getTarget())
    ours.addComputeSet("ours")
    gone = poplar.Graph(device.getTarget())
    orphan = gone.addComputeSet("orphan")
    del gone
    with pytest.raises(poplar.graph_program_compilation_error,
                       match=r"compute set 0 belongs to a graph that no longer exists, not to graph #\d+"):
        poplar.Engine(ours, program.Execute(orphan))


@pytest.mark.needs_emulator("which graph compute sets belong to")
def test_adding_to_another_graphs_compute_set_is_an_error(device):
    (ours, our_elements), (_, their_elements) = graph_pair(device)
    popops.addCodelets(ours)
    with pytest.raises(poplar.poplar_error, match=r"compute set 0 'theirs cs' belongs to a different graph "
                                                  r"\(graph #\d+\) than graph #\d+"):
        popops.zero(ours, our_elements["tensor"], 0, their_elements["compute set"])


def test_a_compute_set_made_from_its_id_is_taken_by_id(graph, device):
    popops.addCodelets(graph)
    x = mapped_variable(graph, poplar.INT, [1], "x")
    graph.setInitialValue(x, np.array([5], np.int32))
    cs = graph.addComputeSet("zero x")
    popops.zero(graph, x, 0, cs)
    graph.createHostRead("x", x)
    engine = poplar.Engine(graph, program.Execute(poplar.ComputeSet(cs.getId())))
    engine.load(device)
    engine.run(0)
    out = np.ones(1, np.int32)
    engine.readTensor("x", out)
    assert out.tolist() == [0]


# --- Loading and running --------------------------------------------------------------------------


def test_run_before_load(graph):
    engine = poplar.Engine(graph, program.Sequence())
    with pytest.raises(poplar.poplar_error, match="not loaded"):
        engine.run(0)


@pytest.mark.parametrize("index", [2, 100])
def test_run_with_a_program_index_out_of_range(graph, device, index):
    engine = poplar.Engine(graph, [program.Sequence(), program.Sequence()])
    engine.load(device)
    with pytest.raises(poplar.index_error, match=f"program index {index} is out of range.*2 program"):
        engine.run(index)


def test_loading_on_a_device_with_another_target(graph):
    engine = poplar.Engine(graph, program.Sequence())
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 8
    with pytest.raises(poplar.poplar_error, match="8 tiles.*differs.*4 tiles"):
        engine.load(model.createDevice())
    ipu1 = poplar.IPUModel("ipu1")
    ipu1.tilesPerIPU = 4
    with pytest.raises(poplar.poplar_error, match="ipu1.*differs.*ipu2"):
        engine.load(ipu1.createDevice())


# --- Host handles ---------------------------------------------------------------------------------


@pytest.fixture
def handle_engine(graph, device):
    """An engine with a host write 'w' and a host read 'r' of a FLOAT [2, 3] variable."""
    x = mapped_variable(graph, poplar.FLOAT, [2, 3], "x")
    graph.createHostWrite("w", x)
    graph.createHostRead("r", x)
    engine = poplar.Engine(graph, program.Sequence())
    engine.load(device)
    return engine


def test_unknown_host_handles_are_named_with_the_known_ones(handle_engine):
    with pytest.raises(poplar.poplar_error, match="writeTensor: no handle 'r' \\(known: w\\)"):
        handle_engine.writeTensor("r", np.zeros((2, 3), np.float32))
    with pytest.raises(poplar.poplar_error, match="readTensor: no handle 'nope' \\(known: r\\)"):
        handle_engine.readTensor("nope", np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("buffer", [np.zeros(5, np.float32), np.zeros((2, 4), np.float32), np.zeros(0, np.float32)])
def test_host_buffers_of_the_wrong_size_are_rejected(handle_engine, buffer):
    expected = f"holds {buffer.nbytes} bytes but the tensor needs 24 \\(6 x float\\)"
    with pytest.raises(poplar.poplar_error, match=expected):
        handle_engine.writeTensor("w", buffer)
    with pytest.raises(poplar.poplar_error, match=expected):
        handle_engine.readTensor("r", buffer)


def test_host_buffers_must_be_c_contiguous_numpy_arrays(handle_engine):
    with pytest.raises(ValueError, match="writeTensor: the array must be C-contiguous"):
        handle_engine.writeTensor("w", np.zeros((3, 2), np.float32).T)
    with pytest.raises(ValueError, match="readTensor: the array must be C-contiguous"):
        handle_engine.readTensor("r", np.zeros((2, 6), np.float32)[:, ::2])
    with pytest.raises(TypeError, match="expected a numpy array, got <class 'list'>"):
        handle_engine.writeTensor("w", [0.0] * 6)


@pytest.mark.parametrize("dtype", [object, "U1", "S4", "V4", "datetime64[s]", complex])
def test_host_buffers_of_non_numeric_dtypes_are_refused(handle_engine, dtype):
    # An object array read into would have device bytes written over its object pointers.
    buffer = np.zeros(24 // max(np.dtype(dtype).itemsize, 1) if np.dtype(dtype) != object else 6, dtype)
    for call in (lambda: handle_engine.readTensor("r", buffer), lambda: handle_engine.writeTensor("w", buffer),
                 lambda: handle_engine.connectStream("w", buffer)):
        with pytest.raises(TypeError, match=rf"the array's dtype {re.escape(str(np.dtype(dtype)))} holds no "
                                            "device element type"):
            call()


def test_read_into_a_read_only_array_is_rejected(handle_engine):
    frozen = np.zeros((2, 3), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="readTensor: the array is read-only"):
        handle_engine.readTensor("r", frozen)


def test_host_handles_need_a_loaded_engine(graph):
    x = mapped_variable(graph, poplar.INT, [1], "x")
    graph.createHostWrite("x", x)
    engine = poplar.Engine(graph, program.Sequence())
    with pytest.raises(poplar.poplar_error, match="writeTensor: the engine is not loaded"):
        engine.writeTensor("x", np.zeros(1, np.int32))


# --- Streams --------------------------------------------------------------------------------------


@pytest.fixture
def stream_engine(graph, device):
    """An engine whose program 0 reads 3 INTs from 'in' and program 1 sends them to 'out'."""
    x = mapped_variable(graph, poplar.INT, [3], "x")
    data_in = graph.addHostToDeviceFIFO("in", poplar.INT, 3)
    data_out = graph.addDeviceToHostFIFO("out", poplar.INT, 3)
    engine = poplar.Engine(graph, [program.Copy(data_in, x), program.Copy(x, data_out)])
    engine.load(device)
    return engine


def test_connecting_an_unknown_stream_names_the_streams(stream_engine):
    with pytest.raises(poplar.stream_connection_error, match="no stream with handle 'inn' \\(streams: in, out\\)"):
        stream_engine.connectStream("inn", np.zeros(3, np.int32))
    with pytest.raises(poplar.stream_connection_error, match="no stream with handle 'outt'"):
        stream_engine.connectStreamToCallback("outt", lambda array: None)


def test_stream_buffers_must_hold_whole_elements(stream_engine):
    with pytest.raises(poplar.stream_connection_error, match="whole number of int elements \\(got 0 bytes\\)"):
        stream_engine.connectStream("in", np.zeros(0, np.int32))


@pytest.mark.needs_emulator("the element types of host handles (the SDK's Engine does not give them)")
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint32, np.float16])
def test_host_buffers_must_have_the_handles_dtype(handle_engine, dtype):
    buffer = np.zeros(24 // np.dtype(dtype).itemsize, dtype)  # the right size in bytes, the wrong type
    for call, what, handle in ((handle_engine.readTensor, "readTensor", "r"),
                               (handle_engine.writeTensor, "writeTensor", "w")):
        with pytest.raises(TypeError, match=rf"{what}: handle '{handle}' holds float \(numpy float32\); the "
                                            rf"array's dtype is {np.dtype(dtype)}"):
            call(handle, buffer)


def test_stream_buffers_must_have_the_streams_dtype(stream_engine):
    with pytest.raises(TypeError, match=r"connectStream: handle 'in' holds int \(numpy int32\); the array's "
                                        r"dtype is uint8"):
        stream_engine.connectStream("in", np.zeros(8, np.uint8))


def test_stream_buffers_must_be_writeable_contiguous_arrays(stream_engine):
    frozen = np.zeros(3, np.int32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="connectStream: the array is read-only"):
        stream_engine.connectStream("out", frozen)
    with pytest.raises(ValueError, match="connectStream: the array must be C-contiguous"):
        stream_engine.connectStream("out", np.zeros(6, np.int32)[::2])


@pytest.mark.parametrize("index, handle", [(0, "in"), (1, "out")])
def test_running_with_an_unconnected_stream_names_it(stream_engine, index, handle):
    with pytest.raises(poplar.stream_connection_error, match=f"Stream '{handle}' is not connected"):
        stream_engine.run(index)


@pytest.mark.parametrize("reconnect", [
    lambda engine: engine.connectStream("in", np.zeros(3, np.int32)),
    lambda engine: engine.connectStreamToCallback("in", lambda array: None),
    lambda engine: engine.connectStreamToCallback("out", lambda array: None),
], ids=["buffer", "same-stream-callback", "other-stream-callback"])
def test_streams_cannot_be_connected_from_a_stream_callback(stream_engine, reconnect):
    # Reconnecting destroyed the callback object that was running: SIGSEGV.
    def connect_while_running(array):
        reconnect(stream_engine)

    stream_engine.connectStreamToCallback("in", connect_while_running)
    with pytest.raises(poplar.stream_connection_error, match="the engine is running; connect streams .* between runs"):
        stream_engine.run(0)
    stream_engine.connectStream("in", np.array([4, 5, 6], np.int32))  # between runs it works
    stream_engine.run(0)


class CallbackFailure(Exception):
    pass


def fail(array):
    raise CallbackFailure(f"refused {array.size} elements")


@pytest.mark.parametrize("index, handle", [(0, "in"), (1, "out")])
def test_exceptions_in_stream_callbacks_propagate_unchanged(stream_engine, index, handle):
    stream_engine.connectStreamToCallback(handle, fail)
    with pytest.raises(CallbackFailure, match="refused 3 elements"):
        stream_engine.run(index)
    # The engine and the interpreter carry on: the same stream works once reconnected.
    received = []
    stream_engine.connectStream("in", np.array([1, 2, 3], np.int32))
    stream_engine.connectStreamToCallback("out", lambda array: received.append(array.tolist()))
    stream_engine.run(0)
    stream_engine.run(1)
    assert received == [[1, 2, 3]]


def test_run_from_inside_a_stream_callback_is_refused(stream_engine):
    stream_engine.connectStream("in", np.array([4, 5, 6], np.int32))
    stream_engine.connectStreamToCallback("out", lambda array: stream_engine.run(0))
    with pytest.raises(poplar.poplar_error, match="already running"):
        stream_engine.run(1)
    stream_engine.run(0)  # the refused nested run left the engine usable


def test_callback_data_of_the_wrong_size_is_rejected(stream_engine):
    stream_engine.connectStreamToCallback("in", lambda array: [1, 2])
    with pytest.raises(ValueError, match="could not broadcast"):
        stream_engine.run(0)


# --- Program construction -------------------------------------------------------------------------


def test_copy_between_different_element_types(graph):
    floats = mapped_variable(graph, poplar.FLOAT, [3], "floats")
    ints = mapped_variable(graph, poplar.INT, [3], "ints")
    with pytest.raises(poplar.poplar_error, match="'floats'.*'ints'.*different element types"):
        program.Copy(floats, ints)


def test_copy_between_different_element_counts(graph):
    small = mapped_variable(graph, poplar.INT, [2, 2], "small")
    large = mapped_variable(graph, poplar.INT, [5], "large")
    with pytest.raises(poplar.poplar_error, match="'small'.* has 4 elements but destination 'large'.* has 5"):
        program.Copy(small, large)


def test_copy_between_graphs(graph, device):
    other = poplar.Graph(device.getTarget())
    here = mapped_variable(graph, poplar.INT, [2], "here")
    there = mapped_variable(other, poplar.INT, [2], "there")
    with pytest.raises(poplar.poplar_error, match="different graphs"):
        program.Copy(here, there)


def test_stream_copies_must_match_the_stream(graph):
    x = mapped_variable(graph, poplar.INT, [4], "x")
    floats = mapped_variable(graph, poplar.FLOAT, [3], "floats")
    data_in = graph.addHostToDeviceFIFO("in", poplar.INT, 3)
    data_out = graph.addDeviceToHostFIFO("out", poplar.INT, 3)
    with pytest.raises(poplar.stream_connection_error, match="'in' carries 3 elements.*'x'.* has 4"):
        program.Copy(data_in, x)
    with pytest.raises(poplar.stream_connection_error, match="'out' carries 3 elements.*'x'.* has 4"):
        program.Copy(x, data_out)
    with pytest.raises(poplar.stream_connection_error, match="'in' carries int elements.*'floats'.*holds float"):
        program.Copy(data_in, floats)
    with pytest.raises(poplar.stream_connection_error, match="'in' is host-to-device"):
        program.Copy(x.slice(0, 3), data_in)
    with pytest.raises(poplar.stream_connection_error, match="'out' is device-to-host"):
        program.Copy(data_out, x.slice(0, 3))


def test_duplicate_stream_handles_are_rejected(graph):
    graph.addHostToDeviceFIFO("data", poplar.INT, 1)
    with pytest.raises(poplar.stream_connection_error, match="'data' already exists"):
        graph.addDeviceToHostFIFO("data", poplar.INT, 1)


CONTROL_PROGRAMS = {
    "If": lambda t: program.If(t, program.Sequence(), program.Sequence()),
    "RepeatWhileTrue": lambda t: program.RepeatWhileTrue(program.Sequence(), t, program.Sequence()),
    "RepeatWhileFalse": lambda t: program.RepeatWhileFalse(program.Sequence(), t, program.Sequence()),
    "Switch": lambda t: program.Switch(t, [(0, program.Sequence())]),
    "AbortOnCondition": lambda t: program.AbortOnCondition(t),
}


@pytest.mark.parametrize("name", sorted(CONTROL_PROGRAMS))
def test_control_programs_need_a_one_element_predicate(graph, name):
    pair = mapped_variable(graph, poplar.INT, [2], "pair")
    with pytest.raises(poplar.control_program_error, match=f"{name}: .*exactly one element.*'pair'.* has 2"):
        CONTROL_PROGRAMS[name](pair)


@pytest.mark.parametrize("name", sorted(CONTROL_PROGRAMS))
@pytest.mark.parametrize("dtype", [poplar.FLOAT, poplar.HALF], ids=str)
def test_control_programs_need_an_integer_or_boolean_predicate(graph, name, dtype):
    real = mapped_variable(graph, dtype, [1], "real")
    with pytest.raises(poplar.control_program_error, match=f"{name}: .*'real'.*boolean or integer type"):
        CONTROL_PROGRAMS[name](real)


def test_switch_cases_must_be_distinct(graph):
    control = mapped_variable(graph, poplar.INT, [], "control")
    switch = program.Switch(control, [(4, program.Sequence())])
    with pytest.raises(poplar.control_program_error, match="case 4 is already defined"):
        switch.add(4, program.Sequence())
    with pytest.raises(poplar.control_program_error, match="case 1 is already defined"):
        program.Switch(control, [(1, program.Sequence()), (1, program.Sequence())])
