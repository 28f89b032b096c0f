"""Function buffers (SDK 3.3): Graph.addFunctionBuffer keeps a function's code in remote
memory and program.Copy(buffer, function) loads it onto the tiles. The emulator makes
calling the function before a load an error naming it; a load lasts until the engine is
loaded again, costs the transfer of the function's code, and survives serialization."""
import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, popops, poputil, program
from popdsl.popops import expr as pe

pytestmark = pytest.mark.needs_emulator("function code loading is modelled by the emulator")

TILES = 4


def counter_graph():
    """A graph with a counter x and a function `bump` adding 1 to it, given a buffer."""
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = TILES
    device = model.createDevice()
    g = poplar.Graph(device.getTarget())
    popops.addCodelets(g)
    x = g.addVariable(poplar.FLOAT, [4], "x")
    poputil.mapTensorLinearly(g, x)
    g.setInitialValue(x, np.zeros(4, np.float32))
    g.createHostRead("x", x)
    body = program.Sequence([], "bump")
    popops.mapInPlace(g, pe._1 + 1, [x], body, "increment")
    bump = g.addFunction(body)
    buffer = g.addFunctionBuffer(bump, poplar.FunctionBufferMappingType.REMOTE)
    return device, g, bump, buffer


def counter(engine):
    return engine.readTensor("x", np.empty(4, np.float32))


def test_a_loaded_function_runs_and_stays_loaded_for_later_runs():
    device, g, bump, buffer = counter_graph()
    load_and_call = program.Sequence([program.Copy(buffer, bump, "load"), program.Call(bump), program.Call(bump)])
    call_again = program.Sequence([program.Call(bump, "again")])
    engine = poplar.Engine(g, [load_and_call, call_again])
    engine.load(device)
    engine.run(0)
    np.testing.assert_array_equal(counter(engine), np.full(4, 2.0))
    engine.run(1)
    np.testing.assert_array_equal(counter(engine), np.full(4, 3.0))


def test_calling_before_a_load_is_an_error_naming_the_function_and_loading_the_engine_unloads_it():
    device, g, bump, buffer = counter_graph()
    call = program.Sequence([program.Call(bump, "early")])
    engine = poplar.Engine(g, [call, program.Sequence([program.Copy(buffer, bump)])])
    engine.load(device)
    message = (r"Call 'early': the code of function 0 'bump' is in a function buffer and has not been loaded onto "
               r"the tiles: add a program::Copy\(functionBuffer, function\) that runs before the Call")
    with pytest.raises(poplar.poplar_error, match=message):
        engine.run(0)
    engine.run(1)
    engine.run(0)
    np.testing.assert_array_equal(counter(engine), np.full(4, 1.0))
    engine.load(device)  # tile memory starts afresh: the code is back in its buffer only
    with pytest.raises(poplar.poplar_error, match="has not been loaded onto the tiles"):
        engine.run(0)


def test_a_function_without_a_buffer_needs_no_load():
    device, g, bump, _ = counter_graph()
    other = g.addFunction(program.Sequence([program.Call(bump)]))
    engine = poplar.Engine(g, program.Sequence([program.Call(other)]))
    engine.load(device)
    # `other` has no buffer; the `bump` it calls does, and is not loaded.
    with pytest.raises(poplar.poplar_error, match="function 0 'bump' is in a function buffer"):
        engine.run(0)


def test_the_load_costs_a_transfer_of_the_functions_code():
    device, g, bump, buffer = counter_graph()
    engine = poplar.Engine(g, program.Sequence([program.Copy(buffer, bump, "load"), program.Call(bump)]))
    engine.load(device)
    engine.run(0)
    load, = [s for s in engine.getProfileData()["steps"] if s["kind"] == "Copy(function code)"]
    # bump's body compiles to 2 instructions (its compute set and the return): 64 bytes each
    # on each of the 4 tiles, 512 bytes at 8 bytes per cycle after the host sync (docs/emulator.rst).
    assert (load["name"], load["executions"]) == ("load", 1)
    assert (load["sync_cycles"], load["exchange_cycles"], load["exchange_bytes"]) == (1000, 64, 512)


def test_a_serialized_executable_keeps_its_function_buffers():
    device, g, bump, buffer = counter_graph()
    exe = poplar.compileGraph(g, [program.Sequence([program.Call(bump)]),
                                  program.Sequence([program.Copy(buffer, bump), program.Call(bump)])])
    engine = poplar.Engine(poplar.Executable.deserialize(exe.serialize()))
    engine.load(device)
    with pytest.raises(poplar.poplar_error, match="has not been loaded onto the tiles"):
        engine.run(0)
    engine.run(1)
    engine.run(0)
    np.testing.assert_array_equal(counter(engine), np.full(4, 2.0))


def test_misuse_names_the_problem():
    device, g, bump, buffer = counter_graph()
    other = g.addFunction(program.Sequence())
    with pytest.raises(poplar.poplar_error, match="Copy: function buffer 0 holds the code of function 0, not of "
                                                  "function 1"):
        program.Copy(buffer, other)
    with pytest.raises(poplar.graph_object_creation_error, match="Graph::addFunctionBuffer: function 7 is not a "
                                                                 "function of this graph"):
        g.addFunctionBuffer(poplar.Function(7), poplar.FunctionBufferMappingType.REMOTE)
    with pytest.raises(ValueError, match="1 is not a valid FunctionBufferMappingType"):
        poplar.FunctionBufferMappingType(1)
    # Made from bare ids, the mismatch is found when the engine compiles.
    with pytest.raises(poplar.graph_program_compilation_error,
                       match=r"Copy\(function code\): function buffer 0 holds the code of function 0 'bump', not of "
                             "function 1"):
        poplar.Engine(g, program.Copy(poplar.FunctionBuffer(0), poplar.Function(1)))
    with pytest.raises(poplar.graph_program_compilation_error, match="unknown function buffer id 5"):
        poplar.Engine(g, program.Copy(poplar.FunctionBuffer(5), bump))
    _, elsewhere, their_bump, their_buffer = counter_graph()
    with pytest.raises(poplar.graph_program_compilation_error, match="function buffer 0 belongs to a different graph"):
        poplar.Engine(g, program.Copy(their_buffer, their_bump))
    assert buffer == poplar.FunctionBuffer(0) and buffer.getId() == 0 and elsewhere is not g


def test_pythonic_functions_with_remote_code_load_it_on_each_call():
    dev = pd.ipu_model(tiles=TILES)
    g = pd.Graph(dev)
    a = g.variable(pd.float32, (3,), name="a", init=np.array([1.0, 2.0, 3.0], np.float32))

    @g.function(remote_code=True)
    def doubled(x):
        return x * 2.0

    with pd.Sequence("main") as main:
        y = doubled(a)
        z = doubled(y)
    with pd.Session(g, {"main": main}, device=dev) as s:
        s.run("main")
        np.testing.assert_array_equal(s.read(z), [4.0, 8.0, 12.0])
        loads = [step for step in s.profile.steps if step.kind == "Copy(function code)"]
    assert len(loads) == 2 and all(step.executions == 1 for step in loads)
