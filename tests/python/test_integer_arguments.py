"""A Python int outside the range of the C++ integer a raw binding takes is refused with a
ValueError naming the function, the argument (or the list element), the range and the
value, in every namespace; never with pybind11's list of signatures. The bound of each
range is the C++ type's, written out here."""
import re

import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar, poplin, popnn, popops, poputil, program

UINT32 = r"\[0, 4294967295\] \(C\+\+ unsigned int\)"
UINT64 = r"\[0, 18446744073709551615\] \(C\+\+ unsigned long\)"
INT32 = r"\[-2147483648, 2147483647\] \(C\+\+ int\)"


@pytest.fixture(scope="module")
def graph():
    g = poplar.Graph(poplar.IPUModel().createDevice().getTarget())
    popops.addCodelets(g)
    return g


@pytest.fixture(scope="module")
def x(graph):
    t = graph.addVariable(poplar.FLOAT, [2, 3], "x")
    graph.setTileMapping(t, 0)
    return t


CASES = [
    # (the call, its function, the argument, the range, the value shown)
    (lambda g, x: program.Repeat(2**62, program.Sequence()), r"program\.Repeat\(\)", "count", UINT32,
     "4611686018427387904"),
    (lambda g, x: program.Repeat(-1, program.Sequence()), r"program\.Repeat\(\)", "count", UINT32, "-1"),
    (lambda g, x: program.Repeat(count=2**32, body=program.Sequence()), r"program\.Repeat\(\)", "count", UINT32,
     "4294967296"),
    (lambda g, x: x.broadcast(2**62, 0), r"Tensor\.broadcast\(\)", "N", UINT32, "4611686018427387904"),
    (lambda g, x: x.upsample(2**40, 0, poplar.UpsampleMethod.REPEAT), r"Tensor\.upsample\(\)", "scale", UINT32,
     "1099511627776"),
    (lambda g, x: x.subSample(2**63, 1), r"Tensor\.subSample\(\)", "stride", UINT32, "9223372036854775808"),
    (lambda g, x: x.slice(0, 1, np.uint64(2**63)), r"Tensor\.slice\(\)", "dimension", UINT32,
     "np.uint64(9223372036854775808)"),
    (lambda g, x: g.addVariable(poplar.FLOAT, [2, 2**64], "huge"), r"Graph\.addVariable\(\)", r"shape\[1\]", UINT64,
     "18446744073709551616"),
    (lambda g, x: g.setTileMapping(x, 2**40), r"Graph\.setTileMapping\(\)", "tileNum", UINT32, "1099511627776"),
    (lambda g, x: poputil.mapTensorLinearly(g, x, 1, 2**33), r"poputil\.mapTensorLinearly\(\)", "grainSize",
     UINT32, "8589934592"),
    (lambda g, x: popops.dynamicSlice(g, x, g.addVariable(poplar.UNSIGNED_INT, [1], "i"), [0], [2**64],
                                      program.Sequence()),
     r"popops\.dynamicSlice\(\)", r"sizes\[0\]", UINT64, "18446744073709551616"),
    (lambda g, x: popnn.pooling.PoolParams(popnn.PoolingType.MAX, [4, 4], [2, 2], [1, 1], [2**31, 0], [0, 0], 1, 1,
                                           poplar.FLOAT),
     r"popnn\.pooling\.PoolParams\(\)", r"inputTruncationOrPaddingLower\[0\]", INT32, "2147483648"),
]


@pytest.mark.parametrize("call, function, argument, bounds, shown", CASES,
                         ids=[c[2].replace("\\", "") + "-" + c[4][:6] for c in CASES])
def test_an_int_out_of_range_names_the_function_argument_and_range(graph, x, call, function, argument, bounds, shown):
    with pytest.raises(ValueError) as raised:
        call(graph, x)
    message = str(raised.value)
    expected = f"({function}): argument '{argument}' must be an integer in {bounds}, got {re.escape(shown)}$"
    assert re.match(expected, message), message
    assert "incompatible" not in message and "Invoked with" not in message


def test_a_property_setter_and_a_nested_list_element_are_named(graph):
    model = poplar.IPUModel()
    with pytest.raises(ValueError, match=f"^IPUModel\\.tilesPerIPU: the value must be an integer in {UINT32}, "
                                         f"got 1099511627776$"):
        model.tilesPerIPU = 2**40
    control = graph.addVariable(poplar.UNSIGNED_INT, [], "control")
    with pytest.raises(ValueError, match=rf"^program\.Switch\(\): argument 'cases\[1\]\[0\]' must be an integer in "
                                         rf"{INT32}, got -2147483649$"):
        program.Switch(control, [(0, program.Sequence()), (-2**31 - 1, program.Sequence())])


def test_poplin_names_its_arguments_too(graph):
    with pytest.raises(ValueError, match=r"poplin\.linspace\(\): argument 'count' must be an integer in \[0, "):
        poplin.linspace(graph, poplar.FLOAT, 0.0, 1.0, 2**64)


def test_ints_in_range_and_other_overloads_still_work(graph, x):
    # The caster only names what pybind11 already refused: ints in range pass, and an int
    # too big for one overload still reaches another that takes it (a float constant).
    assert program.Repeat(2**32 - 1, program.Sequence()) is not None
    assert x.broadcast(np.int64(2), 0).shape() == [4, 3]
    c = graph.addConstant(poplar.FLOAT, [1], 2**62, "big")
    assert c.shape() == [1]


def test_a_wrong_type_still_gets_pybind11s_message(x):
    # Only integers out of range are named here: a str is a different mistake.
    with pytest.raises(TypeError, match="incompatible function arguments"):
        x.broadcast("2", 0)


def test_a_step_longer_than_the_dimension_takes_the_first_element_as_numpy():
    g = pd.Graph(pd.ipu_model(tiles=4))
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = g.constant(values, name="t")
    with pd.Sequence("main") as main:
        forward = t[::2**63] + 0
        backward = t[:, ::-2**63] + 0
    with pd.Session(g, main) as s:
        s.run()
        np.testing.assert_array_equal(s.read(forward), values[:1])  # rows 0, 2**63, ...: the first only
        np.testing.assert_array_equal(s.read(backward), values[:, 3:])  # from the last column back
