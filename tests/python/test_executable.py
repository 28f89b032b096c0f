"""The raw Poplar API of the session lifecycle: compileGraph, Executable (de)serialization,
host functions and hardware seeds, with the errors a user can hit."""
import struct

import numpy as np
import pytest

from popdsl import poplar, popops, poputil, program


@pytest.fixture(autouse=True)
def no_engine_options_from_the_environment(monkeypatch):
    monkeypatch.delenv("POPLAR_ENGINE_OPTIONS", raising=False)


def doubling_graph(graph):
    v = graph.addVariable(poplar.FLOAT, [2, 3], "v")
    poputil.mapTensorLinearly(graph, v)
    graph.setInitialValue(v, np.arange(6, dtype=np.float32).reshape(2, 3))
    graph.createHostRead("v", v)
    prog = program.Sequence()
    popops.mulInPlace(graph, v, 2.0, prog)
    return v, prog


def test_deserialized_executable_runs_like_the_original(device, graph):
    _, prog = doubling_graph(graph)
    data = poplar.compileGraph(graph, [prog]).serialize()
    engine = poplar.Engine(poplar.Executable.deserialize(data))
    engine.load(device)
    engine.run(0)
    engine.run(0)
    out = engine.readTensor("v", np.empty((2, 3), np.float32))
    np.testing.assert_array_equal(out, np.arange(6).reshape(2, 3) * 4)


def test_serialization_is_canonical(device):
    def serialized():
        graph = poplar.Graph(device.getTarget())
        _, prog = doubling_graph(graph)
        return poplar.compileGraph(graph, prog).serialize()
    assert serialized() == serialized()


def test_corrupt_executables_are_refused(graph):
    _, prog = doubling_graph(graph)
    data = poplar.compileGraph(graph, prog).serialize()
    with pytest.raises(poplar.poplar_error, match="checksum does not match"):
        poplar.Executable.deserialize(data[:40] + b"x" + data[41:])
    with pytest.raises(poplar.poplar_error, match="too short"):
        poplar.Executable.deserialize(b"abc")
    with pytest.raises(poplar.poplar_error, match="truncated or corrupt"):
        poplar.Executable.deserialize(data[:60], checkPackageHash=False)


def test_element_counts_that_wrap_around_are_refused(graph):
    # v's shape [2, 3] (a count, then the dims) rewritten to [2**63 + 3, 2]: its element
    # count wraps to 6 in 64 bits, matching v's data and mapping, so only an overflow
    # check tells it from v.
    _, prog = doubling_graph(graph)
    data = poplar.compileGraph(graph, prog).serialize()
    shape = struct.pack("<3Q", 2, 2, 3)
    assert shape in data
    with pytest.raises(poplar.poplar_error, match=r"Cannot read an executable: a variable: shape "
                                                  r"\[9223372036854775811,2\] of float has too many elements"):
        poplar.Executable.deserialize(data.replace(shape, struct.pack("<3Q", 2, 2 ** 63 + 3, 2)),
                                      checkPackageHash=False)


def test_compile_graph_checks_options(graph):
    _, prog = doubling_graph(graph)
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'no.such'"):
        poplar.compileGraph(graph, prog, {"no.such": "1"})
    with pytest.raises(poplar.invalid_option, match="'prng.seed': expected an unsigned integer"):
        poplar.Engine(poplar.compileGraph(graph, prog, {"prng.seed": "-3"}))


def test_engine_progress_reaches_the_total(graph):
    _, prog = doubling_graph(graph)
    reports = []
    poplar.Engine(graph, [prog, prog], progress=lambda done, total: reports.append((done, total)))
    assert reports[0] == (0, 3) and reports[-1] == (3, 3)


def host_function_graph(graph):
    a = graph.addVariable(poplar.FLOAT, [3], "a")
    out = graph.addVariable(poplar.INT, [2], "out")
    for t in (a, out):
        graph.setTileMapping(t, 0)
    graph.setInitialValue(a, np.array([1.5, 2.5, 3.5], np.float32))
    graph.createHostRead("out", out)
    f = graph.addHostFunction("summarise", [(poplar.FLOAT, 3)], [(poplar.INT, 2)])
    return f, a, out


def test_host_function_call(device, graph):
    f, a, out = host_function_graph(graph)
    engine = poplar.Engine(graph, program.Call(f, [a], [out]))

    def summarise(inputs, outputs):
        (values,) = inputs
        outputs[0][:] = [values.size, int(values.sum())]

    engine.connectHostFunction("summarise", 0, summarise)
    engine.load(device)
    engine.run()
    np.testing.assert_array_equal(engine.readTensor("out", np.empty(2, np.int32)), [3, 7])


def test_host_function_errors(device, graph):
    f, a, out = host_function_graph(graph)
    engine = poplar.Engine(graph, program.Call(f, [a], [out]))
    engine.load(device)
    with pytest.raises(poplar.stream_connection_error, match="Host function 'summarise' is not connected"):
        engine.run()
    with pytest.raises(poplar.stream_connection_error, match=r"no host function with handle 'other'"):
        engine.connectHostFunction("other", 0, lambda i, o: None)
    with pytest.raises(poplar.graph_program_compilation_error,
                       match=r"host function 'summarise'.*input .*out.* does not match the declared 3 x float"):
        poplar.Engine(graph, program.Call(f, [out], [out]))
    with pytest.raises(poplar.graph_object_creation_error, match="'summarise' already exists"):
        graph.addHostFunction("summarise", [], [])


def test_hw_seeds_set_are_the_seeds_read_back(graph, device):
    prog = program.Sequence()
    shape = [graph.getTarget().getNumTiles(), graph.getTarget().getNumWorkerContexts(), 4]
    chosen = np.arange(np.prod(shape), dtype=np.uint32).reshape(shape) * np.uint32(2654435761)
    seeds = graph.addVariable(poplar.UNSIGNED_INT, shape, "seeds")
    graph.setTileMapping(seeds, 0)
    graph.setInitialValue(seeds, chosen)
    poplar.setHwSeeds(graph, seeds, prog)
    read = poplar.getHwSeeds(graph, prog, "read")
    assert read.shape() == shape and read.elementType() == poplar.UNSIGNED_INT
    graph.createHostRead("read", read)
    engine = poplar.Engine(graph, prog)
    engine.load(device)
    engine.run()
    np.testing.assert_array_equal(engine.readTensor("read", np.zeros(shape, np.uint32)), chosen)


def test_hw_seeds_shape_is_checked(graph):
    prog = program.Sequence()
    wrong = graph.addVariable(poplar.UNSIGNED_INT, [2], "wrong")
    with pytest.raises(poplar.poplar_error, match=r"setHwSeeds: the seeds .*wrong.* must be unsigned int \[4,6,4\]"):
        poplar.setHwSeeds(graph, wrong, prog)
