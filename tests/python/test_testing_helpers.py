"""popdsl.testing itself: assert_close, tolerance and reference fail when they should and
pass when they should, and the pytest plugin's fixtures give what they promise."""
import importlib.metadata
import math
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close, reference, tolerance

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("dtype, expected", [
    (pd.float32, (1e-5, 1e-6)), (np.float32, (1e-5, 1e-6)), (np.dtype(np.float32), (1e-5, 1e-6)),
    (pd.float16, (1e-2, 1e-3)), (np.float16, (1e-2, 1e-3)),
    (pd.int32, (0.0, 0.0)), (pd.bool_, (0.0, 0.0)), (np.uint8, (0.0, 0.0)), (np.float64, (0.0, 0.0)),
])
def test_tolerance_by_dtype(dtype, expected):
    assert tolerance(dtype) == expected


def test_tolerance_of_a_non_type_is_an_error():
    with pytest.raises(TypeError):
        tolerance("not a dtype")


@pytest.mark.parametrize("dtype, relative_error", [(np.float32, 5e-6), (np.float16, 5e-3)])
def test_assert_close_accepts_errors_within_the_dtypes_tolerance(dtype, relative_error):
    expected = np.array([1.0, -2.0, 300.0])
    assert_close((expected * (1 + relative_error)).astype(dtype), expected)
    assert_close((expected * (1 + relative_error)).astype(dtype), expected, dtype=dtype)


@pytest.mark.parametrize("dtype, relative_error", [(np.float32, 5e-5), (np.float16, 5e-2)])
def test_assert_close_rejects_errors_beyond_the_dtypes_tolerance(dtype, relative_error):
    expected = np.array([1.0, -2.0, 300.0])
    actual = expected.copy()
    actual[2] *= 1 + relative_error  # one element off
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 3"):
        assert_close(actual.astype(dtype), expected)


def test_assert_close_compares_the_result_not_the_reference_with_itself():
    with pytest.raises(AssertionError):
        assert_close(np.zeros(4, np.float32), np.ones(4))
    with pytest.raises(AssertionError):
        assert_close(np.ones(4, np.float32), np.zeros(4))


def test_assert_close_is_exact_for_integers_and_bool():
    assert_close(np.array([1, 2, 3], np.int32), [1, 2, 3])
    assert_close(np.array([True, False]), [1, 0])
    with pytest.raises(AssertionError):
        assert_close(np.array([1, 2, 3], np.int32), [1, 2, 3.0000001])
    with pytest.raises(AssertionError):
        assert_close(np.array([True, True]), [1, 0])


def test_assert_close_explicit_tolerances_override_the_dtypes():
    assert_close(np.float32([1.1]), [1.0], rtol=0.2)
    assert_close(np.float32([1.1]), [1.0], atol=0.2)
    with pytest.raises(AssertionError):
        assert_close(np.float16([1.0]), [1.0005], rtol=0, atol=0)


def test_assert_close_nan_must_be_on_both_sides():
    assert_close(np.float32([1.0, np.nan]), [1.0, np.nan])  # NaN where the reference has NaN
    with pytest.raises(AssertionError, match="nan"):
        assert_close(np.float32([1.0, np.nan]), [1.0, 2.0])
    with pytest.raises(AssertionError, match="nan"):
        assert_close(np.float32([1.0, 2.0]), [1.0, np.nan])
    with pytest.raises(AssertionError):
        assert_close(np.float32([np.inf]), [-np.inf])


@pytest.mark.parametrize("actual_shape, expected_shape", [((3,), (1,)), ((), (3,)), ((2, 3), (3, 2)), ((6,), (2, 3))])
def test_assert_close_rejects_other_shapes(actual_shape, expected_shape):
    message = f"out: the result has shape {actual_shape}, the reference {expected_shape}"
    with pytest.raises(AssertionError, match=f"^{re.escape(message)}$"):
        assert_close(np.ones(actual_shape, np.float32), np.ones(expected_shape), err_msg="out")


def test_assert_close_compares_a_scalar_reference_with_every_element():
    assert_close(np.full((2, 3), 7, np.int32), 7)
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 6"):
        assert_close(np.array([[7, 7, 7], [7, 8, 7]], np.int32), 7)


def test_assert_close_rejects_a_result_of_another_dtype_than_asked():
    assert_close(np.float16([1.0]), [1.0], dtype=pd.float16)
    # Without err_msg the message is the finding alone.
    with pytest.raises(AssertionError, match="^the result has dtype float32, expected float16$"):
        assert_close(np.float32([1.0]), [1.0], dtype=pd.float16)
    with pytest.raises(AssertionError, match="^the result has dtype int32, expected float32$"):
        assert_close(np.int32([1]), [1.0], dtype=np.float32)


@pytest.mark.parametrize("actual", [np.array(["1.0"]), np.array([1.0], dtype=object), np.array([1 + 0j])])
def test_assert_close_rejects_results_that_are_not_real_numbers(actual):
    with pytest.raises(AssertionError, match=f"^y: the result has dtype {re.escape(str(actual.dtype))}, not a number$"):
        assert_close(actual, [1.0], err_msg="y")
    with pytest.raises(AssertionError, match=f"^the result has dtype {re.escape(str(actual.dtype))}, not a number$"):
        assert_close(actual, [1.0])


def test_assert_close_names_the_result_in_its_messages():
    with pytest.raises(AssertionError, match="block 3"):
        assert_close(np.float32([1.0]), [2.0], err_msg="block 3")
    with pytest.raises(AssertionError, match="block 3: the result has shape"):
        assert_close(np.float32([1.0]), [2.0, 1.0], err_msg="block 3")


# Values with closed forms: exp(log 2) = 2, sigmoid(log 3) = 3/4, softmax(0, log 3) = (1/4, 3/4).
@pytest.mark.parametrize("name, args, expected", [
    ("exp", ([0.0, math.log(2.0)],), [1.0, 2.0]),
    ("log", ([1.0, math.e ** 2],), [0.0, 2.0]),
    ("tanh", ([0.0, math.log(3.0)],), [0.0, 0.8]),  # (9 - 1) / (9 + 1)
    ("sigmoid", ([0.0, math.log(3.0), -math.log(3.0)],), [0.5, 0.75, 0.25]),
    ("sqrt", ([0.0, 2.25, 16.0],), [0.0, 1.5, 4.0]),
    ("relu", ([-2.0, -0.0, 3.5],), [0.0, 0.0, 3.5]),
    ("matmul", ([[1.0, 2.0], [3.0, 4.0]], [[5.0], [6.0]]), [[17.0], [39.0]]),
    ("softmax", ([[0.0, math.log(3.0)], [1000.0, 1000.0]],), [[0.25, 0.75], [0.5, 0.5]]),  # no overflow at 1000
])
def test_reference_values(name, args, expected):
    got = reference(name, *args)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=1e-15)


def test_reference_computes_in_float64_whatever_the_inputs_dtype():
    # In float16 exp(10) rounds to 22032; the float64 reference is exact to ~1e-16.
    assert reference("exp", np.float16([10.0]))[0] == pytest.approx(math.exp(10.0), rel=1e-15)
    assert reference("sigmoid", np.float32([-700.0]))[0] == pytest.approx(math.exp(-700.0), rel=1e-12)


def test_reference_of_an_unknown_name_lists_the_known_ones():
    with pytest.raises(KeyError, match=r"no reference for 'gelu'; known: \['exp', 'log', 'matmul'"):
        reference("gelu", [1.0])


PLUGIN_TESTS = '''
import numpy as np
import pytest
import popdsl as pd
from popdsl.testing import assert_close


def test_default_device_has_four_tiles(ipu_device):
    assert ipu_device.getTarget().getNumTiles() == 4


@pytest.mark.ipu_tiles(8)
def test_marked_device_has_eight_tiles(ipu_device):
    assert ipu_device.getTarget().getNumTiles() == 8


def _doubled(session_factory, ipu_device, values, options=None):
    g = pd.Graph(ipu_device)
    x = g.variable(pd.float32, (3,), name="x")
    with pd.Sequence() as main:
        x *= 2.0
    with session_factory(g, main, options=options) as s:
        assert s.device is ipu_device
        s.write(x, values)
        s.run()
        return s.read(x)


def test_session_factory_runs_right(ipu_device, session_factory):
    assert_close(_doubled(session_factory, ipu_device, [1.0, 2.0, 3.0]), [2.0, 4.0, 6.0])


def test_session_factory_passes_options(ipu_device, session_factory):
    _doubled(session_factory, ipu_device, [1.0, 2.0, 3.0], options={"no such option": "1"})


def test_wrong_result_fails(ipu_device, session_factory):
    assert_close(_doubled(session_factory, ipu_device, [1.0, 2.0, 3.0]), [2.0, 4.0, 6.001])
'''


def test_plugin_fixtures_in_a_pytest_run(tmp_path):
    """The plugin loaded as pytest loads it (-p, as the entry point does): its marker is
    registered, its fixtures make devices and sessions, and a wrong result fails the test."""
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(PLUGIN_TESTS))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPOSITORY), os.environ.get("PYTHONPATH", "")]))
    # pip-installed, the entry point loads it already (loading it twice is an error)
    installed = any(e.value == "popdsl.testing.plugin" for e in importlib.metadata.entry_points(group="pytest11"))
    load = [] if installed else ["-p", "popdsl.testing.plugin"]
    run = subprocess.run([sys.executable, "-m", "pytest", *load, "-p", "no:cacheprovider",
                          "--strict-markers", "-rA", "-q", "test_inner.py"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    outcomes = {line.split()[1].split("::")[1]: line.split()[0]
                for line in run.stdout.splitlines() if line.startswith(("PASSED", "FAILED", "ERROR"))}
    assert outcomes == {
        "test_default_device_has_four_tiles": "PASSED", "test_marked_device_has_eight_tiles": "PASSED",
        "test_session_factory_runs_right": "PASSED", "test_session_factory_passes_options": "FAILED",
        "test_wrong_result_fails": "FAILED"}, run.stdout + run.stderr
    assert "invalid_option" in run.stdout and "no such option" in run.stdout
    assert "Mismatched elements: 1 / 3" in run.stdout
