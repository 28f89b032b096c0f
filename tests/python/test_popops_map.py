"""popops.expr and the map family against float64 numpy references."""
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import popdsl
from popdsl import poplar, popops, poputil
from popdsl.popops import expr as pe
from raw_runner import Runner

DTYPES = {
    poplar.FLOAT: np.float32, poplar.HALF: np.float16, poplar.INT: np.int32,
    poplar.UNSIGNED_INT: np.uint32, poplar.SHORT: np.int16, poplar.UNSIGNED_SHORT: np.uint16,
    poplar.CHAR: np.int8, poplar.UNSIGNED_CHAR: np.uint8, poplar.BOOL: np.bool_,
}
TOLERANCE = {poplar.FLOAT: 2e-6, poplar.HALF: 2e-3}


def run_map(expression, inputs, types):
    r = Runner()
    ts = [r.tensor(x, t, f"in{i}") for i, (x, t) in enumerate(zip(inputs, types))]
    out = popops.map(r.graph, expression, ts, r.prog, "map")
    return out, r.run(out)[0]


def assert_matches(got, want, ptype):
    want = np.asarray(want, np.float64)
    if ptype in TOLERANCE:
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=TOLERANCE[ptype], atol=TOLERANCE[ptype])
    else:
        np.testing.assert_array_equal(got, want.astype(got.dtype))


rng = np.random.default_rng(0)
FLOAT_UNARY = [
    (pe.Exp, np.exp, (-3, 3)), (pe.Log, np.log, (0.1, 5)), (pe.Tanh, np.tanh, (-3, 3)),
    (pe.Sigmoid, lambda x: 1 / (1 + np.exp(-x)), (-5, 5)), (pe.Sqrt, np.sqrt, (0, 9)),
    (pe.Rsqrt, lambda x: 1 / np.sqrt(x), (0.5, 9)), (pe.Abs, np.abs, (-3, 3)), (pe.Neg, np.negative, (-3, 3)),
    (pe.Square, np.square, (-3, 3)), (pe.Sin, np.sin, (-3, 3)), (pe.Cos, np.cos, (-3, 3)),
    (pe.Floor, np.floor, (-3, 3)), (pe.Ceil, np.ceil, (-3, 3)), (pe.Inv, lambda x: 1 / x, (0.5, 4)),
    (pe.Log1p, np.log1p, (0, 3)), (pe.Expm1, np.expm1, (-2, 2)), (pe.Signum, np.sign, (-3, 3)),
    (pe.Erf, lambda x: np.vectorize(math.erf)(x), (-2, 2)), (pe.Asin, np.arcsin, (-0.9, 0.9)),
    (pe.Cbrt, np.cbrt, (-8, 8)), (pe.Exp2, np.exp2, (-3, 3)), (pe.Trunc, np.trunc, (-3, 3)),
    (pe.Tan, np.tan, (-1, 1)),
    (pe.GeluErf, lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / np.sqrt(2))), (-3, 3)),
]


@pytest.mark.parametrize("ptype", [poplar.FLOAT, poplar.HALF])
@pytest.mark.parametrize("op,reference,domain", FLOAT_UNARY, ids=[f[1].__name__ if hasattr(f[1], "__name__") else str(i) for i, f in enumerate(FLOAT_UNARY)])
def test_float_unary_ops(op, reference, domain, ptype):
    x = rng.uniform(*domain, size=(5, 7)).astype(DTYPES[ptype])
    out, got = run_map(op(pe._1), [x], [ptype])
    assert out.elementType() == ptype
    assert_matches(got, reference(x.astype(np.float64)), ptype)


def test_relu_and_is_checks():
    x = np.array([-1.5, 0.0, 2.0, np.inf, -np.inf, np.nan], np.float32)
    _, relu = run_map(pe.UnaryOp(pe.UnaryOpType.RELU, pe._1), [x[:3]], [poplar.FLOAT])
    np.testing.assert_array_equal(relu, [0, 0, 2])
    for op, ref in [(pe.IsFinite, np.isfinite), (pe.IsInf, np.isinf), (pe.IsNaN, np.isnan)]:
        out, got = run_map(op(pe._1), [x], [poplar.FLOAT])
        assert out.elementType() == poplar.BOOL
        np.testing.assert_array_equal(got, ref(x))


INT_TYPES = [poplar.INT, poplar.UNSIGNED_INT, poplar.SHORT, poplar.UNSIGNED_SHORT, poplar.CHAR, poplar.UNSIGNED_CHAR]
ARITHMETIC = [
    (lambda a, b: a + b, np.add), (lambda a, b: a - b, np.subtract), (lambda a, b: a * b, np.multiply),
    (pe.Max, np.maximum), (pe.Min, np.minimum),
]


@pytest.mark.parametrize("ptype", [poplar.FLOAT, poplar.HALF] + INT_TYPES)
@pytest.mark.parametrize("op,reference", ARITHMETIC)
def test_binary_arithmetic_every_type(op, reference, ptype):
    dtype = DTYPES[ptype]
    a = rng.integers(1, 10, size=(4, 3)).astype(dtype)
    b = rng.integers(1, 10, size=(4, 3)).astype(dtype)
    out, got = run_map(op(pe._1, pe._2), [a, b], [ptype, ptype])
    assert out.elementType() == ptype
    want = reference(a.astype(np.int64), b.astype(np.int64))
    assert_matches(got, want if ptype in TOLERANCE else want.astype(dtype), ptype)


@pytest.mark.parametrize("ptype", [poplar.INT, poplar.UNSIGNED_INT])
def test_integer_division_truncates_like_c(ptype):
    a = np.array([7, 9, 100, 5], DTYPES[ptype]) if ptype == poplar.UNSIGNED_INT else np.array([7, -7, 9, -9], np.int32)
    b = np.array([2, 2, 4, 3], DTYPES[ptype])
    _, quotient = run_map(pe._1 / pe._2, [a, b], [ptype, ptype])
    _, remainder = run_map(pe._1 % pe._2, [a, b], [ptype, ptype])
    want_q = np.trunc(a.astype(np.float64) / b).astype(np.int64)
    np.testing.assert_array_equal(quotient, want_q)
    np.testing.assert_array_equal(remainder, a.astype(np.int64) - want_q * b)


def test_float_division_power_atan2_and_fmod():
    a = rng.uniform(0.5, 3, size=8).astype(np.float32)
    b = rng.uniform(0.5, 3, size=8).astype(np.float32)
    for e, ref in [(pe._1 / pe._2, a / b.astype(np.float64)), (pe.Pow(pe._1, pe._2), np.power(a, b.astype(np.float64))),
                   (pe.Atan2(pe._1, pe._2), np.arctan2(a, b.astype(np.float64))),
                   (pe._1 % pe._2, np.fmod(a, b.astype(np.float64)))]:
        _, got = run_map(e, [a, b], [poplar.FLOAT, poplar.FLOAT])
        np.testing.assert_allclose(got, ref, rtol=2e-6)


def test_comparisons_and_logic_give_bool():
    a = np.array([1, 2, 3, 4], np.int32)
    b = np.array([4, 2, 1, 4], np.int32)
    for e, ref in [(pe._1 == pe._2, a == b), (pe._1 != pe._2, a != b), (pe._1 < pe._2, a < b),
                   (pe._1 <= pe._2, a <= b), (pe._1 > pe._2, a > b), (pe._1 >= pe._2, a >= b)]:
        out, got = run_map(e, [a, b], [poplar.INT, poplar.INT])
        assert out.elementType() == poplar.BOOL
        np.testing.assert_array_equal(got, ref)
    p = np.array([True, True, False, False])
    q = np.array([True, False, True, False])
    for e, ref in [(pe.And(pe._1, pe._2), p & q), (pe.Or(pe._1, pe._2), p | q), (pe.Not(pe._1), ~p)]:
        _, got = run_map(e, [p, q], [poplar.BOOL, poplar.BOOL])
        np.testing.assert_array_equal(got, ref)


def test_bitwise_and_shifts_on_integers():
    a = np.array([0b1100, -8, 255, 1], np.int32)
    b = np.array([0b1010, 1, 4, 31], np.int32)
    cases = [(pe._1 & pe._2, a & b), (pe._1 | pe._2, a | b), (pe._1 ^ pe._2, a ^ b),
             (pe.BitwiseXnor(pe._1, pe._2), ~(a ^ b)), (pe._1 << pe._2, a << b),
             (pe.ShrSE(pe._1, pe._2), a >> b),
             (pe._1 >> pe._2, (a.view(np.uint32) >> b.view(np.uint32)).view(np.int32)), (~pe._1, ~a)]
    for e, ref in cases:
        _, got = run_map(e, [a, b], [poplar.INT, poplar.INT])
        np.testing.assert_array_equal(got, ref)
    u = np.array([1, 0xF0, 0xFFFFFFFF, 0], np.uint32)
    _, pop = run_map(pe.UnaryOp(pe.UnaryOpType.POPCOUNT, pe._1), [u], [poplar.UNSIGNED_INT])
    np.testing.assert_array_equal(pop, [1, 4, 32, 0])
    _, clz = run_map(pe.UnaryOp(pe.UnaryOpType.COUNT_LEADING_ZEROS, pe._1), [u], [poplar.UNSIGNED_INT])
    np.testing.assert_array_equal(clz, [31, 24, 0, 32])


def test_fused_expression_with_constants_broadcasting_and_views():
    a = rng.uniform(-2, 2, size=(6, 4)).astype(np.float32)
    b = rng.uniform(-2, 2, size=(4,)).astype(np.float32)
    r = Runner()
    ta, tb = r.tensor(a, poplar.FLOAT, "a"), r.tensor(b, poplar.FLOAT, "b")
    # Inputs through a transpose and a reversed view, broadcast against a [4] vector.
    view = ta.transpose().reverse(1)
    expression = pe.Exp(pe._1 - pe._2) * 2 + pe.Select(pe._1, pe._2, pe._1 > 0)
    out = popops.map(r.graph, expression, [view, tb.expand([1])], r.prog, "fused")
    (got,) = r.run(out)
    x = a.T[:, ::-1].astype(np.float64)
    y = b.astype(np.float64)[:, None]
    np.testing.assert_allclose(got, np.exp(x - y) * 2 + np.where(x > 0, x, y), rtol=2e-6)


def test_design_example_modulo_in_place_on_unsigned():
    r = Runner()
    t = r.tensor(np.arange(12).reshape(3, 4), poplar.UNSIGNED_INT, "t")
    popops.mapInPlace(r.graph, (pe._1 + 1) % 4, [t], r.prog, "inc")
    (got,) = r.run(t)
    np.testing.assert_array_equal(got, (np.arange(12).reshape(3, 4) + 1) % 4)


def test_constants_take_the_tensor_type_and_half_computes_in_half():
    x = np.ones(4, np.float16)
    out, got = run_map(pe._1 + 1e-4, [x], [poplar.HALF])
    assert out.elementType() == poplar.HALF
    np.testing.assert_array_equal(got, np.float16(1) + np.float16(1e-4))  # 1e-4 is below half's resolution at 1
    out, got = run_map(pe._1 * 3, [np.arange(4, dtype=np.float32)], [poplar.FLOAT])
    np.testing.assert_array_equal(got, np.arange(4) * 3.0)


# A map in half rounds each operation's result to half (eight at a time with F16C where the CPU
# has it), as numpy's float16 arithmetic does: every finite half, bit for bit.
def test_half_map_rounds_each_operation_like_numpy_float16():
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    x = x[np.isfinite(x)]
    _, got = run_map(pe._1 * 3 + 1, [x], [poplar.HALF])
    with np.errstate(over="ignore"):
        want = x * np.float16(3) + np.float16(1)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def test_cast_select_clamp():
    x = np.array([-2.7, -0.5, 0.5, 2.7, 300.0], np.float32)
    out, got = run_map(pe.Cast(pe._1, poplar.INT), [x], [poplar.FLOAT])
    assert out.elementType() == poplar.INT
    np.testing.assert_array_equal(got, np.trunc(x).astype(np.int32))
    _, clamped = run_map(pe.Clamp(pe._1, -1.0, 1.0), [x], [poplar.FLOAT])
    np.testing.assert_array_equal(clamped, np.clip(x, -1, 1))
    _, half = run_map(pe.Cast(pe._1, poplar.HALF), [x], [poplar.FLOAT])
    np.testing.assert_array_equal(half, x.astype(np.float16))


def test_map_with_output_and_named_functions():
    r = Runner()
    a = r.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), poplar.FLOAT, "a")
    b = r.tensor(np.full((2, 3), 2, np.float32), poplar.FLOAT, "b")
    out = r.graph.addVariable(poplar.FLOAT, [2, 3], "out")
    r.graph.setTileMapping(out, 1)
    popops.mapWithOutput(r.graph, pe._1 * pe._2, [a, b], out, r.prog)
    summed = popops.add(r.graph, a, 10.0, r.prog, "plus10")
    popops.subInPlace(r.graph, b, a, r.prog)
    negated = popops.neg(r.graph, a, r.prog)
    popops.expInPlace(r.graph, negated, r.prog)
    got_out, got_sum, got_b, got_exp = r.run(out, summed, b, negated)
    base = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(got_out, base * 2)
    np.testing.assert_array_equal(got_sum, base + 10)
    np.testing.assert_array_equal(got_b, 2 - base)
    np.testing.assert_allclose(got_exp, np.exp(-base), rtol=2e-6)


def test_large_map_is_chunked_correctly():
    a = rng.standard_normal(10_000).astype(np.float32)
    b = rng.standard_normal(10_000).astype(np.float32)
    c = rng.standard_normal(10_000).astype(np.float32)
    r = Runner()
    ts = [r.tensor(x, poplar.FLOAT, n) for x, n in [(a, "a"), (b, "b"), (c, "c")]]
    out = popops.map(r.graph, pe._1 * pe._2 + pe._3, ts, r.prog)
    (got,) = r.run(out)
    np.testing.assert_allclose(got, a.astype(np.float64) * b + c, rtol=1e-5, atol=1e-6)


def test_type_errors_name_the_problem():
    r = Runner()
    f = r.tensor(np.zeros(3, np.float32), poplar.FLOAT, "f")
    i = r.tensor(np.zeros(3, np.int32), poplar.INT, "i")
    with pytest.raises(poputil.poplibs_error, match=r"Inferred type of lhs \(float\) does not match inferred type of rhs \(int\)"):
        popops.map(r.graph, pe._1 + pe._2, [f, i], r.prog)
    with pytest.raises(poputil.poplibs_error, match="Invalid placeholder _3"):
        popops.map(r.graph, pe._3, [f, i], r.prog)
    with pytest.raises(poputil.poplibs_error, match="does not support element type int"):
        popops.map(r.graph, pe.Exp(pe._1), [i], r.prog)
    with pytest.raises(poputil.poplibs_error, match="cannot be broadcast"):
        popops.map(r.graph, pe._1 + pe._2, [f, r.tensor(np.zeros(2, np.float32), poplar.FLOAT, "g")], r.prog)
    with pytest.raises(poputil.poplibs_error, match="must have shape"):
        popops.mapInPlace(r.graph, pe._1 + pe._2, [f.slice(0, 1), f], r.prog)
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'fast'"):
        popops.map(r.graph, pe._1, [f], r.prog, options={"fast": "true"})
    with pytest.raises(RuntimeError, match="Type mismatch between Binary op Tensor and constant"):
        popops.add(r.graph, i, 1.5, r.prog)
    with pytest.raises(TypeError, match="no truth value"):
        bool(pe._1 < 2)


@pytest.mark.parametrize("enum", [pe.UnaryOpType, pe.BinaryOpType, pe.TernaryOpType, popops.Operation])
def test_operation_enums_take_only_their_members(enum):
    # UnaryOpType(2**30) used to index the table of names when the map was built or printed: SIGSEGV.
    assert enum(1) == list(enum.__members__.values())[1]
    with pytest.raises(ValueError, match=f"1073741824 is not a valid {enum.__name__} \\(members: "):
        enum(2**30)
    with pytest.raises(ValueError, match=f"-1 is not a valid {enum.__name__}"):
        enum(-1)


def test_float_exp_is_within_one_ulp_and_keeps_the_special_values():
    # The emulator's float exp is its own vectorized code, not std::exp.
    x = np.concatenate([np.linspace(-110, 95, 20001, dtype=np.float32),
                        np.array([np.inf, -np.inf, np.nan, -0.0, 88.72, 88.73, -87.4, -103.97], np.float32)])
    r = Runner()
    out = popops.map(r.graph, pe.Exp(pe._1), [r.tensor(x, poplar.FLOAT, "x")], r.prog, "exp")
    (got,) = r.run(out)
    with np.errstate(over="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float32)  # correctly rounded, incl. inf and subnormals
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    ulps = np.abs(got[finite].view(np.int32).astype(np.int64) - want[finite].view(np.int32))
    assert ulps.max() <= 1, x[finite][ulps.argmax()]


@pytest.mark.parametrize("expression, reference", [
    (pe.Tanh(pe._1), np.tanh),
    (pe.Sigmoid(pe._1), lambda x: 1 / (1 + np.exp(-x))),
], ids=["tanh", "sigmoid"])
def test_float_tanh_and_sigmoid_are_within_two_ulp_and_keep_the_special_values(expression, reference):
    # Both are the emulator's own vectorized code; tanh switches formula at |x| = 0.5 and
    # saturates at 9.1, so the grid straddles both, and tiny values check tanh(x) ~ x.
    tiny = np.logspace(-40, 0, 4001).astype(np.float32)
    x = np.concatenate([np.linspace(-12, 12, 100001, dtype=np.float32), tiny, -tiny,
                        np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 0.5, -0.5, 9.1, -95, 95], np.float32)])
    r = Runner()
    out = popops.map(r.graph, expression, [r.tensor(x, poplar.FLOAT, "x")], r.prog, "f")
    (got,) = r.run(out)
    with np.errstate(over="ignore"):
        want = reference(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    number = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(want[number]))
    # sigmoid(-95) is subnormal in float64 but 0 in float arithmetic (e^95 overflows)
    normal = number & (np.abs(want) >= np.finfo(np.float32).tiny)
    np.testing.assert_allclose(got[number & ~normal], want[number & ~normal], rtol=0,
                               atol=np.finfo(np.float32).tiny)
    ulps = np.abs(got[normal].view(np.int32).astype(np.int64) - want[normal].view(np.int32))
    assert ulps.max() <= 2, x[normal][ulps.argmax()]


VECTOR_MATH = {"exp": (pe.Exp, np.exp), "tanh": (pe.Tanh, np.tanh),
               "sigmoid": (pe.Sigmoid, lambda x: 1 / (1 + np.exp(-x))), "log": (pe.Log, np.log)}


def vector_math_results():
    """{name: (x, f(x))} for the emulator's vectorized float exp, tanh, sigmoid and log over a
    grid spanning their formulas, their clamps, every binade (subnormals too) and the special values."""
    tiny = np.logspace(-40, 0, 401).astype(np.float32)
    binades = np.logspace(-45, 38.5, 4001).astype(np.float32)
    x = np.concatenate([np.linspace(-110, 95, 40001, dtype=np.float32), tiny, -tiny, binades, -binades,
                        np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 0.5, -0.5, 9.1, 88.72, -103.97], np.float32)])
    r = Runner()
    t = r.tensor(x, poplar.FLOAT, "x")
    outs = [popops.map(r.graph, op(pe._1), [t], r.prog, name) for name, (op, _) in VECTOR_MATH.items()]
    return x, dict(zip(VECTOR_MATH, r.run(*outs)))


def results_at_baseline_isa(tmp_path, results: str) -> dict:
    """`results`, an expression over this module (`m`) giving {name: array}, evaluated in a child
    process with POPDSL_BASELINE_VECTOR_MATH=1: the loops at the baseline ISA, as the default clone runs."""
    saved = tmp_path / "baseline.npz"
    here = Path(__file__).resolve().parent
    env = dict(os.environ, POPDSL_BASELINE_VECTOR_MATH="1",
               PYTHONPATH=os.pathsep.join([str(Path(popdsl.__file__).resolve().parents[1]), str(here)]))
    script = f"import numpy as np, test_popops_map as m; np.savez({str(saved)!r}, **{results})"
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=120, cwd=here)
    with np.load(saved) as baseline:
        return dict(baseline)


def canonical_nans(values: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(values), np.float32(np.nan), values)


@pytest.mark.needs_emulator("the emulator's vector-math clones")
def test_vector_math_gives_the_bits_of_the_baseline_isa_within_two_ulp(tmp_path):
    # The loops run in the widest clone the CPU has (AVX-512, AVX2) and, with
    # POPDSL_BASELINE_VECTOR_MATH=1, at the baseline ISA, as the default clone does: one
    # IEEE operation sequence (no FMA contraction in any clone), so the same bits.
    baseline = results_at_baseline_isa(tmp_path, "m.vector_math_results()[1]")
    x, cloned = vector_math_results()
    for name, (_, reference) in VECTOR_MATH.items():
        # NaNs compare by place, not by bits: the sign of a NaN IEEE leaves open differs
        # between the AVX2 clone and the baseline for sigmoid (an AMD EPYC without AVX-512).
        assert canonical_nans(cloned[name]).tobytes() == canonical_nans(baseline[name]).tobytes(), name
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # log of 0 and below
            want = reference(x.astype(np.float64)).astype(np.float32)
        np.testing.assert_array_equal(np.isnan(cloned[name]), np.isnan(want), err_msg=name)
        normal = np.isfinite(want) & (np.abs(want) >= np.finfo(np.float32).tiny)
        ulps = np.abs(cloned[name][normal].view(np.int32).astype(np.int64) - want[normal].view(np.int32))
        assert ulps.max() <= 2, (name, x[normal][ulps.argmax()])


# Float arithmetic the emulator runs in its vector clones: expression, numpy's reference, and
# whether the sign of a zero result may differ from numpy's. Maximum and minimum of zeros of
# opposite signs return the first, which IEEE leaves open (numpy: the second); the emulator's
# negate is 0 - x and its absolute keeps -0.
FLOAT_ARITHMETIC = {
    "add": (pe._1 + pe._2, np.add, False), "subtract": (pe._1 - pe._2, np.subtract, False),
    "multiply": (pe._1 * pe._2, np.multiply, False), "divide": (pe._1 / pe._2, np.divide, False),
    "maximum": (pe.Max(pe._1, pe._2), np.maximum, True), "minimum": (pe.Min(pe._1, pe._2), np.minimum, True),
    "negate": (pe.Neg(pe._1), lambda a, b: -a, True), "absolute": (pe.Abs(pe._1), lambda a, b: np.abs(a), True),
    "square": (pe.Square(pe._1), lambda a, b: a * a, False),
    "inverse": (pe.Inv(pe._1), lambda a, b: np.float32(1) / a, False),
    "relu": (pe.UnaryOp(pe.UnaryOpType.RELU, pe._1), lambda a, b: np.where(a > 0, a, np.float32(0)), False),
    "sqrt": (pe.Sqrt(pe._1), lambda a, b: np.sqrt(a), False),
    "rsqrt": (pe.UnaryOp(pe.UnaryOpType.RSQRT, pe._1), lambda a, b: np.float32(1) / np.sqrt(a), False),
}


def float_arithmetic_operands():
    """Two float arrays of 4099 elements (whole vectors and a tail at any width) pairing the
    special values, zeros of both signs, subnormals and far-apart magnitudes with each other."""
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, -1e-45, 1e-40, 3.4e38, -3.4e38, 1.0, -2.5],
                        np.float32)
    pairs = np.array(np.meshgrid(specials, specials)).reshape(2, -1)
    spread = np.random.default_rng(1).standard_normal((2, 4099 - pairs.shape[1]))
    magnitudes = np.float32(10.0) ** np.random.default_rng(2).integers(-30, 30, size=spread.shape)
    a, b = np.concatenate([pairs, (spread * magnitudes).astype(np.float32)], axis=1)
    return a, b


def float_arithmetic_results():
    """{name: result} for FLOAT_ARITHMETIC over float_arithmetic_operands()."""
    a, b = float_arithmetic_operands()
    r = Runner()
    ta, tb = r.tensor(a, poplar.FLOAT, "a"), r.tensor(b, poplar.FLOAT, "b")
    outs = [popops.map(r.graph, expression, [ta, tb], r.prog, name)
            for name, (expression, _, _) in FLOAT_ARITHMETIC.items()]
    return dict(zip(FLOAT_ARITHMETIC, r.run(*outs)))


@pytest.mark.needs_emulator("the emulator's vector-math clones")
def test_float_arithmetic_gives_ieee_results_in_every_clone(tmp_path):
    # The widest clone the CPU has and the baseline ISA (POPDSL_BASELINE_VECTOR_MATH=1) give
    # the same bits, NaN where numpy has NaN (maximum and minimum propagate it from either
    # operand, as numpy does), and numpy's correctly rounded float32 results.
    baseline = results_at_baseline_isa(tmp_path, "m.float_arithmetic_results()")
    a, b = float_arithmetic_operands()
    cloned = float_arithmetic_results()
    with np.errstate(all="ignore"):
        for name, (_, reference, zero_sign_differs) in FLOAT_ARITHMETIC.items():
            want = reference(a, b)
            numbers = ~np.isnan(want)
            assert cloned[name][numbers].tobytes() == baseline[name][numbers].tobytes(), name
            got = cloned[name]
            assert got.dtype == np.float32
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
            if zero_sign_differs:
                np.testing.assert_array_equal(got[numbers], want[numbers], err_msg=name)  # -0.0 == 0.0
            else:
                assert got[numbers].tobytes() == want[numbers].tobytes(), name


def test_integer_constants_take_the_64_bit_type_they_fit_and_larger_ones_are_value_errors():
    assert pe.Const(2**63).getType() == poplar.UNSIGNED_LONGLONG
    assert pe.Const(-2**63).getType() == poplar.LONGLONG
    with pytest.raises(ValueError, match="integer constant 1180591620717411303424 does not fit in 64 bits"):
        pe.Const(2**70)
    with pytest.raises(ValueError, match="integer constant -1180591620717411303424 does not fit"):
        pe._1 + (-2**70)
    r = Runner()
    i = r.tensor(np.arange(3, dtype=np.int32), poplar.INT, "i")
    with pytest.raises(ValueError, match="does not fit in 64 bits"):
        popops.add(r.graph, i, 2**70, r.prog)


@pytest.mark.parametrize("ptype", [poplar.INT, poplar.UNSIGNED_INT])
def test_integer_arithmetic_wraps_like_the_device(ptype):
    info = np.iinfo(DTYPES[ptype])
    x = np.array([info.max, info.min, info.max, info.min, 3, -7 if info.min < 0 else 7], DTYPES[ptype])
    y = np.array([1, -1 if info.min < 0 else 1, info.max, 2, info.max, 5], DTYPES[ptype])
    with np.errstate(over="ignore"):
        for expression, reference in [(pe._1 + pe._2, x + y), (pe._1 - pe._2, x - y), (pe._1 * pe._2, x * y),
                                      (-pe._1, -x), (pe.Square(pe._1), x * x)] + (
                                         [(pe.Abs(pe._1), np.abs(x))] if info.min < 0 else []):
            _, got = run_map(expression, [x, y], [ptype, ptype])
            np.testing.assert_array_equal(got, reference)


@pytest.mark.parametrize("ptype", [poplar.FLOAT, poplar.HALF])
def test_maximum_and_minimum_propagate_nan_from_either_operand(ptype):
    x = np.array([np.nan, 1.0, np.nan, 2.0, -np.inf], DTYPES[ptype])
    y = np.array([1.0, np.nan, np.nan, -3.0, np.nan], DTYPES[ptype])
    for expression, reference in [(pe.Max(pe._1, pe._2), np.maximum), (pe.Min(pe._1, pe._2), np.minimum)]:
        for a, b in ((x, y), (y, x)):
            _, got = run_map(expression, [a, b], [ptype, ptype])
            np.testing.assert_array_equal(got, reference(a, b))
    # Reductions too: a NaN anywhere in a row makes its MAX and MIN NaN, in any position.
    rows = np.array([[np.nan, 1.0, 2.0], [1.0, np.nan, 2.0], [1.0, 2.0, np.nan], [1.0, 5.0, 2.0]], DTYPES[ptype])
    for operation, reference in [(popops.Operation.MAX, np.max), (popops.Operation.MIN, np.min)]:
        r = Runner()
        t = r.tensor(rows, ptype, "rows")
        out = popops.reduce(r.graph, t, ptype, [1], popops.ReduceParams(operation), r.prog, "reduce")
        np.testing.assert_array_equal(r.run(out)[0], reference(rows, axis=1))
