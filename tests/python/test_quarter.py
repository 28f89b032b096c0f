"""Quarter (fp8) elements: poplar/Quarter.hpp's QuarterMetadata, the QuarterMetadata
overloads of poplar/TypeConversion.hpp, poplar/MetadataCreation.hpp and quarter
variables' metadata, through tests/cpp/quarter_api.cpp built against the SDK-shaped
prefix. The conversions are checked against a float64 numpy model of the two formats:
every code decoded, and values rounded to the nearest code with ties to the even code."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cpp_build import build_program, compiler

PROGRAM = Path(__file__).resolve().parent.parent / "cpp" / "quarter_api.cpp"
# (exponent bits, mantissa bits, exponent bias) of each format.
FORMATS = {"F143": (4, 3, 8), "F152": (5, 2, 16)}
METADATA = [("F143", 0), ("F143", -3), ("F143", 31), ("F152", 0), ("F152", 5), ("F152", -32)]
NAN_CODE = 0x80


def positive_values(name):
    """The values of codes 0..127 of a format at scale 0: subnormals, then normals."""
    exponent_bits, mantissa_bits, bias = FORMATS[name]
    codes = np.arange(128)
    exponent, mantissa = codes >> mantissa_bits, codes & ((1 << mantissa_bits) - 1)
    fraction = mantissa / 2.0 ** mantissa_bits
    return np.where(exponent == 0, fraction * 2.0 ** (1 - bias), (1 + fraction) * 2.0 ** (exponent - bias))


def decoded(name, scale):
    """The value of every code 0..255 under (format, scale); 0x80 is NaN."""
    values = positive_values(name) * 2.0 ** scale
    return np.concatenate([values, np.concatenate([[np.nan], -values[1:]])])


def encoded(values, name, scale, nan_on_overflow):
    """The nearest code to each value (ties to the even code), by search over the codes."""
    table = positive_values(name)
    top = table[-1] + (table[-1] - table[-2]) / 2  # from here on a value rounds past the largest
    with np.errstate(over="ignore"):  # unscaling the largest doubles overflows: that is an overflow too
        magnitude = np.abs(values) / 2.0 ** scale
    above = np.clip(np.searchsorted(table, magnitude), 1, 127)
    below = above - 1
    distance_below, distance_above = magnitude - table[below], table[above] - magnitude
    tie = distance_below == distance_above
    codes = np.where(distance_below < distance_above, below, above)
    codes = np.where(tie, np.where(below % 2 == 0, below, above), codes)
    codes = np.where(magnitude <= table[0], 0, codes)
    overflow = magnitude >= top
    codes = np.where(overflow, NAN_CODE if nan_on_overflow else 127, codes)
    negative = (values < 0) & (codes != 0) & ~(overflow & nan_on_overflow)
    codes = np.where(negative, codes | 0x80, codes)
    return np.where(np.isfinite(values), codes, NAN_CODE).astype(np.uint8)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """(the program's "label: value" lines, its work directory, the inputs it converted)."""
    compiler()
    work = tmp_path_factory.mktemp("quarter")
    exe = build_program(work, PROGRAM.read_text(), std="c++14", strict=True)
    rng = np.random.default_rng(0)
    pieces = [np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 2.0 ** -200])]
    for name, scale in METADATA:
        values = decoded(name, scale)[:128]
        midpoints = (values[:-1] + values[1:]) / 2  # ties between neighbours
        top = values[-1] + (values[-1] - values[-2]) / 2
        near = np.concatenate([values, midpoints, [top]])
        pieces += [near, -near, near * (1 + 2.0 ** -30), near * (1 - 2.0 ** -30), -near * (1 + 2.0 ** -30)]
    randoms = rng.standard_normal(20000) * 2.0 ** rng.integers(-60, 50, 20000)
    inputs = np.concatenate(pieces + [randoms])
    inputs.tofile(work / "inputs")
    result = subprocess.run([str(exe), str(work)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(line.split(": ", 1) for line in result.stdout.splitlines()), work, inputs


@pytest.mark.parametrize("name, scale", METADATA)
def test_quarter_codes_decode_and_values_round_to_nearest_even(ran, name, scale):
    """quarter_api: convertFromDeviceType of every code and convertToDeviceType of the inputs
    (from doubles, NaN on overflow or saturating, and from floats) under QuarterMetadata."""
    _, work, inputs = ran
    label = f"{name}_{scale}"
    np.testing.assert_array_equal(np.fromfile(work / f"decoded_{label}", np.float64), decoded(name, scale))
    np.testing.assert_array_equal(np.fromfile(work / f"decoded_floats_{label}", np.float32),
                                  decoded(name, scale).astype(np.float32))
    with np.errstate(over="ignore"):
        floats = inputs.astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(np.fromfile(work / f"nan_{label}", np.uint8), encoded(inputs, name, scale, True))
    np.testing.assert_array_equal(np.fromfile(work / f"saturated_{label}", np.uint8),
                                  encoded(inputs, name, scale, False))
    np.testing.assert_array_equal(np.fromfile(work / f"from_floats_{label}", np.uint8),
                                  encoded(floats, name, scale, True))


def test_the_formats_ranges_are_the_documented_ones():
    # F143 spans 2^-10 to 240, F152 2^-17 to 57344 (1.75 * 2^15), before scaling.
    assert positive_values("F143")[1] == 2.0 ** -10 and positive_values("F143")[-1] == 240
    assert positive_values("F152")[1] == 2.0 ** -17 and positive_values("F152")[-1] == 57344


def test_quarter_metadata_compares_prints_and_checks_its_scale(ran):
    """quarter_api: QuarterMetadata's constructors, getFormat, getScale, toString, ==, != and <<."""
    out, _, _ = ran
    # The default (F143, 0), toString, getFormat/getScale, == and != .
    assert out["metadata"] == "F143 scale 0, F152 scale -7, 10 110"
    assert out["scale 32"] == "QuarterMetadata: scale 32 is outside [-32, 31]"
    # QuarterMetadata(uint8_t): bit 7 the format, bits 0-5 the scale in two's complement.
    assert out["from bytes"] == "F152 scale -2, F143 scale 5"
    # F152 codes 0x3a (exponent 14, mantissa 2: 1.5 * 2^-2) and 0xae (-(1 + 2/4) * 2^-5), times 2^1.
    assert out["halves"] == f"{1.5 * 2.0 ** -2 * 2:g} {-1.5 * 2.0 ** -5 * 2:g}"
    assert out["from vector"] == f"{np.float32(0.1):g} -3"
    assert out["half with metadata"] == "convertToDeviceType: the QuarterMetadata overload converts quarter, not half"
    assert out["float from metadata"] == (
        "convertFromDeviceType: the QuarterMetadata overload converts quarter, not float")


def test_quarter_variables_share_or_own_their_metadata_tensor(ran):
    """quarter_api: createConstantMetadataTensor, createVariableMetadataTensor (poplar's and
    poputil's), the metadata
    overloads of Graph::addVariable, Tensor::getMetadata and hasMetadata."""
    out, _, _ = ran
    # hasMetadata of: with a constant, a variable (LINEAR), none given (own), a null pointer,
    # a pointer; a float; the quarter tensor reinterpreted as unsigned char.
    assert out["has metadata"] == "1111100"
    # getMetadata of the tensor and of a view is the tensor given; the ones made for
    # quarter variables without one are distinct, one element, mapped to a tile.
    assert out["shared metadata"] == "11110 [1] quarter_metadata 1"
    assert out["metadata of float"].startswith("getMetadata: tensor ")
    assert out["metadata of float"].endswith(" has no metadata")
    assert out["float with metadata"] == "addVariable 'f': a metadata tensor is for quarter types, not float"
    assert out["metadata of wrong type"].startswith(
        "addVariable 'w': the metadata must be one quarter_metadata element, not ")
    assert "belongs to a different graph" in out["metadata of another graph"]
    assert out["metadata scale 40"] == "quarter metadata: scale 40 is outside [-32, 31]"
    # F152 (bit 7) with scale -2 (62 in 6 bits), and F143 with scale 5; poputil's: F143
    # with scale -3 (61), a constant, and F152 with scale 4, a variable.
    assert out["metadata bytes"] == f"{0x80 | 62} 5 61 {0x80 | 4}"
    assert out["util metadata kinds"] == "10"
