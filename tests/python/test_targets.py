"""IPU models, targets, devices, element types and option parsing."""
import numpy as np
import pytest

from popdsl import poplar

# Published figures of each IPU version's model: tiles, SRAM bytes per tile.
IPU_FIGURES = {"ipu1": (1216, 256 * 1024), "ipu2": (1472, 624 * 1024), "ipu21": (1472, 624 * 1024)}


@pytest.mark.parametrize("version", sorted(IPU_FIGURES))
def test_ipu_model_targets_have_the_published_figures(version):
    tiles, bytes_per_tile = IPU_FIGURES[version]
    target = poplar.IPUModel(version).createDevice().getTarget()
    assert target.getTargetType() == poplar.TargetType.IPU_MODEL
    assert target.getTargetArchString() == version
    assert (target.getNumIPUs(), target.getTilesPerIPU(), target.getNumTiles()) == (1, tiles, tiles)
    assert target.getBytesPerTile() == bytes_per_tile
    assert target.getMemoryBytes() == tiles * bytes_per_tile
    assert target.getNumWorkerContexts() == 6
    assert target.getDataPathWidth() == 64
    assert target.getExchangeBytesPerCycle() == 4
    assert (target.getFloatVectorWidth(), target.getHalfVectorWidth()) == (2, 4)
    assert target.getVectorWidth(poplar.FLOAT) == 2
    assert target.getVectorWidth(poplar.HALF) == 4
    assert target.getTileClockFrequency() > 1e9


# Per version: clock (Hz); AMP units for half->float, half->half, float->float and
# quarter->half inputs; coefficient load bytes per cycle; exchange-bus sharing.
AMP_FIGURES = {
    "ipu1": (1.6e9, (8, 8, 4, 0), 16, (False, 1)),
    "ipu2": (1.33e9, (16, 16, 8, 0), 32, (True, 2)),
    "ipu21": (1.85e9, (16, 16, 8, 16), 32, (True, 2)),
}


@pytest.mark.parametrize("version", sorted(AMP_FIGURES))
def test_targets_have_each_versions_clock_amp_units_and_exchange_bus(version):
    clock, units, coefficients, sharing = AMP_FIGURES[version]
    t = poplar.IPUModel(version).createDevice().getTarget()
    assert t.getTileClockFrequency() == clock
    pairs = [(poplar.HALF, poplar.FLOAT), (poplar.HALF, poplar.HALF), (poplar.FLOAT, poplar.FLOAT),
             (poplar.QUARTER, poplar.HALF)]
    assert tuple(t.getNumConvUnits(a, b) for a, b in pairs) == units
    assert (t.getFp16InFp32OutConvUnitsPerTile(), t.getFp16InFp16OutConvUnitsPerTile(),
            t.getFp32InFp32OutConvUnitsPerTile(), t.getFp8InFp16OutConvUnitsPerTile()) == units
    assert t.getNumConvUnits(poplar.FLOAT, poplar.HALF) == 0
    assert t.getConvUnitCoeffLoadBytesPerCycle() == coefficients
    # A unit holds a 32-byte row of weights; inputs load one 64-bit word a cycle.
    types = (poplar.FLOAT, poplar.HALF, poplar.QUARTER)
    assert [t.getWeightsPerConvUnit(x) for x in types] == [8, 16, 32]
    assert [t.getConvUnitInputLoadElemsPerCycle(x) for x in types] == [2, 4, 8]
    assert [t.getFp32ConvUnitInputLoadElemsPerCycle(), t.getFp16ConvUnitInputLoadElemsPerCycle(),
            t.getFp8ConvUnitInputLoadElemsPerCycle()] == [2, 4, 8]
    assert [t.getConvUnitMaxPipelineDepth(x) for x in types] == [2, 4, 8]
    assert [t.getFp32ConvUnitMaxPipelineDepth(), t.getFp16ConvUnitMaxPipelineDepth(),
            t.getFp8ConvUnitMaxPipelineDepth()] == [2, 4, 8]
    assert (t.supportsExchangeBusSharing(), t.getTilesPerSharedExchangeBus()) == sharing
    assert (t.getQuarterVectorWidth(), t.getRptCountMax(), t.getNumStrideBits()) == (8, 4095, 10)
    assert (t.getMinIPUSyncDelay(), t.getMaxIPUSyncDelay(), t.getGlobalSyncCycles()) == (0, 0, 0)
    assert t.getIpuLinkConfiguration() == poplar.IpuLinkConfiguration.Default
    assert t.getIpuLinkTopology() == poplar.IpuLinkTopology.Mesh
    assert (t.getIpuLinkDomainSize(), t.getInstanceSize(), t.getGatewayMode()) == (1, 1, False)
    with pytest.raises(poplar.type_error, match="The AMP units take float, half or quarter inputs, not int"):
        t.getConvUnitMaxPipelineDepth(poplar.INT)


def test_ipu_model_amp_fields_reach_the_target_and_a_virtual_target():
    model = poplar.IPUModel("ipu2")
    model.numIPUs = 2
    model.tilesPerIPU = 4
    model.fp16InFp16OutConvUnitsPerTile = 8
    model.fp16InFp32OutConvUnitsPerTile = 4
    model.fp16ConvUnitMaxPipelineDepth = 6
    model.fp32ConvUnitInputLoadElemsPerCycle = 1
    model.fp16ConvUnitInputLoadElemsPerCycle = 3
    model.fp8ConvUnitInputLoadElemsPerCycle = 5
    target = model.createDevice().getTarget()
    virtual = target.createVirtualTarget(1, 2)
    for t in (target, virtual):
        assert (t.getNumConvUnits(poplar.HALF, poplar.HALF), t.getNumConvUnits(poplar.HALF, poplar.FLOAT)) == (8, 4)
        assert [t.getConvUnitInputLoadElemsPerCycle(x) for x in (poplar.FLOAT, poplar.HALF, poplar.QUARTER)] == [1, 3, 5]
        assert t.getConvUnitMaxPipelineDepth(poplar.HALF) == 6
    assert (virtual.getNumIPUs(), virtual.getTilesPerIPU(), virtual.getIpuLinkDomainSize()) == (1, 2, 1)
    assert virtual != target and virtual == target.createVirtualTarget(1, 2)
    assert poplar.Target.deserialize(target.serialize()) == target
    with pytest.raises(poplar.invalid_machine_model, match="createVirtualTarget: 0 IPUs x 2 tiles"):
        target.createVirtualTarget(0, 2)


def test_global_exchange_constraints_must_name_ipus_of_the_model():
    model = poplar.IPUModel("ipu2")
    model.numIPUs = 2
    model.tilesPerIPU = 2
    model.globalExchangeConstraints = [poplar.GlobalExchangeConstraint(1.28e11, [poplar.GlobalExchangeFlow(0, 1)])]
    assert model.createDevice().getTarget().getNumTiles() == 4
    model.globalExchangeConstraints = [poplar.GlobalExchangeConstraint(1.28e11, [poplar.GlobalExchangeFlow(1, 2)])]
    with pytest.raises(poplar.invalid_machine_model, match=r"flow 1 -> 2 names an IPU the model lacks \(numIPUs=2\)"):
        model.createDevice()


def test_emulated_devices_have_no_driver_gateway_or_remote_buffers_and_reset_when_attached():
    device = poplar.IPUModel("ipu2").createDevice()
    assert (device.supportsRemoteBuffers(), device.hasGateway()) == (False, False)
    with pytest.raises(poplar.poplar_error, match="is a IPU_MODEL device with no IPU driver"):
        device.getDriverVersion()
    with pytest.raises(poplar.poplar_error, match="is not attached; call attach"):
        device.reset()
    assert device.attach()
    device.reset()
    assert device.isAttached()
    assert not poplar.Device.createSimulatorDevice(poplar.Target.createIPUTarget("ipu2")).supportsRemoteBuffers()


def test_cpu_targets_and_the_target_and_model_enums():
    cpu = poplar.Target.createCPUTarget()
    assert (cpu.getTargetType(), cpu.getTargetSystemString(), cpu.getNumTiles()) == (poplar.TargetType.CPU, "cpu", 1)
    assert poplar.Target.createCPUTarget(False, 2).getNumIPUs() == 2
    assert [c.name for c in (poplar.IpuLinkConfiguration.Default, poplar.IpuLinkConfiguration.SlidingWindow,
                             poplar.IpuLinkConfiguration.BarleyTwist)] == ["Default", "SlidingWindow", "BarleyTwist"]
    assert [t.name for t in (poplar.IpuLinkTopology.Mesh, poplar.IpuLinkTopology.Torus,
                             poplar.IpuLinkTopology.Line)] == ["Mesh", "Torus", "Line"]
    model = poplar.IPUModel()
    assert model.relativeSyncDelay == poplar.IPUModel.RelativeSyncDelayType.AUTO
    model.relativeSyncDelay = poplar.IPUModel.RelativeSyncDelayType.NO_DELAY
    assert model.relativeSyncDelay == poplar.IPUModel.RelativeSyncDelayType.NO_DELAY
    assert poplar.ReplicatedStreamMode.BROADCAST != poplar.ReplicatedStreamMode.REPLICATE


def test_default_model_is_ipu2():
    model = poplar.IPUModel()
    assert model.IPUVersion == "ipu2"
    assert model.createDevice().getTarget().getNumTiles() == 1472


@pytest.mark.parametrize(
    "dtype, size",
    [(poplar.BOOL, 1), (poplar.CHAR, 1), (poplar.SIGNED_CHAR, 1), (poplar.UNSIGNED_CHAR, 1),
     (poplar.SHORT, 2), (poplar.UNSIGNED_SHORT, 2), (poplar.HALF, 2), (poplar.INT, 4),
     (poplar.UNSIGNED_INT, 4), (poplar.FLOAT, 4), (poplar.LONGLONG, 8),
     (poplar.UNSIGNED_LONGLONG, 8)],
    ids=str,
)
def test_type_sizes_and_vector_widths_follow_the_64_bit_data_path(dtype, size):
    target = poplar.IPUModel("ipu2").createDevice().getTarget()
    assert target.getTypeSize(dtype) == size
    assert target.getVectorWidth(dtype) == 8 // size
    assert dtype.numpy_dtype.itemsize == size


@pytest.mark.parametrize("dtype", [poplar.DOUBLE, poplar.LONG], ids=str)
def test_types_the_device_lacks_have_no_size(dtype):
    target = poplar.IPUModel("ipu2").createDevice().getTarget()
    with pytest.raises(poplar.type_error, match=dtype.toString()):
        target.getTypeSize(dtype)


def test_changing_the_model_before_create_device_changes_the_target():
    model = poplar.IPUModel("ipu1")
    model.tilesPerIPU = 4
    model.numIPUs = 2
    model.memoryBytesPerTile = 1000
    model.dataPathWidth = 128
    target = model.createDevice().getTarget()
    assert (target.getTilesPerIPU(), target.getNumTiles(), target.getBytesPerTile()) == (4, 8, 1000)
    assert target.getMemoryBytes() == 8000
    assert target.getVectorWidth(poplar.FLOAT) == 4
    # A target the device was made from earlier does not follow later changes.
    model.tilesPerIPU = 16
    assert target.getTilesPerIPU() == 4
    assert model.createDevice().getTarget().getTilesPerIPU() == 16


def test_targets_compare_by_their_figures():
    def target(tiles):
        model = poplar.IPUModel("ipu2")
        model.tilesPerIPU = tiles
        return model.createDevice().getTarget()

    assert target(4) == target(4) and hash(target(4)) == hash(target(4))
    assert not target(4) == target(8)
    assert not poplar.IPUModel("ipu2").createDevice().getTarget() == \
        poplar.IPUModel("ipu21").createDevice().getTarget()


@pytest.mark.parametrize("version", ["ipu3", "IPU2", "", "cpu"])
def test_unknown_ipu_versions_are_rejected(version):
    with pytest.raises(poplar.invalid_machine_model, match=f"Unknown IPU version '{version}'"):
        poplar.IPUModel(version)


def test_a_model_without_tiles_cannot_make_a_device():
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 0
    with pytest.raises(poplar.invalid_machine_model, match="tilesPerIPU=0"):
        model.createDevice()


def test_a_model_with_more_tiles_than_the_emulator_keeps_cannot_make_a_device():
    # 2^31 x 2 tiles wrapped to 0 (SIGFPE mapping a tensor); 2^31 tiles needed 16 GB of per-tile state.
    model = poplar.IPUModel("ipu2")
    model.numIPUs, model.tilesPerIPU = 2, 2**31
    with pytest.raises(poplar.invalid_machine_model, match="numIPUs=2 x tilesPerIPU=2147483648 is more than 1048576"):
        model.createDevice()
    with pytest.raises(poplar.invalid_machine_model, match="too many tiles"):
        poplar.Target.createIPUTarget(2**31, 2**31, "ipu2")


def test_ipu_and_cpu_targets():
    ipu = poplar.Target.createIPUTarget(2, 8, "ipu21")
    assert ipu.getTargetType() == poplar.TargetType.IPU
    assert (ipu.getNumIPUs(), ipu.getTilesPerIPU(), ipu.getNumTiles()) == (2, 8, 16)
    assert poplar.Target.createIPUTarget("ipu1").getNumTiles() == 1216
    cpu = poplar.Device.createCPUDevice().getTarget()
    assert cpu.getTargetType() == poplar.TargetType.CPU
    assert cpu.getNumTiles() == 1


def test_virtual_devices_keep_every_figure_but_the_tile_count():
    model = poplar.IPUModel("ipu1")
    model.tilesPerIPU = 8
    model.memoryBytesPerTile = 5000
    device = model.createDevice()
    virtual = device.createVirtualDevice(2).getTarget()
    assert (virtual.getTilesPerIPU(), virtual.getBytesPerTile()) == (2, 5000)
    assert virtual.getTargetArchString() == "ipu1"
    assert virtual.getTileClockFrequency() == device.getTarget().getTileClockFrequency()
    assert poplar.Device.createCPUDevice().createVirtualDevice(1).getTarget().getNumTiles() == 1
    with pytest.raises(poplar.poplar_error, match="1..8"):
        device.createVirtualDevice(9)


def test_device_manager_has_no_hardware():
    manager = poplar.DeviceManager.createDeviceManager()
    assert manager.getDevices() == []
    assert manager.getDevices(poplar.TargetType.IPU, 1) == []
    assert manager.getNumDevices() == 0
    with pytest.raises(poplar.poplar_error, match="getDevice: no hardware device with id 3"):
        manager.getDevice(3)
    with pytest.raises(poplar.poplar_error, match="getChildDeviceIds: no hardware device with id 0"):
        manager.getChildDeviceIds(0)
    with pytest.raises(poplar.poplar_error, match="only IPU devices are enumerated, not IPU_MODEL"):
        manager.getDevices(poplar.TargetType.IPU_MODEL, 1)
    with pytest.raises(poplar.poplar_error, match="requiredNumIPUs must be at least 1"):
        manager.getDevices(poplar.TargetType.IPU, 0)


def test_device_attach_is_exclusive_until_detach():
    device = poplar.IPUModel("ipu2").createDevice()
    assert not device.isAttached()
    assert device.attach()
    assert device.isAttached()
    assert not device.attach()  # already attached
    device.detach()
    assert not device.isAttached()
    assert device.attach()


def test_devices_have_distinct_ids():
    ids = {poplar.IPUModel("ipu2").createDevice().getId() for _ in range(3)}
    assert len(ids) == 3


def test_an_empty_device_says_so():
    with pytest.raises(poplar.poplar_error, match="Device is empty"):
        poplar.Device().getTarget()


TYPE_NAMES = [
    (poplar.BOOL, "bool", np.bool_), (poplar.CHAR, "char", np.int8),
    (poplar.SIGNED_CHAR, "signed char", np.int8), (poplar.UNSIGNED_CHAR, "unsigned char", np.uint8),
    (poplar.SHORT, "short", np.int16), (poplar.UNSIGNED_SHORT, "unsigned short", np.uint16),
    (poplar.INT, "int", np.int32), (poplar.UNSIGNED_INT, "unsigned int", np.uint32),
    (poplar.LONGLONG, "long long", np.int64), (poplar.UNSIGNED_LONGLONG, "unsigned long long", np.uint64),
    (poplar.HALF, "half", np.float16), (poplar.FLOAT, "float", np.float32),
]


@pytest.mark.parametrize("dtype, name, numpy_type", TYPE_NAMES, ids=lambda x: str(x))
def test_type_names_and_numpy_dtypes(dtype, name, numpy_type):
    assert dtype.toString() == name
    assert str(dtype) == name
    assert dtype.numpy_dtype == np.dtype(numpy_type)
    assert dtype.isFloatingPoint() == (numpy_type in (np.float16, np.float32))


def test_type_aliases_are_the_same_type():
    assert poplar.SIGNED_INT == poplar.INT and poplar.SIGNED == poplar.INT
    assert poplar.UNSIGNED == poplar.UNSIGNED_INT and poplar.SIGNED_SHORT == poplar.SHORT
    assert poplar.CHAR != poplar.SIGNED_CHAR  # distinct in C++ as in Poplar
    assert len({poplar.FLOAT, poplar.HALF, poplar.FLOAT}) == 2


def test_read_json_flattens_nested_objects_into_dotted_keys():
    text = '{"debug": {"allowOutOfMemory": true, "trace": false}, "n": 12, "x": -1.5e3, "s": "a\\"b"}'
    assert poplar.readJSON(text) == {
        "debug.allowOutOfMemory": "true", "debug.trace": "false", "n": "12", "x": "-1.5e3", "s": 'a"b'}
    assert poplar.readJSON("  { }  ") == {}


def test_read_json_decodes_string_escapes():
    text = r'{"path": "C:\\reports\/run", "tab": "a\tb\r", "u": "caf\u00e9 \u0041"}'
    assert poplar.readJSON(text) == {"path": "C:\\reports/run", "tab": "a\tb\r", "u": "café A"}
    # A UTF-16 surrogate pair is one code point (it was two invalid UTF-8 sequences).
    assert poplar.readJSON(r'{"emoji": "\ud83d\ude00"}') == {"emoji": "\U0001F600"}


@pytest.mark.parametrize("text, problem", [
    ('{"a": [1]}', "expected a value"),
    ('{"a": 1} trailing', "unexpected text"),
    ('{"a": 1}\x00junk', "unexpected text"),  # a NUL is text too, not the end
    ('{"a": "open', "unterminated string"),
    ('{"a" 1}', "expected ':'"),
    ('{"a": 1,}', "expected '\"'"),
    ('["a"]', "expected '{'"),
    (r'{"a": "\q"}', "invalid escape"),
    (r'{"a": "\u12"}', "invalid \\\\u escape"),
    (r'{"a": "\ud800"}', "unpaired surrogate"),
    (r'{"a": "\ude00\ud83d"}', "unpaired surrogate"),
    # Recursing once per level, 10^5 levels overflowed the stack (SIGSEGV).
    ('{"a": ' * 100000 + "1" + "}" * 100000, "objects nest more than 100 deep"),
])
def test_read_json_rejects_malformed_text(text, problem):
    with pytest.raises(poplar.parse_error, match=problem):
        poplar.readJSON(text)
