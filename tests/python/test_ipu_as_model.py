"""POPDSL_IPU_AS_MODEL: IPU device requests answered with IPUModel-backed devices of an
emulated 16-IPU system (docs/porting.rst), from C++ (tests/cpp/ipu_as_model.cpp, a
program written for hardware) and from Python."""
import os

import pytest

from cpp_build import run_labelled_program
from popdsl import poplar

IPU = poplar.TargetType.IPU


@pytest.fixture(scope="module")
def hardware_program(tmp_path_factory):
    """Runs tests/cpp/ipu_as_model.cpp with POPDSL_IPU_AS_MODEL set to a value (None: unset)."""
    work = tmp_path_factory.mktemp("ipu_as_model")

    def run(value):
        env = {k: v for k, v in os.environ.items() if k != "POPDSL_IPU_AS_MODEL"}
        if value is not None:
            env["POPDSL_IPU_AS_MODEL"] = value
        return run_labelled_program(work, "ipu_as_model", env=env)
    return run


@pytest.mark.parametrize("value", [None, "", "0"])
def test_off_by_default_finds_no_ipus(hardware_program, value):
    out, err = hardware_program(value)
    assert out == {"devices": "0 0", "acquired": "none"}
    assert err == ""


def test_hardware_program_runs_on_ipu_models(hardware_program):
    out, err = hardware_program("1")
    # 16 single-IPU devices of the 31 a POD16 lists; the first is taken, an ipu2 model of
    # one IPU with all 1472 tiles.
    assert out["devices"] == "16 31"
    assert out["acquired"] == "id 0, IPU_MODEL ipu2, IPUs 1, tiles 1472"
    # Pair 16 holds IPU 0 (attached): it cannot attach; pair 17 (IPUs 2-3) can.
    assert out["pairs"] == "8, first attaches 0, second attaches 1, second id 17"
    assert out["children of 30"] == "2 29"
    assert out["device 99"].startswith("DeviceManager::getDevice: no device with id 99: the emulated system")
    assert out["doubled"] == "2 4 6 9"
    assert out["reattached"] == "1"
    assert err.count("\n") == 1 and "POPDSL_IPU_AS_MODEL=1" in err and 'IPUModel("ipu2")' in err


def test_version_is_chosen_by_the_value(hardware_program):
    out, err = hardware_program("ipu21")
    assert out["acquired"] == "id 0, IPU_MODEL ipu21, IPUs 1, tiles 1472"
    assert 'IPUModel("ipu21")' in err


def test_from_python(monkeypatch):
    monkeypatch.setenv("POPDSL_IPU_AS_MODEL", "1")
    manager = poplar.DeviceManager()
    quads = manager.getDevices(IPU, 4)
    assert [d.getId() for d in quads] == [24, 25, 26, 27]
    assert [d.getTarget().getNumIPUs() for d in quads] == [4] * 4
    assert manager.getDevices(IPU, 3) == []  # no device of three IPUs, as on a POD
    assert manager.getChildDeviceIds(24) == [0, 1, 2, 3]
    assert manager.getChildDeviceIds(28, 2) == [16, 17, 18, 19]
    assert quads[1].attach() and not manager.getDevice(5).attach() and manager.getDevice(8).attach()
    quads[1].detach()
    assert manager.getDevice(5).attach()
    with pytest.raises(poplar.poplar_error, match="device 1 of 1 IPU.* has no child devices of 2"):
        manager.getChildDeviceIds(1, 2)


def test_bad_value_is_named(monkeypatch):
    monkeypatch.setenv("POPDSL_IPU_AS_MODEL", "yes")
    with pytest.raises(poplar.poplar_error, match="POPDSL_IPU_AS_MODEL='yes' is not one of 0, 1, ipu1, ipu2, ipu21"):
        poplar.DeviceManager.createDeviceManager().getDevices(IPU, 1)
