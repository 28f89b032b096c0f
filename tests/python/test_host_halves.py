"""poplar/IeeeHalf.hpp and poplar/TypeConversion.hpp against numpy's float16, through
tests/cpp/host_halves.cpp built against the SDK-shaped prefix: floats and doubles round
to half once, to nearest with ties to even (subnormals, overflow to infinity), and every
half widens exactly."""
import subprocess
from pathlib import Path

import numpy as np

from cpp_build import build_program, compiler

PROGRAM = Path(__file__).resolve().parent.parent / "cpp" / "host_halves.cpp"


def test_host_halves_round_to_nearest_even_and_widen_exactly(tmp_path):
    compiler()
    exe = build_program(tmp_path, PROGRAM.read_text(), std="c++11", strict=True)
    rng = np.random.default_rng(0)
    every_half = np.arange(65536, dtype=np.uint16).view(np.float16)
    finite = np.unique(every_half[np.isfinite(every_half)].astype(np.float64))
    # Exact halves, the midpoints between neighbours (ties), values just off them,
    # random values over half's range and beyond, and the edges of overflow and underflow.
    midpoints = (finite[:-1] + finite[1:]) / 2
    edges = np.array([65504, 65519.99, 65520, 1e6, -1e6, np.inf, -np.inf, 2.0 ** -25, 2.0 ** -24, 3e-8])
    randoms = rng.standard_normal(20000) * 2.0 ** rng.integers(-30, 20, 20000)
    floats = np.concatenate([finite, midpoints, randoms, edges]).astype(np.float32)
    floats = np.concatenate([floats, np.nextafter(floats, np.float32(np.inf)), np.nextafter(floats, np.float32(-np.inf))])
    # Doubles just off a tie round away from it; through float they would become the tie.
    doubles = np.concatenate([finite, midpoints, midpoints + 2.0 ** -40 * np.abs(midpoints),
                              midpoints - 2.0 ** -40 * np.abs(midpoints), randoms, edges])
    floats.tofile(tmp_path / "floats")
    doubles.tofile(tmp_path / "doubles")
    result = subprocess.run([str(exe), str(tmp_path)], capture_output=True, text=True, check=True, timeout=60)

    def read(name, dtype):
        return np.fromfile(tmp_path / name, dtype)

    with np.errstate(over="ignore"):  # overflowing to infinity is part of what is checked
        expected_from_floats = floats.astype(np.float16).view(np.uint16)
        expected_from_doubles = doubles.astype(np.float16)
        through_float = doubles.astype(np.float32).astype(np.float16)
    np.testing.assert_array_equal(read("ieee_bits", np.uint16), expected_from_floats)
    np.testing.assert_array_equal(read("float_bits", np.uint16), expected_from_floats)
    np.testing.assert_array_equal(read("double_bits", np.uint16), expected_from_doubles.view(np.uint16))
    assert np.any(through_float != expected_from_doubles)  # the doubles off ties matter
    np.testing.assert_array_equal(read("widened", np.float32), every_half.astype(np.float32))  # NaN == NaN here
    np.testing.assert_array_equal(read("wide_doubles", np.float64), every_half.astype(np.float64))

    out = dict(line.split(": ", 1) for line in result.stdout.splitlines())
    # (isqNaN issNaN isNaN isInf isNorm isZero) of qNaN, sNaN, inf, 1, smallest subnormal, -0.
    assert out["queries"] == "101000 011000 000100 000010 000000 000001"
    assert out["accumulate"] == f"1 {float(np.float16(1) + np.float16(0.0005)):g} 0.25"
    # 3 + 0.5, 3 - 4, 3 * 1e5 (past half's range), 3 / 2, -3; then < > <= >= == != with
    # floats and halves, -0 == 0, NaN == NaN.
    assert out["operators"] == "3.5 -1 inf 1.5 -3 1010101010"
    # 2.9, -2.9, 3e9, -3e9 through device INT to host int and IeeeHalf, and device FLOAT to
    # host unsigned: truncated towards zero and saturated.
    assert out["integers"] == "2/2/2 -2/-2/0 2147483647/inf/3000000000 -2147483648/-inf/0"
    assert out["quarter"] == "convertToDeviceType: quarter needs quarter metadata"
    assert out["double"] == "convertFromDeviceType: type 'double' has no device representation"
