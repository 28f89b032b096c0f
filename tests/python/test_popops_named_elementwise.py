"""Every named popops element-wise function in each of its SDK forms (result, InPlace,
WithOutput; tensor or scalar operands), against float64 numpy, and the same operations
through map with the op-type enums. One table row per function; the C++ scalar templates
(and checkTypes) run in one compiled program."""
import math
import subprocess

import numpy as np
import pytest

from popdsl import poplar, popops, poputil
from popdsl.popops import expr as pe
from cpp_build import build_program
from raw_runner import Runner

rng = np.random.default_rng(5)
ROUNDING = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.2, -0.7])
erf = np.vectorize(math.erf)


def uniform(lo, hi):
    return rng.uniform(lo, hi, size=(3, 4))


def clz32(x):
    return np.array([32 - int(v).bit_length() for v in np.asarray(x, np.int64).ravel()]).reshape(np.shape(x))


def popcount32(x):
    return np.array([bin(int(v) & 0xFFFFFFFF).count("1") for v in np.asarray(x).ravel()]).reshape(np.shape(x))


# name, InPlace form (None: the SDK has none), WithOutput form, op type, element type, values, numpy reference
UNARY = [
    ("abs", "absInPlace", "absWithOutput", "ABSOLUTE", poplar.FLOAT, uniform(-3, 3), np.abs),
    ("asin", "asinInPlace", "asinWithOutput", "ASIN", poplar.FLOAT, uniform(-0.9, 0.9), np.arcsin),
    ("bitwiseNot", "bitwiseNotInPlace", "bitwiseNotWithOutput", "BITWISE_NOT", poplar.INT,
     np.array([0, 1, -7, 123456]), np.invert),
    ("cbrt", "cbrtInPlace", "cbrtWithOutput", "CBRT", poplar.FLOAT, uniform(-8, 8), np.cbrt),
    ("ceil", "ceilInPlace", "ceilWithOutput", "CEIL", poplar.FLOAT, uniform(-3, 3), np.ceil),
    ("cos", "cosInPlace", "cosWithOutput", "COS", poplar.FLOAT, uniform(-3, 3), np.cos),
    ("countLeadingZeros", "countLeadingZerosInPlace", "countLeadingZerosWithOutput", "COUNT_LEADING_ZEROS",
     poplar.INT, np.array([1, 2, 255, 65536, 0x7FFFFFFF]), clz32),
    ("erf", "erfInPlace", "erfWithOutput", "ERF", poplar.FLOAT, uniform(-2, 2), erf),
    ("exp", "expInPlace", "expWithOutput", "EXPONENT", poplar.FLOAT, uniform(-3, 3), np.exp),
    ("exp2", "exp2InPlace", "exp2WithOutput", "EXPONENT2", poplar.FLOAT, uniform(-3, 3), np.exp2),
    ("expm1", "expm1InPlace", "expm1WithOutput", "EXPONENT_MINUS_ONE", poplar.FLOAT, uniform(-2, 2), np.expm1),
    ("floor", "floorInPlace", "floorWithOutput", "FLOOR", poplar.FLOAT, uniform(-3, 3), np.floor),
    ("geluErf", "geluErfInPlace", "geluErfWithOutput", "GELU_ERF", poplar.FLOAT, uniform(-3, 3),
     lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2)))),
    ("inv", "invInPlace", "invWithOutput", "INVERSE", poplar.FLOAT, uniform(0.5, 4), lambda x: 1 / x),
    ("isFinite", None, "isFiniteWithOutput", "IS_FINITE", poplar.FLOAT,
     np.array([1.0, np.inf, -np.inf, np.nan, -0.0]), np.isfinite),
    ("log", "logInPlace", "logWithOutput", "LOGARITHM", poplar.FLOAT, uniform(0.1, 5), np.log),
    ("log1p", "log1pInPlace", "log1pWithOutput", "LOGARITHM_ONE_PLUS", poplar.FLOAT, uniform(0, 3), np.log1p),
    ("logicalNot", "logicalNotInPlace", "logicalNotWithOutput", "LOGICAL_NOT", poplar.BOOL,
     np.array([True, False, True]), np.logical_not),
    ("nearbyint", "nearbyintInPlace", "nearbyintWithOutput", "NEARBY_INT", poplar.FLOAT, ROUNDING, np.rint),
    ("neg", "negInPlace", "negWithOutput", "NEGATE", poplar.FLOAT, uniform(-3, 3), np.negative),
    ("popcount", "popcountInPlace", "popcountWithOutput", "POPCOUNT", poplar.INT,
     np.array([0, 1, 255, -1, 0x12345678]), popcount32),
    ("round", "roundInPlace", "roundWithOutput", "ROUND", poplar.FLOAT, ROUNDING,
     lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)),
    ("rsqrt", "rsqrtInPlace", "rsqrtWithOutput", "RSQRT", poplar.FLOAT, uniform(0.5, 9), lambda x: 1 / np.sqrt(x)),
    ("sigmoid", "sigmoidInPlace", "sigmoidWithOutput", "SIGMOID", poplar.FLOAT, uniform(-5, 5),
     lambda x: 1 / (1 + np.exp(-x))),
    ("signum", "signumInPlace", "signumWithOutput", "SIGNUM", poplar.FLOAT, uniform(-3, 3), np.sign),
    ("sin", "sinInPlace", "sinWithOutput", "SIN", poplar.FLOAT, uniform(-3, 3), np.sin),
    ("sqrt", "sqrtInPlace", "sqrtWithOutput", "SQRT", poplar.FLOAT, uniform(0, 9), np.sqrt),
    ("square", "squareInPlace", "squareWithOutput", "SQUARE", poplar.FLOAT, uniform(-3, 3), np.square),
    ("tan", "tanInPlace", "tanWithOutput", "TAN", poplar.FLOAT, uniform(-1, 1), np.tan),
    ("tanh", "tanhInPlace", "tanhWithOutput", "TANH", poplar.FLOAT, uniform(-3, 3), np.tanh),
]

FLOATS = (uniform(0.5, 2), uniform(0.5, 2))
INTS = (rng.integers(-50, 50, size=(3, 4)), rng.integers(1, 9, size=(3, 4)))
UINTS = (rng.integers(0, 1 << 20, size=(3, 4)), rng.integers(0, 8, size=(3, 4)))
BOOLS = (np.array([True, True, False, False]), np.array([True, False, True, False]))


def truncating_remainder(a, b):
    return np.fmod(a, b)


# name, InPlace, WithOutput, op type, element type, (a, b), scalar, numpy reference, type of the InPlace operands
# (comparisons give BOOL, so they work in place on BOOL tensors)
BINARY = [
    ("add", "addInPlace", "addWithOutput", "ADD", poplar.FLOAT, FLOATS, 1.5, np.add, None),
    ("atan2", "atan2InPlace", "atan2WithOutput", "ATAN2", poplar.FLOAT, FLOATS, 0.5, np.arctan2, None),
    ("bitwiseAnd", "bitwiseAndInPlace", "bitwiseAndWithOutput", "BITWISE_AND", poplar.INT, INTS, 6, np.bitwise_and,
     None),
    ("bitwiseOr", "bitwiseOrInPlace", "bitwiseOrWithOutput", "BITWISE_OR", poplar.INT, INTS, 6, np.bitwise_or, None),
    ("bitwiseXor", "bitwiseXorInPlace", "bitwiseXorWithOutput", "BITWISE_XOR", poplar.INT, INTS, 6, np.bitwise_xor,
     None),
    ("bitwiseXnor", "bitwiseXnorInPlace", "bitwiseXnorWithOutput", "BITWISE_XNOR", poplar.INT, INTS, 6,
     lambda a, b: np.invert(np.bitwise_xor(a, b)), None),
    ("div", "divInPlace", "divWithOutput", "DIVIDE", poplar.FLOAT, FLOATS, 2.0, np.divide, None),
    ("eq", "eqInPlace", "eqWithOutput", "EQUAL", poplar.INT, INTS, 3, np.equal, poplar.BOOL),
    ("gt", "gtInPlace", "gtWithOutput", "GREATER_THAN", poplar.FLOAT, FLOATS, 1.0, np.greater, poplar.BOOL),
    ("gteq", "gteqInPlace", "gteqWithOutput", "GREATER_THAN_EQUAL", poplar.INT, INTS, 3, np.greater_equal,
     poplar.BOOL),
    ("logicalAnd", "logicalAndInPlace", "logicalAndWithOutput", "LOGICAL_AND", poplar.BOOL, BOOLS, True,
     np.logical_and, None),
    ("logicalOr", "logicalOrInPlace", "logicalOrWithOutput", "LOGICAL_OR", poplar.BOOL, BOOLS, False, np.logical_or,
     None),
    ("lt", "ltInPlace", "ltWithOutput", "LESS_THAN", poplar.FLOAT, FLOATS, 1.0, np.less, poplar.BOOL),
    ("lteq", "lteqInPlace", "lteqWithOutput", "LESS_THAN_EQUAL", poplar.INT, INTS, 3, np.less_equal, poplar.BOOL),
    ("max", "maxInPlace", "maxWithOutput", "MAXIMUM", poplar.FLOAT, FLOATS, 1.0, np.maximum, None),
    ("min", "minInPlace", "minWithOutput", "MINIMUM", poplar.FLOAT, FLOATS, 1.0, np.minimum, None),
    ("mul", "mulInPlace", "mulWithOutput", "MULTIPLY", poplar.FLOAT, FLOATS, -2.5, np.multiply, None),
    ("neq", "neqInPlace", "neqWithOutput", "NOT_EQUAL", poplar.INT, INTS, 3, np.not_equal, poplar.BOOL),
    ("pow", "powInPlace", "powWithOutput", "POWER", poplar.FLOAT, FLOATS, 1.5, np.power, None),
    ("rem", "remInPlace", "remWithOutput", "REMAINDER", poplar.INT, INTS, 4, truncating_remainder, None),
    ("shiftLeft", "shiftLeftInPlace", "shiftLeftWithOutput", "SHIFT_LEFT", poplar.UNSIGNED_INT, UINTS, 3,
     np.left_shift, None),
    ("shiftRight", "shiftRightInPlace", "shiftRightWithOutput", "SHIFT_RIGHT", poplar.UNSIGNED_INT, UINTS, 3,
     np.right_shift, None),
    ("shiftRightSignExtend", "shiftRightSignExtendInPlace", "shiftRightSignExtendWithOutput",
     "SHIFT_RIGHT_SIGN_EXTEND", poplar.INT, (INTS[0], INTS[1] % 5), 2, np.right_shift, None),
    ("sub", "subInPlace", "subWithOutput", "SUBTRACT", poplar.FLOAT, FLOATS, 0.25, np.subtract, None),
]

TERNARY = [
    ("select", "selectInPlace", "selectWithOutput", "SELECT", lambda a, b, c: np.where(c, a, b)),
    ("clamp", "clampInPlace", "clampWithOutput", "CLAMP", lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi)),
]


def assert_matches(got, want, ptype):
    want = np.asarray(want)
    if ptype in (poplar.FLOAT, poplar.HALF):
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-6, atol=2e-6)
    else:
        np.testing.assert_array_equal(got, want.astype(got.dtype))


def zeros_like(r, t, name):
    return r.tensor(np.zeros(t.shape()), t.elementType(), name)


@pytest.mark.parametrize("name,in_place,with_output,op,ptype,values,reference", UNARY, ids=[u[0] for u in UNARY])
def test_unary_function_in_each_form_and_through_map(name, in_place, with_output, op, ptype, values, reference):
    r = Runner()
    a = r.tensor(values, ptype, "a")
    result = getattr(popops, name)(r.graph, a, r.prog)
    out = zeros_like(r, result, "out")
    getattr(popops, with_output)(r.graph, a, out, r.prog)
    mapped = popops.map(r.graph, getattr(pe.UnaryOpType, op), a, r.prog)
    outs = [result, out, mapped]
    if in_place:
        b = r.tensor(values, ptype, "b")
        getattr(popops, in_place)(r.graph, b, r.prog)
        outs.append(b)
    else:
        assert not hasattr(popops, name + "InPlace")
    want = reference(np.asarray(values, np.float64) if ptype in (poplar.FLOAT, poplar.HALF) else values)
    for got in r.run(*outs):
        assert_matches(got, want, result.elementType())


@pytest.mark.parametrize("name,in_place,with_output,op,ptype,operands,scalar,reference,in_place_type", BINARY,
                         ids=[b[0] for b in BINARY])
def test_binary_function_in_each_form_with_tensors_and_scalars(name, in_place, with_output, op, ptype, operands,
                                                                scalar, reference, in_place_type):
    a_values, b_values = operands
    r = Runner()
    a, b = r.tensor(a_values, ptype, "a"), r.tensor(b_values, ptype, "b")
    function, into = getattr(popops, name), getattr(popops, with_output)
    results = [function(r.graph, a, b, r.prog), function(r.graph, a, scalar, r.prog),
               function(r.graph, scalar, b, r.prog),
               popops.map(r.graph, getattr(pe.BinaryOpType, op), a, b, r.prog)]
    outs = [zeros_like(r, results[0], f"out{i}") for i in range(3)]
    into(r.graph, a, b, outs[0], r.prog)
    into(r.graph, a, scalar, outs[1], r.prog)
    into(r.graph, scalar, b, outs[2], r.prog)
    in_place_type = in_place_type or ptype
    in_place_a, in_place_b = (BOOLS if in_place_type == poplar.BOOL else (a_values, b_values))
    updated = [r.tensor(in_place_a, in_place_type, f"updated{i}") for i in range(2)]
    other = r.tensor(in_place_b, in_place_type, "other")
    getattr(popops, in_place)(r.graph, updated[0], other, r.prog)
    in_place_scalar = bool(scalar) if in_place_type == poplar.BOOL else scalar
    getattr(popops, in_place)(r.graph, updated[1], in_place_scalar, r.prog)
    got = r.run(*results, *outs, *updated)
    as_ref = (lambda x: np.asarray(x, np.float64)) if ptype == poplar.FLOAT else np.asarray
    full, left, right = (reference(as_ref(a_values), as_ref(b_values)), reference(as_ref(a_values), scalar),
                         reference(scalar, as_ref(b_values)))
    kind = results[0].elementType()
    for value, want in zip(got[:7], [full, left, right, full, full, left, right]):
        assert_matches(value, want, kind)
    assert_matches(got[7], reference(in_place_a, in_place_b), in_place_type)
    assert_matches(got[8], reference(in_place_a, in_place_scalar), in_place_type)


@pytest.mark.parametrize("name,in_place,with_output,op,reference", TERNARY, ids=[t[0] for t in TERNARY])
def test_ternary_function_in_each_form(name, in_place, with_output, op, reference):
    x, y = uniform(-2, 2), uniform(-2, 2)
    third = x > y if name == "select" else np.full((3, 4), 1.0)
    second = y if name == "select" else np.full((3, 4), -1.0)
    r = Runner()
    tx, t2 = r.tensor(x, poplar.FLOAT, "x"), r.tensor(second, poplar.FLOAT, "second")
    t3 = r.tensor(third, poplar.BOOL if name == "select" else poplar.FLOAT, "third")
    result = getattr(popops, name)(r.graph, tx, t2, t3, r.prog)
    out = zeros_like(r, result, "out")
    getattr(popops, with_output)(r.graph, tx, t2, t3, out, r.prog)
    mapped = popops.map(r.graph, getattr(pe.TernaryOpType, op), tx, t2, t3, r.prog)
    updated, mapped_in_place = r.tensor(x, poplar.FLOAT, "updated"), r.tensor(x, poplar.FLOAT, "mapped_in_place")
    getattr(popops, in_place)(r.graph, updated, t2, t3, r.prog)
    popops.mapInPlace(r.graph, getattr(pe.TernaryOpType, op), mapped_in_place, t2, t3, r.prog)
    mapped_out = zeros_like(r, result, "mapped_out")
    popops.mapWithOutput(r.graph, getattr(pe.TernaryOpType, op), tx, t2, t3, mapped_out, r.prog)
    for got in r.run(result, out, mapped, updated, mapped_in_place, mapped_out):
        assert_matches(got, reference(x, second, third), poplar.FLOAT)


def test_map_in_place_and_with_output_take_op_types():
    x = uniform(-2, 2)
    r = Runner()
    a, b = r.tensor(x, poplar.FLOAT, "a"), r.tensor(x, poplar.FLOAT, "b")
    out = r.tensor(np.zeros((3, 4)), poplar.FLOAT, "out")
    popops.mapInPlace(r.graph, pe.UnaryOpType.NEGATE, a, r.prog)
    popops.mapInPlace(r.graph, pe.BinaryOpType.MULTIPLY, b, b, r.prog)
    popops.mapWithOutput(r.graph, pe.BinaryOpType.SUBTRACT, b, a, out, r.prog)
    got_a, got_b, got_out = r.run(a, b, out)
    assert_matches(got_a, -x, poplar.FLOAT)
    assert_matches(got_b, x * x, poplar.FLOAT)
    assert_matches(got_out, x * x + x, poplar.FLOAT)


SCALAR_PROGRAM = r'''
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <cstdio>
#include <stdexcept>
#include <vector>

// Each binary function's scalar templates on A = {1, 2, 3, 4} (FLOAT or INT): NAME(A, s),
// NAME(s, A), NAMEWithOutput(A, s, out), NAMEWithOutput(s, A, out) and, unless the result
// is BOOL (which A cannot hold), NAMEInPlace(A, s); printed one line per function.
int main() {
  poplar::IPUModel model;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph g(device.getTarget());
  popops::addCodelets(g);
  poplar::program::Sequence prog;
  std::vector<std::pair<const char *, std::vector<poplar::Tensor>>> rows;
  auto variable = [&](poplar::Type type, const char *name) {
    poplar::Tensor t = g.addVariable(type, {4}, name);
    poputil::mapTensorLinearly(g, t);
    return t;
  };
  auto operand = [&](poplar::Type type) {
    poplar::Tensor t = variable(type, "operand");
    poplar::Tensor values = type == poplar::FLOAT ? g.addConstant<float>(type, {4}, {1, 2, 3, 4})
                                                  : g.addConstant<int>(type, {4}, {1, 2, 3, 4});
    g.setTileMapping(values, 0);
    prog.add(poplar::program::Copy(values, t));
    return t;
  };
#define FORMS(NAME, TYPE, S, IN_PLACE)                                                        \
  {                                                                                           \
    poplar::Tensor a = operand(TYPE);                                                         \
    poplar::Tensor left = popops::NAME(g, a, S, prog), right = popops::NAME(g, S, a, prog);   \
    poplar::Tensor out1 = variable(left.elementType(), "out1"), out2 = variable(left.elementType(), "out2"); \
    popops::NAME##WithOutput(g, a, S, out1, prog);                                            \
    popops::NAME##WithOutput(g, S, a, out2, prog);                                            \
    rows.push_back({#NAME, {left, right, out1, out2}});                                       \
    if (IN_PLACE) {                                                                           \
      poplar::Tensor inPlace = operand(TYPE);                                                 \
      popops::NAME##InPlace(g, inPlace, S, prog);                                             \
      rows.back().second.push_back(inPlace);                                                  \
    }                                                                                         \
  }
@FORMS@
  bool rejected = false;
  try {
    popops::checkTypes(poplar::INT, 1.5f);
  } catch (const std::runtime_error &e) {
    rejected = std::string(e.what()) == "Type mismatch between Binary op Tensor and constant";
  }
  popops::checkTypes(poplar::HALF, 1.5);
  popops::checkTypes(poplar::UNSIGNED_INT, 2u);
  std::printf("checkTypes %d\n", rejected ? 1 : 0);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].second.size(); ++j)
      g.createHostRead(std::to_string(i) + "/" + std::to_string(j), rows[i].second[j]);
  poplar::Engine engine(g, prog);
  engine.load(device);
  engine.run(0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::printf("%s", rows[i].first);
    for (std::size_t j = 0; j < rows[i].second.size(); ++j) {
      const poplar::Tensor &t = rows[i].second[j];
      std::vector<double> values(4);
      if (t.elementType() == poplar::FLOAT) {
        std::vector<float> v(4);
        engine.readTensor(std::to_string(i) + "/" + std::to_string(j), v.data(), v.data() + 4);
        values.assign(v.begin(), v.end());
      } else if (t.elementType() == poplar::BOOL) {
        std::vector<unsigned char> v(4);
        engine.readTensor(std::to_string(i) + "/" + std::to_string(j), v.data(), v.data() + 4);
        values.assign(v.begin(), v.end());
      } else {
        std::vector<int> v(4);
        engine.readTensor(std::to_string(i) + "/" + std::to_string(j), v.data(), v.data() + 4);
        values.assign(v.begin(), v.end());
      }
      for (double v : values) std::printf(" %.9g", v);
    }
    std::printf("\n");
  }
}
'''

# The C++ scalar of each function: a float for FLOAT operands, an int for INT operands
# (comparisons and logical ops take an INT operand here; the logical ones read it as
# non-zero).
CPP_SCALARS = {"FLOAT": "2.0f", "INT": "2"}


def cpp_type(ptype):
    return "FLOAT" if ptype == poplar.FLOAT else "INT"


def test_cpp_scalar_templates_of_every_binary_function(tmp_path):
    rows = [(b[0], cpp_type(b[4]), b[7], b[8] is None) for b in BINARY if b[4] != poplar.BOOL]
    forms = "\n".join(f"  FORMS({name}, poplar::{kind}, {CPP_SCALARS[kind]}, {int(in_place)})"
                      for name, kind, _, in_place in rows)
    exe = build_program(tmp_path, SCALAR_PROGRAM.replace("@FORMS@", forms))
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    assert lines[0] == "checkTypes 1"
    a = np.array([1, 2, 3, 4], np.float64)
    for line, (name, kind, reference, in_place) in zip(lines[1:], rows):
        fields = line.split()
        assert fields[0] == name
        got = np.array(fields[1:], np.float64).reshape(-1, 4)
        operand = a if kind == "FLOAT" else a.astype(np.int64)
        scalar = 2.0 if kind == "FLOAT" else 2
        want = [reference(operand, scalar), reference(scalar, operand), reference(operand, scalar),
                reference(scalar, operand)] + ([reference(operand, scalar)] if in_place else [])
        np.testing.assert_allclose(got, np.array(want, np.float64), rtol=1e-6, err_msg=name)
    assert len(lines) == 1 + len(rows)


def test_output_for_element_wise_op_has_the_inputs_shape_and_a_complete_mapping():
    a, b = uniform(-1, 1), uniform(-1, 1)
    r = Runner()
    ta, tb = r.tensor(a, poplar.FLOAT, "a"), r.tensor(b, poplar.FLOAT, "b")
    out = popops.createOutputForElementWiseOp(r.graph, [ta, tb], poplar.HALF, "out")
    assert out.shape() == [3, 4] and out.elementType() == poplar.HALF
    mapped = sorted(i for regions in r.graph.getTileMapping(out) for interval in regions
                    for i in range(interval.begin(), interval.end()))
    assert mapped == list(range(12))
    popops.mapWithOutput(r.graph, pe.Cast(pe._1 + pe._2, poplar.HALF), [ta, tb], out, r.prog)
    np.testing.assert_allclose(r.run(out)[0], (a + b).astype(np.float16), rtol=1e-3)
    with pytest.raises(poputil.poplibs_error, match="differ in shape"):
        popops.createOutputForElementWiseOp(r.graph, [ta, ta[0]], poplar.HALF)


def test_expression_lists_map_each_expression():
    x, y = uniform(-2, 2), uniform(-2, 2)
    r = Runner()
    a, b = r.tensor(x, poplar.FLOAT, "a"), r.tensor(y, poplar.FLOAT, "b")
    total, product = popops.map(r.graph, [pe._1 + pe._2, pe._1 * pe._2], [a, b], r.prog)
    outs = [r.tensor(np.zeros((3, 4)), poplar.FLOAT, f"out{i}") for i in range(2)]
    popops.mapWithOutput(r.graph, [pe._1 - pe._2, pe.Max(pe._1, pe._2)], [a, b], outs, r.prog)
    updated = r.tensor(x, poplar.FLOAT, "updated")
    popops.mapInPlace(r.graph, [pe._1 * 3], [updated], r.prog)
    got = r.run(total, product, *outs, updated)
    for value, want in zip(got, [x + y, x * y, x - y, np.maximum(x, y), 3 * x]):
        assert_matches(value, want, poplar.FLOAT)
