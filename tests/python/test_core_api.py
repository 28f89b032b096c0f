"""The C++-only poplar core API (templates, callbacks, debug information, profile
values, the Target's AMP figures), exercised by the programs tests/cpp/engine_api.cpp,
target_api.cpp and debug_api.cpp built against the SDK-shaped prefix: each prints
"label: value" lines, checked here against values worked out by hand."""
import concurrent.futures
import json
import re
import subprocess
from pathlib import Path

import pytest

from cpp_build import build_program, compiler

PROGRAMS = Path(__file__).resolve().parent.parent / "cpp"


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """program stem -> (its "label: value" lines as a dict, its work directory)."""
    compiler()

    stems = ("engine_api", "target_api", "debug_api")
    # Made here: tmp_path_factory is not safe to use from several threads.
    works = {stem: tmp_path_factory.mktemp(stem) for stem in stems}

    def build_and_run(stem):
        work = works[stem]
        exe = build_program(work, (PROGRAMS / f"{stem}.cpp").read_text(), std="c++14", strict=True)
        result = subprocess.run([str(exe), str(work / "debug.json")], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr
        lines = dict(line.split(": ", 1) for line in result.stdout.splitlines())
        return lines, work

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(stems)) as pool:
        return dict(zip(stems, pool.map(build_and_run, stems)))


def test_engine_templates_read_write_and_connect_array_refs(ran):
    out, _ = ran["engine_api"]
    assert out["written and read"] == "0.5 1.5 -2 8"
    # Six floats feed two copies of four, wrapping: 1 2 3 4, then 5 6 1 2.
    assert out["circular"] == "5 6 1 2"
    assert out["short buffer"] == ("Engine::readTensor: the buffer for 'v-out' holds 12 bytes but the tensor "
                                   "needs 16 (4 x float)")
    assert out["streams"] == "floats ints"


def test_data_streams_report_their_handle_size_type_and_kind(ran):
    out, _ = ran["engine_api"]
    # handle, numElements, elementType, replicationFactor, replicatedMode REPLICATE, type
    # (twice), replicatedMode BROADCAST.
    assert out["data stream"] == "floats 4 float 1 1 1 1 0"


def test_compile_graph_takes_the_graph_and_reports_progress_and_executables_move_through_unique_ptr_streams(ran):
    out, _ = ran["engine_api"]
    # compileGraph(Graph&&, progs, {}, ProgressFunc); Executable::deserialize(unique_ptr<istream>).
    assert out["progress"] == "0/1 1/1"
    assert out["engine options"] == "0"


def test_vertices_printf_goes_to_the_engines_print_stream(ran):
    out, _ = ran["engine_api"]
    # setPrintStream(ostringstream): the vertex's printf of v[1] (6 after the circular copies).
    assert out["vertex printed"] == "vertex sees 6.00"


def test_runtime_options_are_checked_and_taken_by_prepare_and_run(ran):
    out, _ = ran["engine_api"]
    assert out["circular"] == "5 6 1 2"  # run(1, "floats", RuntimeOptions) ran
    assert out["bad runtime option"] == "Unrecognised option 'debug.instrument'"
    assert out["bad runtime value"] == ("Invalid value 'many' for option 'streamCallbacks.numWorkerThreads': "
                                        "expected an unsigned integer or auto")


def test_stop_from_a_stream_callback_ends_the_run_at_the_next_step(ran):
    out, _ = ran["engine_api"]
    # Repeat(5, Copy(stream, n)): the callback stops the engine during its second fetch.
    assert out["stopped after"] == "2 fetches, n = 2"


def test_a_resumable_stream_callback_is_awaited_until_it_notifies(ran):
    out, _ = ran["engine_api"]
    assert out["resumable"] == "n = 42, awaited yes, completed yes, awaiting now no, ready early no"


def test_time_stamps_report_host_time_and_estimated_cycles(ran):
    out, _ = ran["engine_api"]
    match = re.fullmatch(r"Host time: ([0-9.e+-]+) s, estimated cycles: (\d+)", out["timing"])
    assert match, out["timing"]
    # The run waited 5 x 20 ms for the resumable callback.
    assert float(match.group(1)) >= 0.1
    assert int(match.group(2)) > 0
    assert out["timing backwards"] == "Engine::reportTiming: the end time stamp is earlier than the start"


def test_disabled_execution_profiling_prints_the_profiled_runs_and_raises_without_any(ran):
    out, _ = ran["engine_api"]
    assert out["profile after disabling"] == "3 runs"  # the three runs above
    assert out["profile while disabled"].startswith(
        "Engine::printProfileSummary: execution profiling is disabled and no run was profiled; call "
        "Engine::enableExecutionProfiling()")
    assert out["profile when enabled"] == "yes"


def target_line(tiles, bytes_per_tile, clock, units, fp_units, coeff, sharing):
    """What target_api prints for a target: getTilesPerIPU, getBytesPerTile, clock, workers,
    data path, exchange bytes/cycle; the AMP units (half->float, half->half, float->float,
    quarter->half, float->half) and the per-type unit getters; weights per unit (float,
    half, quarter: a 32-byte row), input loads and pipeline depths (by type, then the
    per-type getters), coefficient load bytes, exchange-bus sharing, vector widths (float,
    half, quarter, int), rpt count, stride bits, atomic store granularity, sync delays and
    memcpy bytes/cycle."""
    return (f"tiles {tiles}, bytes {bytes_per_tile}, clock {clock}, workers 6, path 64, exchange 4, "
            f"units {units}, fp units {fp_units}, weights 8 16 32, loads 2 4 8 2 4 8, depths 2 4 8 2 4 8, "
            f"coeff {coeff}, bus sharing {sharing}, vectors 2 4 8 2, rpt 4095, stride bits 10, atomic 4, "
            f"sync 0 0 0, memcpy 8")


# ipu1: 125 TFLOPS half at 1.6 GHz on 1216 tiles is 8 AMP units of 4 MACs; ipu2 has twice
# as many; ipu21 adds quarter inputs.
EXPECTED_TARGETS = {
    "ipu1": target_line(1216, 262144, "1.6e+09", "8 8 4 0 0", "8 8 4 0", 16, "0 1"),
    "ipu2": target_line(1472, 638976, "1.33e+09", "16 16 8 0 0", "16 16 8 0", 32, "1 2"),
    "ipu21": target_line(1472, 638976, "1.85e+09", "16 16 8 16 0", "16 16 8 16", 32, "1 2"),
}


@pytest.mark.parametrize("version", sorted(EXPECTED_TARGETS))
def test_targets_have_each_architectures_figures_including_the_amp_units(ran, version):
    out, _ = ran["target_api"]
    assert out[version] == EXPECTED_TARGETS[version]


def test_ipu_model_amp_fields_reach_the_target_and_virtual_targets_keep_them(ran):
    out, _ = ran["target_api"]
    assert out["changed model"] == "units 4, depth 6, float loads 1, tiles 16"
    assert out["virtual"] == "1 x 2, units 4, same figures 1"
    assert out["virtual of no tiles"].startswith("createVirtualTarget: 1 IPUs x 0 tiles")
    assert out["constraint beyond the IPUs"].startswith(
        "IPUModel globalExchangeConstraints: flow 0 -> 1 names an IPU the model lacks (numIPUs=1)")


def test_type_limits_sizes_and_links_of_a_target(ran):
    out, _ = ran["target_api"]
    # getTypeLimitsMaxAs / getTypeLimitsLowestAs: half, short, int, unsigned long long, float.
    assert out["limits"] == "65504 -65504 32767 -2147483648 18446744073709551615 3.40282e+38"
    assert out["limits of double"] == "getTypeLimits: type 'double' has no limits on ipu2"
    assert out["type sizes"] == "1 2 4 8"
    assert out["conv units of int"] == "The AMP units take float, half or quarter inputs, not int"
    # getIpuLinkConfiguration, getIpuLinkTopology, getIpuLinkDomainSize, getInstanceSize, getGatewayMode
    assert out["links"] == "1 1 2 2 0"


def test_memory_elements_host_exchange_and_control_registers_of_a_target(ran):
    out, _ = ran["target_api"]
    kib = 1024
    # ipu1's documented layout: 8 elements of 16 KiB, then 4 interleaved ones of 32 KiB.
    ipu1 = [16 * kib * i for i in range(8)] + [128 * kib + 32 * kib * i for i in range(4)]
    assert out["ipu1 memory elements"] == " ".join(map(str, ipu1)) + ", interleaved from 8"
    # 624 KiB: 13 elements of 16 KiB (the first interleaved one at 0x34000), then 13 of 32 KiB.
    ipu2 = [16 * kib * i for i in range(13)] + [0x34000 + 32 * kib * i for i in range(13)]
    assert 0x34000 == 13 * 16 * kib and ipu2[-1] + 32 * kib == 624 * kib
    for version in ("ipu2", "ipu21"):
        assert out[f"{version} memory elements"] == " ".join(map(str, ipu2)) + ", interleaved from 13"
    # 40000 bytes with one 16 KiB element: the 32 KiB ones start at 16384 and 49152 is past the end.
    assert out["small memory elements"] == "0 16384"
    # 16 tiles a context, 4 contexts an XB: tile -> XB/context/position, per IPU.
    expected = " ".join(f"{t % 1472 // 64}/{t % 1472 // 16 % 4}/{t % 16}" for t in (0, 15, 16, 63, 64, 1471, 1489))
    assert out["host exchange"] == "16 4 " + expected
    for query in ("exchange", "context", "position"):
        assert out[f"host {query} of tile 2944"].endswith("tile 2944 is not one of the target's 2944 tiles")
    # $FP_ICTL: inv bit 0, div0 bit 1, oflo bit 2, esr bit 19, nanoo bit 20; indices 258 and 0x70.
    assert out["fp ictl"] == f"1 6 {(1 << 19 | 1 << 20):x} {(7 | 1 << 19 | 1 << 20):x}, registers 258 112"


def test_half_conversions_round_to_nearest_even(ran):
    out, _ = ran["target_api"]
    # 1, 0.1, 65504 (the largest half), 1e6 (overflows to inf), 2049 (a tie: to even 2048).
    assert out["half bits"] == "3c00 2e66 7bff 7c00 6800"
    assert out["half floats"] == "1 0.0999756 65504 inf 2048"
    assert out["half doubles"] == "0.5 -2 0"


def test_model_devices_attach_reset_and_have_no_driver(ran):
    out, _ = ran["target_api"]
    assert out["target types"] == "IPU IPU_MODEL CPU"
    assert out["device"] == "remote buffers 0, gateway 0"
    assert re.fullmatch(r"Device::getDriverVersion: device \d+ is a IPU_MODEL device with no IPU driver",
                        out["driver version"])
    assert re.fullmatch(r"Device::reset: device \d+ is not attached; call attach\(\) first", out["reset detached"])
    assert out["attach"] == "1 0 1"
    # getAttributes of the 2-IPU, 8-tile model; getNumaTopology has an entry per IPU, and a
    # model device has no driver ids.
    assert out["attributes"] == "target type=IPU_MODEL; architecture=ipu2; IPUs=2; tiles per IPU=8;"
    assert out["numa"] == "2 0, driver ids 0"
    assert out["detached"] == "0"


def test_device_manager_lists_no_hardware_and_names_what_it_lacks(ran):
    out, _ = ran["target_api"]
    assert out["manager"] == "0 0 0"
    assert out["model devices"].startswith("DeviceManager::getDevices: only IPU devices are enumerated, not IPU_MODEL")
    assert out["zero IPUs"] == "DeviceManager::getDevices: requiredNumIPUs must be at least 1"
    assert out["device 3"].startswith("DeviceManager::getDevice: no hardware device with id 3")
    assert out["children of 0"].startswith("DeviceManager::getChildDeviceIds: no hardware device with id 0")
    assert out["children of 1"].startswith("DeviceManager::getChildDeviceIds: no hardware device with id 1")


def test_equivalent_device_types_and_stream_kinds(ran):
    out, _ = ran["target_api"]
    # equivalent_device_type<float, unsigned, long long>, isFloatingPoint(half, int),
    # requiresMetadata(quarter, half), copy and std::hash.
    assert out["types"] == "float unsigned int long long 1 0 1 0 1 1"
    # (isHostToDevice, isDeviceToHost, isRemoteBuffer) of the four DataStreamTypes.
    assert out["stream kinds"] == "100 010 101 011"


def test_source_locations_name_the_caller(ran):
    out, _ = ran["debug_api"]
    function, line, valid, file_name, default_valid = out["location"].split()
    # build_program compiles the source as prog.cpp.
    assert (function, valid, file_name, default_valid) == ("main", "1", "prog.cpp", "0")
    source = (PROGRAMS / "debug_api.cpp").read_text().splitlines()
    assert "SourceLocation::Current()" in source[int(line) - 1]
    # A DebugContext made from {"outer"} at the call records main's line of that call.
    path, caller = out["layer call"].split(" caller ")
    assert path == "outer/inner id 1"
    assert caller.startswith("main:")
    assert "layerCall({\"outer\"})" in source[int(caller[5:]) - 1]


def test_debug_info_values_and_names_are_streamed_as_json(ran):
    out, work = ran["debug_api"]
    assert out["second streamer"].startswith("DebugInfo::initializeStreamer: already streaming to")
    # setValue: new name, taken name, reserved name, new name.
    assert out["values"] == "1 0 0 1"
    assert out["name and id"] == "model/weights/w0 1 model"
    assert out["contexts"] == "7 plain model/block/step 1"
    assert out["cbor"] == "DebugInfo::initializeStreamer: the emulator writes debug information as JSON only"
    records = json.loads((work / "debug.json").read_text())["contexts"]
    by_layer = {r["layer"]: r for r in records}
    assert set(by_layer) == {"mylib", "popdsl"}
    assert by_layer["mylib"]["answer"] == 42 and by_layer["mylib"]["path"] == "outer"
    assert by_layer["popdsl"]["shape"] == [2, 3] and by_layer["popdsl"]["kind"] == "matmul"
    assert by_layer["popdsl"]["location"]["function"] == "main"
    assert len({r["id"] for r in records}) == 2 and all(r["parentId"] == 0 for r in records)


def test_profile_values_answer_their_queries(ran):
    out, _ = ran["debug_api"]
    # BOOL_, STRING, NUMBER, VECTOR, MAP
    assert out["profile types"] == "11111"
    assert json.loads(out["profile value"]) == {"name": "conv", "cycles": [[1, 2], [3, 4]], "flops": 2.5, "ok": True}
    # MAP, size, asString, getOrNull (found, missing), asDouble, sum2DInt, sum2DUint, sumInt,
    # sumUint, sumDouble, toUintVector, asInt, asUint, asMap, asVector, ==, !=.
    assert out["profile queries"] == "1 4 conv 1 1 2.5 10 10 7 7 3 2 3 4 4 2 1 1"
    assert out["string as int"] == "ProfileValue::asInt: the value is a string, not a number"
    assert out["fraction as int"] == "ProfileValue: the number 2.500000 is not a whole number in range"
    assert out["index past end"] == "ProfileValue: index 2 is out of range: the vector has 2 elements"
    assert out["missing member"] == "ProfileValue: the map has no member 'nope'"


def test_string_and_array_refs_view_without_copying(ran):
    out, _ = ran["debug_api"]
    # size, a 6-character view, == / != a literal, cloneAsString, same data, std::string.
    assert out["string refs"] == "11 stream 1 1 stream 1 stream"
    # size, [1], front, back, ArrayRef<const int> from ArrayRef<int> sees the same data,
    # sums through cbegin/cend of a vector and of a braced list, empty, end - begin, vec().
    assert out["array refs"] == "3 1 3 4 1 8 11 1 3 2"


def test_option_flags_iterate_in_key_order_and_convert_to_profile_values(ran):
    out, _ = ran["debug_api"]
    assert out["flags"] == 'a=10 b=2 c=3 3 10 1 {"a":"10","b":"2","c":"3"}'
    assert out["json"] == '{"n": "4", "s": "t", "x.y": "true"} 0'
    assert out["cleared"] == "0 1"
    assert out["unset option"] == "Option 'a' is not set"


def test_tensor_debug_string_names_the_variable_region_and_dump_writes_it(tmp_path):
    exe = build_program(tmp_path, r'''
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <iostream>
int main() {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::Tensor t = graph.addVariable(poplar::FLOAT, {3, 4}, "weights");
  std::cout << t.slice(1, 3).getDebugStr() << "\n";
  t.slice(1, 3).dump();
}''')
    result = subprocess.run([str(exe)], check=True, capture_output=True, text=True)
    # Rows 1 and 2 of a [3][4] variable: its elements 4 to 11.
    assert result.stdout == "'weights' [2,4] float regions: weights[4, 12)\n"
    assert result.stderr == result.stdout
