"""popops.expr trees: the node classes, their getters, structural equality and printing,
every operator against its named class and op type, and the C++-only parts of Expr.hpp,
ExprOp.hpp, Operation.hpp and EncodingConstants.hpp in one compiled program."""
import subprocess

import numpy as np
import pytest

from popdsl import poplar
from popdsl.popops import expr as pe
from cpp_build import build_program
from raw_runner import Runner


def test_tree_getters_walk_every_node_kind():
    e = pe.Select(pe.Add(pe._1, pe.Const(2)), pe.Cast(pe.Neg(pe._2), poplar.FLOAT), pe._3 < 0.5)
    assert isinstance(e, pe.TernaryOp) and e.getOpType() == pe.TernaryOpType.SELECT
    lhs, rhs = e.getArg0(), e.getArg1()
    assert isinstance(lhs, pe.BinaryOp) and lhs.getOpType() == pe.BinaryOpType.ADD
    assert isinstance(lhs.getLHS(), pe.PlaceHolder) and lhs.getLHS().getIndex() == 1
    two = lhs.getRHS()
    assert isinstance(two, pe.Const) and two.getDataAsDouble() == 2.0 and two.getType() == poplar.INT
    assert two.printValue() == "2"
    assert isinstance(rhs, pe.Cast) and rhs.getRHSType() == poplar.FLOAT
    negated = rhs.getLHS()
    assert isinstance(negated, pe.UnaryOp) and negated.getOpType() == pe.UnaryOpType.NEGATE
    assert negated.getArg().deepEquals(pe._2)
    condition = e.getArg2()
    assert condition.getOpType() == pe.BinaryOpType.LESS_THAN and condition.getRHS().getType() == poplar.FLOAT
    assert pe.PlaceHolder(20).deepEquals(pe._20) and not pe._1.deepEquals(pe._2)
    assert pe.ConstHalf(1.5).deepEquals(pe.Const(1.5, poplar.HALF))
    assert pe.Const(1.5, poplar.HALF).getType() == poplar.HALF


def test_deep_equality_and_printing():
    a = pe.Exp(pe._1 - pe._2) * 2
    b = pe.Mul(pe.Exp(pe.Sub(pe._1, pe._2)), pe.Const(2))
    assert a.deepEquals(b) and not a.deepEquals(pe.Exp(pe._1))
    assert repr(a) == repr(b)
    r = Runner()
    t = r.tensor(np.zeros(3), poplar.FLOAT, "t")
    assert a.name([t, t]) == b.name([t, t]) and a.name([t, t]) != pe.Exp(pe._1).name([t])


UNARY_CLASSES = [
    (pe.Abs, "ABSOLUTE"), (pe.Asin, "ASIN"), (pe.BitwiseNot, "BITWISE_NOT"), (pe.Cbrt, "CBRT"), (pe.Erf, "ERF"),
    (pe.Ceil, "CEIL"), (pe.Cos, "COS"), (pe.Exp, "EXPONENT"), (pe.Expm1, "EXPONENT_MINUS_ONE"),
    (pe.Exp2, "EXPONENT2"), (pe.Floor, "FLOOR"), (pe.GeluErf, "GELU_ERF"), (pe.Inv, "INVERSE"),
    (pe.IsFinite, "IS_FINITE"), (pe.IsInf, "IS_INF"), (pe.IsNaN, "IS_NAN"), (pe.Log, "LOGARITHM"),
    (pe.Log1p, "LOGARITHM_ONE_PLUS"), (pe.Not, "LOGICAL_NOT"), (pe.Neg, "NEGATE"), (pe.NearbyInt, "NEARBY_INT"),
    (pe.Signum, "SIGNUM"), (pe.Sin, "SIN"), (pe.Tan, "TAN"), (pe.Tanh, "TANH"), (pe.Round, "ROUND"),
    (pe.Trunc, "TRUNC"), (pe.Sqrt, "SQRT"), (pe.Square, "SQUARE"), (pe.Sigmoid, "SIGMOID"), (pe.Rsqrt, "RSQRT"),
]
BINARY_CLASSES = [
    (pe.Add, "ADD"), (pe.Atan2, "ATAN2"), (pe.BitwiseAnd, "BITWISE_AND"), (pe.BitwiseOr, "BITWISE_OR"),
    (pe.BitwiseXor, "BITWISE_XOR"), (pe.BitwiseXnor, "BITWISE_XNOR"), (pe.Divide, "DIVIDE"), (pe.Equal, "EQUAL"),
    (pe.Gte, "GREATER_THAN_EQUAL"), (pe.Gt, "GREATER_THAN"), (pe.InvStdDevToVariance, "INV_STD_DEV_TO_VARIANCE"),
    (pe.Lte, "LESS_THAN_EQUAL"), (pe.And, "LOGICAL_AND"), (pe.Or, "LOGICAL_OR"), (pe.Lt, "LESS_THAN"),
    (pe.Max, "MAXIMUM"), (pe.Min, "MINIMUM"), (pe.Mul, "MULTIPLY"), (pe.NotEqual, "NOT_EQUAL"), (pe.Pow, "POWER"),
    (pe.Rem, "REMAINDER"), (pe.Shl, "SHIFT_LEFT"), (pe.Shr, "SHIFT_RIGHT"), (pe.ShrSE, "SHIFT_RIGHT_SIGN_EXTEND"),
    (pe.Sub, "SUBTRACT"), (pe.VarianceToInvStdDev, "VARIANCE_TO_INV_STD_DEV"),
]


@pytest.mark.parametrize("cls,op", UNARY_CLASSES, ids=[u[1] for u in UNARY_CLASSES])
def test_named_unary_classes_are_unary_ops_of_their_type(cls, op):
    e = cls(pe._1)
    assert isinstance(e, pe.UnaryOp) and e.getOpType() == getattr(pe.UnaryOpType, op)
    assert e.deepEquals(pe.UnaryOp(getattr(pe.UnaryOpType, op), pe._1))


@pytest.mark.parametrize("cls,op", BINARY_CLASSES, ids=[b[1] for b in BINARY_CLASSES])
def test_named_binary_classes_are_binary_ops_of_their_type(cls, op):
    e = cls(pe._1, pe._2)
    assert isinstance(e, pe.BinaryOp) and e.getOpType() == getattr(pe.BinaryOpType, op)
    assert e.deepEquals(pe.BinaryOp(getattr(pe.BinaryOpType, op), pe._1, pe._2))


def test_enumerators_are_distinct_and_complete():
    assert len({int(v) for v in pe.UnaryOpType.__members__.values()}) == len(UNARY_CLASSES) + 3  # RELU POPCOUNT CLZ
    assert {"RELU", "POPCOUNT", "COUNT_LEADING_ZEROS"} <= set(pe.UnaryOpType.__members__)
    assert len(pe.BinaryOpType.__members__) == len(BINARY_CLASSES)
    assert set(pe.TernaryOpType.__members__) == {"CLAMP", "SELECT"}


# C++ operator -> the named class and op type it makes; each with an Expr on both sides and
# with a scalar on either side.
OPERATORS = [("+", "Add"), ("&", "BitwiseAnd"), ("|", "BitwiseOr"), ("^", "BitwiseXor"), ("/", "Divide"),
             ("==", "Equal"), (">=", "Gte"), (">", "Gt"), ("<=", "Lte"), ("&&", "And"), ("||", "Or"), ("<", "Lt"),
             ("*", "Mul"), ("!=", "NotEqual"), ("%", "Rem"), ("<<", "Shl"), (">>", "Shr"), ("-", "Sub")]

CPP_PROGRAM = r'''
#include <popops/EncodingConstants.hpp>
#include <popops/Expr.hpp>
#include <popops/Operation.hpp>
#include <popops/OperationDef.hpp>
#include <cstdio>
#include <sstream>

using namespace popops::expr;

// deepEquals of each operator's three forms with the named class, one 0/1 per form.
template <class Named> void check(const char *symbol, const Expr &both, const Expr &scalarRight,
                                  const Expr &scalarLeft) {
  const bool ok = both.deepEquals(Named(_1, _2)) && scalarRight.deepEquals(Named(_1, Const(3))) &&
                  scalarLeft.deepEquals(Named(Const(3), _1)) && both.isA<BinaryOp>();
  std::printf("%s %d\n", symbol, ok ? 1 : 0);
}

int main() {
@CHECKS@
  std::printf("unary %d %d %d\n", (-_1).deepEquals(Neg(_1)) ? 1 : 0, (!_1).deepEquals(Not(_1)) ? 1 : 0,
              (~_1).deepEquals(BitwiseNot(_1)) ? 1 : 0);
  Exp e(_1);
  const UnaryOp *u = e.getAs<UnaryOp>();
  std::printf("getAs %d %d\n", u && u->getOpType() == UnaryOpType::EXPONENT ? 1 : 0,
              e.getAs<BinaryOp>() == nullptr ? 1 : 0);
  Any any(Add(_1, Const(2.5f)));
  Any copy(any);
  const Expr &held = copy;
  std::printf("Any %d\n", held.deepEquals(Add(_1, Const(2.5f))) ? 1 : 0);
  ConstHalf half = 1.5_half;
  std::printf("half %d %g\n", half.getType() == poplar::HALF ? 1 : 0, half.getDataAsDouble());
  const unsigned long long big = 0xFFFFFFFFFFFFFFF1ull;
  std::printf("unsigned %d\n", Const(big).getDataForUnsignedIntegral() == big ? 1 : 0);
  std::ostringstream printed;
  printed << Add(_1, Const(2));
  std::printf("printed %s\n", printed.str().c_str());
  std::printf("clone %d\n", Add(_1, _2).clone()->deepEquals(Add(_1, _2)) ? 1 : 0);
  std::ostringstream names;
  names << popops::Operation::SQUARE_ADD << ' ' << popops::Operation::LOG_ADD;
  std::istringstream in("MAX");
  popops::Operation parsed = popops::Operation::ADD;
  in >> parsed;
  std::printf("Operation %s %d\n", names.str().c_str(), parsed == popops::Operation::MAX ? 1 : 0);
  std::printf("MASKED_LABEL_CODE %u\n", MASKED_LABEL_CODE);
}
'''


def test_cpp_operators_templates_and_printing(tmp_path):
    checks = "\n".join(f'  check<{name}>("{symbol}", _1 {symbol} _2, _1 {symbol} 3, 3 {symbol} _1);'
                       for symbol, name in OPERATORS)
    exe = build_program(tmp_path, CPP_PROGRAM.replace("@CHECKS@", checks))
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    assert lines[:len(OPERATORS)] == [f"{symbol} 1" for symbol, _ in OPERATORS]
    rest = lines[len(OPERATORS):]
    assert rest[:6] == ["unary 1 1 1", "getAs 1 1", "Any 1", "half 1 1.5", "unsigned 1", "printed " + repr(pe._1 + 2)]
    assert rest[6:] == ["clone 1", "Operation SQUARE_ADD LOG_ADD 1", "MASKED_LABEL_CODE 4294967295"]


NODE_MEMBERS_PROGRAM = r'''
#include <popops/Expr.hpp>
#include <poplar/Graph.hpp>
#include <cstdio>
#include <sstream>
#include <vector>

using namespace popops::expr;

// Each node class's own clone/name/deepEquals/print, called on the class itself.
template <class Node> void members(const char *label, const Node &node, const Node &same, const Expr &other) {
  const std::vector<poplar::Tensor> inputs;
  std::unique_ptr<Expr> copy = node.Node::clone();
  std::ostringstream printed;
  node.Node::print(printed, 0, true);
  std::printf("%s %d %d %d %d %s\n", label, copy->deepEquals(node) ? 1 : 0, node.Node::deepEquals(same) ? 1 : 0,
              node.Node::deepEquals(other) ? 1 : 0, node.Node::name(inputs) == same.Node::name(inputs) ? 1 : 0,
              printed.str().c_str());
}

int main() {
  members<Const>("Const", Const(2), Const(2), Const(3));
  members<Cast>("Cast", Cast(_1, poplar::HALF), Cast(_1, poplar::HALF), Cast(_1, poplar::FLOAT));
  members<PlaceHolder>("PlaceHolder", _7, PlaceHolder(7), _8);
  members<UnaryOp>("UnaryOp", Neg(_2), UnaryOp(UnaryOpType::NEGATE, _2), Neg(_3));
  members<BinaryOp>("BinaryOp", Add(_1, Const(2)), BinaryOp(BinaryOpType::ADD, _1, Const(2)), Add(_1, Const(3)));
  members<TernaryOp>("TernaryOp", Select(_1, _2, _3), TernaryOp(TernaryOpType::SELECT, _1, _2, _3),
                     Select(_1, _3, _2));
  const PlaceHolder *all[] = {&_1, &_2, &_3, &_4, &_5, &_6, &_7, &_8, &_9, &_10,
                              &_11, &_12, &_13, &_14, &_15, &_16, &_17, &_18, &_19, &_20};
  for (const PlaceHolder *p : all)
    std::printf("%u ", p->getIndex());
  std::printf("\n");
}
'''


def test_cpp_node_members_on_each_class_and_every_placeholder(tmp_path):
    exe = build_program(tmp_path, NODE_MEMBERS_PROGRAM)
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    # clone equals the node, deepEquals tells equal from unequal trees, equal trees have one
    # name, and print writes the tree with its op types' names.
    assert lines[:6] == ["Const 1 1 0 1 2", "Cast 1 1 0 1 Cast(_1, half)", "PlaceHolder 1 1 0 1 _7",
                         "UnaryOp 1 1 0 1 NEGATE(_2)", "BinaryOp 1 1 0 1 ADD(_1, 2)",
                         "TernaryOp 1 1 0 1 SELECT(_1, _2, _3)"]
    assert lines[6].split() == [str(i) for i in range(1, 21)]
