"""Engine controls of the raw bindings: RuntimeOptions for prepare and run, stop() from a
stream callback, time stamps, and switching execution profiling off and on."""
import re

import numpy as np
import pytest

from popdsl import poplar, program


@pytest.fixture
def counting(graph, device):
    """An engine whose program 0 copies five elements of stream "in" into n, one by one,
    and whose handle "n" reads n."""
    n = graph.addVariable(poplar.INT, [1], "n")
    graph.setTileMapping(n, 0)
    graph.createHostRead("n", n)
    stream = graph.addHostToDeviceFIFO("in", poplar.INT, 1)
    engine = poplar.Engine(graph, program.Repeat(5, program.Copy(stream, n)))
    engine.load(device)
    return engine


def read_n(engine):
    out = np.zeros(1, np.int32)
    engine.readTensor("n", out)
    return int(out[0])


def test_stop_from_a_stream_callback_ends_the_run_at_the_next_step(counting):
    fed = []

    def feed(array):
        fed.append(len(fed) + 1)
        array[0] = fed[-1]
        if len(fed) == 3:
            counting.stop()

    counting.connectStreamToCallback("in", feed)
    counting.run(0)
    assert (fed, read_n(counting)) == ([1, 2, 3], 3)
    counting.run(0)  # a new run starts afresh and runs to the end
    assert (len(fed), read_n(counting)) == (8, 8)


def test_runtime_options_are_checked_and_taken_by_prepare_and_run(counting, device):
    counting.connectStream("in", np.arange(10, 15, dtype=np.int32))
    counting.prepare(device, poplar.RuntimeOptions({"streamCallbacks.multiThreadMode": "dedicated"}))
    counting.deploy()
    counting.run(0, "main", {"target.syncMethod": "polling", "streamCallbacks.numWorkerThreads": "auto"})
    assert read_n(counting) == 14
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'prng.seed'"):
        counting.run(0, "main", {"prng.seed": "1"})
    with pytest.raises(poplar.invalid_option, match="Invalid value 'often' for option 'target.syncMethod'"):
        poplar.RuntimeOptions({"target.syncMethod": "often"})


@pytest.mark.needs_emulator("profile data (Engine.getProfileData)")
def test_runs_with_profiling_disabled_leave_no_counts_and_no_summary(counting):
    counting.connectStream("in", np.arange(5, dtype=np.int32))
    counting.run(0)
    counting.disableExecutionProfiling()
    counting.run(0)
    assert counting.getProfileData()["runs"] == 1  # the profiled run stays printable
    counting.resetExecutionProfile()
    with pytest.raises(poplar.profiling_disabled, match="execution profiling is disabled and no run was profiled"):
        counting.printProfileSummary(None)
    counting.run(0)
    counting.enableExecutionProfiling()
    counting.run(0)
    profile = counting.getProfileData()
    assert profile["runs"] == 1  # the run after the reset and the enable
    copies = [s for s in profile["steps"] if s["executions"] and "Copy" in s["kind"]]
    assert copies and all(s["executions"] == 5 for s in copies)
    assert read_n(counting) == 4
    counting.resetExecutionProfile()
    assert counting.getProfileData()["runs"] == 0


def test_time_stamps_report_host_time_and_estimated_cycles(counting):
    counting.connectStream("in", np.arange(5, dtype=np.int32))
    start = counting.getTimeStamp()
    counting.run(0)
    middle = counting.getTimeStamp()
    counting.run(0)
    end = counting.getTimeStamp()
    cycles = [int(re.fullmatch(r"Host time: [0-9.e+-]+ s, estimated cycles: (\d+)",
                               counting.reportTiming(a, b)).group(1)) for a, b in ((start, middle), (start, end))]
    # Two runs of the same program take twice one run's estimated cycles.
    assert cycles[0] > 0 and cycles[1] == 2 * cycles[0]
    with pytest.raises(poplar.poplar_error, match="end time stamp is earlier than the start"):
        counting.reportTiming(end, start)
