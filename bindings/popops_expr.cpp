// popops.expr (expression trees with Python operators) and the map family of
// element-wise functions.
#include <poplar/exceptions.hpp>
#include <popops/ElementWise.hpp>
#include <popops/ElementWiseUtil.hpp>
#include <popops/Expr.hpp>
#include <poputil/exceptions.hpp>

#include <sstream>
#include <type_traits>
#include <variant>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

using namespace popops::expr;
using poplar::Graph;
using poplar::OptionFlags;
using poplar::Tensor;
using poplar::program::Sequence;
using ExprPtr = std::unique_ptr<Expr>;

// Python numbers become constants whose type adapts to the operand they meet.
// A Python int as the 64-bit integer it fits: signed if it can, else unsigned.
std::variant<long long, unsigned long long> integerValue(py::handle h) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow == 0) return v;
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(h.ptr());
    if (!PyErr_Occurred()) return u;
    PyErr_Clear();
  }
  throw py::value_error("integer constant " + py::str(h).cast<std::string>() + " does not fit in 64 bits");
}

ExprPtr toExpr(py::handle h) {
  if (py::isinstance<Expr>(h)) return h.cast<const Expr &>().clone();
  if (py::isinstance<py::bool_>(h)) return std::make_unique<Const>(h.cast<bool>());
  if (py::isinstance<py::int_>(h)) {
    return std::visit(
        [](auto v) -> ExprPtr {
          if constexpr (std::is_signed_v<decltype(v)>)
            if (v >= INT32_MIN && v <= INT32_MAX) return std::make_unique<Const>(static_cast<int>(v));
          return std::make_unique<Const>(v);
        },
        integerValue(h));
  }
  if (py::isinstance<py::float_>(h)) return std::make_unique<Const>(h.cast<double>());
  throw py::type_error("expected a popops expression or a number, got " + std::string(Py_TYPE(h.ptr())->tp_name));
}

template <class Op, class Kind> ExprPtr binary(Kind kind, py::handle a, py::handle b) {
  return std::make_unique<Op>(kind, *toExpr(a), *toExpr(b));
}

// The scalar side of a named binary function becomes a constant of the tensor's type.
Tensor asTensor(Graph &g, py::handle h, const Tensor &like, const poplar::DebugContext &dc) {
  if (py::isinstance<Tensor>(h)) return h.cast<Tensor>();
  if (!py::isinstance<py::int_>(h) && !py::isinstance<py::float_>(h) && !py::isinstance<py::bool_>(h))
    throw py::type_error("expected a poplar.Tensor or a number, got " + std::string(Py_TYPE(h.ptr())->tp_name));
  const poplar::Type type = like.elementType();
  if (py::isinstance<py::float_>(h) && !type.isFloatingPoint())
    throw std::runtime_error("Type mismatch between Binary op Tensor and constant: float constant for " +
                             like.getVarStr());
  Tensor c = py::isinstance<py::float_>(h)
                 ? g.addConstant(type, {}, h.cast<double>(), dc)
                 : std::visit([&](auto v) { return g.addConstant(type, {}, v, dc); }, integerValue(h));
  g.setTileMapping(c, 0);
  return c;
}

std::pair<Tensor, Tensor> tensorPair(Graph &g, py::handle a, py::handle b, const poplar::DebugContext &dc) {
  if (py::isinstance<Tensor>(a)) {
    const Tensor ta = a.cast<Tensor>();
    return {ta, asTensor(g, b, ta, dc)};
  }
  if (!py::isinstance<Tensor>(b)) throw py::type_error("at least one operand must be a poplar.Tensor");
  const Tensor tb = b.cast<Tensor>();
  return {asTensor(g, a, tb, dc), tb};
}

void bindExpressions(py::module_ &e) {
  // Named one by one: poplibs' public API has no toString for these enums.
  auto unary = checkedEnum<UnaryOpType>(e, "UnaryOpType");
#define POPDSL_UNARY(name) unary.value(#name, UnaryOpType::name);
  POPDSL_UNARY(ABSOLUTE) POPDSL_UNARY(ASIN) POPDSL_UNARY(BITWISE_NOT) POPDSL_UNARY(CBRT) POPDSL_UNARY(CEIL)
  POPDSL_UNARY(COS) POPDSL_UNARY(COUNT_LEADING_ZEROS) POPDSL_UNARY(ERF) POPDSL_UNARY(EXPONENT)
  POPDSL_UNARY(EXPONENT_MINUS_ONE) POPDSL_UNARY(EXPONENT2) POPDSL_UNARY(FLOOR) POPDSL_UNARY(GELU_ERF)
  POPDSL_UNARY(INVERSE) POPDSL_UNARY(IS_FINITE) POPDSL_UNARY(IS_INF) POPDSL_UNARY(IS_NAN) POPDSL_UNARY(LOGARITHM)
  POPDSL_UNARY(LOGARITHM_ONE_PLUS) POPDSL_UNARY(LOGICAL_NOT) POPDSL_UNARY(NEGATE) POPDSL_UNARY(NEARBY_INT)
  POPDSL_UNARY(POPCOUNT) POPDSL_UNARY(RELU) POPDSL_UNARY(SIGNUM) POPDSL_UNARY(SIN) POPDSL_UNARY(TAN)
  POPDSL_UNARY(TANH) POPDSL_UNARY(ROUND) POPDSL_UNARY(SQRT) POPDSL_UNARY(SQUARE) POPDSL_UNARY(SIGMOID)
  POPDSL_UNARY(RSQRT) POPDSL_UNARY(TRUNC)
#undef POPDSL_UNARY
  auto binaryOps = checkedEnum<BinaryOpType>(e, "BinaryOpType");
#define POPDSL_BINARY(name) binaryOps.value(#name, BinaryOpType::name);
  POPDSL_BINARY(ADD) POPDSL_BINARY(ATAN2) POPDSL_BINARY(BITWISE_AND) POPDSL_BINARY(BITWISE_OR)
  POPDSL_BINARY(BITWISE_XOR) POPDSL_BINARY(BITWISE_XNOR) POPDSL_BINARY(DIVIDE) POPDSL_BINARY(EQUAL)
  POPDSL_BINARY(GREATER_THAN_EQUAL) POPDSL_BINARY(GREATER_THAN) POPDSL_BINARY(INV_STD_DEV_TO_VARIANCE)
  POPDSL_BINARY(LESS_THAN_EQUAL) POPDSL_BINARY(LOGICAL_AND) POPDSL_BINARY(LOGICAL_OR) POPDSL_BINARY(LESS_THAN)
  POPDSL_BINARY(MAXIMUM) POPDSL_BINARY(MINIMUM) POPDSL_BINARY(MULTIPLY) POPDSL_BINARY(NOT_EQUAL)
  POPDSL_BINARY(POWER) POPDSL_BINARY(REMAINDER) POPDSL_BINARY(SHIFT_LEFT) POPDSL_BINARY(SHIFT_RIGHT)
  POPDSL_BINARY(SHIFT_RIGHT_SIGN_EXTEND) POPDSL_BINARY(SUBTRACT) POPDSL_BINARY(VARIANCE_TO_INV_STD_DEV)
#undef POPDSL_BINARY
  checkedEnum<TernaryOpType>(e, "TernaryOpType")
      .value("CLAMP", TernaryOpType::CLAMP)
      .value("SELECT", TernaryOpType::SELECT);

  py::class_<Expr> expr(e, "Expr", "An element-wise expression; combine with Python operators");
  expr.def("__repr__", [](const Expr &x) {
        std::ostringstream os;
        os << x;
        return os.str();
      })
      .def("deepEquals", [](const Expr &a, const Expr &b) { return a.deepEquals(b); })
      .def("name", &Expr::name, py::arg("inputs"))
      .def("__bool__", [](const Expr &) -> bool {
        throw py::type_error("a popops expression has no truth value; use pe.And/pe.Or/pe.Not for logic");
      });
  py::object noHash = py::none();
  expr.attr("__hash__") = noHash;

  struct Symbol { const char *name, *reflected; BinaryOpType op; };
  static const Symbol symbols[] = {
      {"__add__", "__radd__", BinaryOpType::ADD}, {"__sub__", "__rsub__", BinaryOpType::SUBTRACT},
      {"__mul__", "__rmul__", BinaryOpType::MULTIPLY}, {"__truediv__", "__rtruediv__", BinaryOpType::DIVIDE},
      {"__mod__", "__rmod__", BinaryOpType::REMAINDER}, {"__and__", "__rand__", BinaryOpType::BITWISE_AND},
      {"__or__", "__ror__", BinaryOpType::BITWISE_OR}, {"__xor__", "__rxor__", BinaryOpType::BITWISE_XOR},
      {"__lshift__", "__rlshift__", BinaryOpType::SHIFT_LEFT}, {"__rshift__", "__rrshift__", BinaryOpType::SHIFT_RIGHT},
      {"__pow__", "__rpow__", BinaryOpType::POWER},
      {"__eq__", nullptr, BinaryOpType::EQUAL}, {"__ne__", nullptr, BinaryOpType::NOT_EQUAL},
      {"__lt__", nullptr, BinaryOpType::LESS_THAN}, {"__le__", nullptr, BinaryOpType::LESS_THAN_EQUAL},
      {"__gt__", nullptr, BinaryOpType::GREATER_THAN}, {"__ge__", nullptr, BinaryOpType::GREATER_THAN_EQUAL},
  };
  for (const Symbol &s : symbols) {
    const BinaryOpType op = s.op;
    expr.def(s.name, [op](py::handle a, py::handle b) { return binary<BinaryOp>(op, a, b); }, py::is_operator());
    if (s.reflected)
      expr.def(s.reflected, [op](py::handle a, py::handle b) { return binary<BinaryOp>(op, b, a); }, py::is_operator());
  }
  expr.def("__neg__", [](const Expr &a) -> ExprPtr { return std::make_unique<UnaryOp>(UnaryOpType::NEGATE, a); })
      .def("__invert__", [](const Expr &a) -> ExprPtr { return std::make_unique<UnaryOp>(UnaryOpType::BITWISE_NOT, a); })
      .def("__abs__", [](const Expr &a) -> ExprPtr { return std::make_unique<UnaryOp>(UnaryOpType::ABSOLUTE, a); });

  py::class_<Const, Expr>(e, "Const")
      .def(py::init([](py::handle value, py::object type) {
             ExprPtr c = toExpr(value);
             if (!c->isA<Const>()) throw py::type_error("Const needs a number");
             if (type.is_none()) return *c->getAs<Const>();
             // From the Python number itself (poplibs' Const does not give its value back).
             const poplar::Type t = type.cast<poplar::Type>();
             if (py::isinstance<py::float_>(value)) return Const(value.cast<double>(), t);
             if (py::isinstance<py::bool_>(value)) return Const(value.cast<bool>() ? 1 : 0, t);
             return std::visit([&](auto v) { return Const(v, t); }, integerValue(value));
           }),
           py::arg("value"), py::arg("type") = py::none(),
           "A constant; without a type it takes the type of the operand it meets")
      .def("getType", &Const::getType)
      .def("getDataAsDouble", &Const::getDataAsDouble)
      .def("printValue", &Const::printValue);
  e.def("ConstHalf", [](float x) -> ExprPtr { return std::make_unique<ConstHalf>(x); }, py::arg("value"));
  // Sub-expressions come back as copies: an expression tree owns its operands.
  py::class_<PlaceHolder, Expr>(e, "PlaceHolder")
      .def(py::init<unsigned>(), py::arg("index"))
      .def("getIndex", &PlaceHolder::getIndex);
  for (unsigned i = 1; i <= 20; ++i) e.attr(("_" + std::to_string(i)).c_str()) = PlaceHolder(i);
  py::class_<Cast, Expr>(e, "Cast")
      .def(py::init([](py::handle a, poplar::Type type) { return Cast(*toExpr(a), type); }), py::arg("a"), py::arg("type"))
      .def("getLHS", [](const Cast &c) { return c.getLHS().clone(); })
      .def("getRHSType", &Cast::getRHSType);
  py::class_<UnaryOp, Expr>(e, "UnaryOp")
      .def(py::init([](UnaryOpType op, py::handle a) { return UnaryOp(op, *toExpr(a)); }), py::arg("type"), py::arg("a"))
      .def("getOpType", &UnaryOp::getOpType)
      .def("getArg", [](const UnaryOp &u) { return u.getArg().clone(); });
  py::class_<BinaryOp, Expr>(e, "BinaryOp")
      .def(py::init([](BinaryOpType op, py::handle a, py::handle b) { return BinaryOp(op, *toExpr(a), *toExpr(b)); }),
           py::arg("type"), py::arg("a"), py::arg("b"))
      .def("getOpType", &BinaryOp::getOpType)
      .def("getLHS", [](const BinaryOp &b) { return b.getLHS().clone(); })
      .def("getRHS", [](const BinaryOp &b) { return b.getRHS().clone(); });
  py::class_<TernaryOp, Expr>(e, "TernaryOp")
      .def(py::init([](TernaryOpType op, py::handle a, py::handle b, py::handle c) {
             return TernaryOp(op, *toExpr(a), *toExpr(b), *toExpr(c));
           }),
           py::arg("type"), py::arg("a"), py::arg("b"), py::arg("c"))
      .def("getOpType", &TernaryOp::getOpType)
      .def("getArg0", [](const TernaryOp &t) { return t.getArg0().clone(); })
      .def("getArg1", [](const TernaryOp &t) { return t.getArg1().clone(); })
      .def("getArg2", [](const TernaryOp &t) { return t.getArg2().clone(); });

  // Named expression constructors, as in popops/Expr.hpp.
  static const std::pair<const char *, UnaryOpType> unaryNames[] = {
      {"Abs", UnaryOpType::ABSOLUTE}, {"Asin", UnaryOpType::ASIN}, {"BitwiseNot", UnaryOpType::BITWISE_NOT},
      {"Cbrt", UnaryOpType::CBRT}, {"Erf", UnaryOpType::ERF}, {"Ceil", UnaryOpType::CEIL}, {"Cos", UnaryOpType::COS},
      {"Exp", UnaryOpType::EXPONENT}, {"Expm1", UnaryOpType::EXPONENT_MINUS_ONE}, {"Exp2", UnaryOpType::EXPONENT2},
      {"Floor", UnaryOpType::FLOOR}, {"GeluErf", UnaryOpType::GELU_ERF}, {"Inv", UnaryOpType::INVERSE},
      {"IsFinite", UnaryOpType::IS_FINITE}, {"IsInf", UnaryOpType::IS_INF}, {"IsNaN", UnaryOpType::IS_NAN},
      {"Log", UnaryOpType::LOGARITHM}, {"Log1p", UnaryOpType::LOGARITHM_ONE_PLUS}, {"Not", UnaryOpType::LOGICAL_NOT},
      {"Neg", UnaryOpType::NEGATE}, {"NearbyInt", UnaryOpType::NEARBY_INT}, {"Signum", UnaryOpType::SIGNUM},
      {"Sin", UnaryOpType::SIN}, {"Tan", UnaryOpType::TAN}, {"Tanh", UnaryOpType::TANH}, {"Round", UnaryOpType::ROUND},
      {"Trunc", UnaryOpType::TRUNC}, {"Sqrt", UnaryOpType::SQRT}, {"Square", UnaryOpType::SQUARE},
      {"Sigmoid", UnaryOpType::SIGMOID}, {"Rsqrt", UnaryOpType::RSQRT}};
  for (const auto &u : unaryNames) {
    const UnaryOpType op = u.second;
    e.def(u.first, [op](py::handle a) -> ExprPtr { return std::make_unique<UnaryOp>(op, *toExpr(a)); }, py::arg("a"));
  }
  static const std::pair<const char *, BinaryOpType> binaryNames[] = {
      {"Add", BinaryOpType::ADD}, {"Atan2", BinaryOpType::ATAN2}, {"BitwiseAnd", BinaryOpType::BITWISE_AND},
      {"BitwiseOr", BinaryOpType::BITWISE_OR}, {"BitwiseXor", BinaryOpType::BITWISE_XOR},
      {"BitwiseXnor", BinaryOpType::BITWISE_XNOR}, {"Divide", BinaryOpType::DIVIDE}, {"Equal", BinaryOpType::EQUAL},
      {"Gte", BinaryOpType::GREATER_THAN_EQUAL}, {"Gt", BinaryOpType::GREATER_THAN},
      {"InvStdDevToVariance", BinaryOpType::INV_STD_DEV_TO_VARIANCE}, {"Lte", BinaryOpType::LESS_THAN_EQUAL},
      {"And", BinaryOpType::LOGICAL_AND}, {"Or", BinaryOpType::LOGICAL_OR}, {"Lt", BinaryOpType::LESS_THAN},
      {"Max", BinaryOpType::MAXIMUM}, {"Min", BinaryOpType::MINIMUM}, {"Mul", BinaryOpType::MULTIPLY},
      {"NotEqual", BinaryOpType::NOT_EQUAL}, {"Pow", BinaryOpType::POWER}, {"Rem", BinaryOpType::REMAINDER},
      {"Shl", BinaryOpType::SHIFT_LEFT}, {"Shr", BinaryOpType::SHIFT_RIGHT},
      {"ShrSE", BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND}, {"Sub", BinaryOpType::SUBTRACT},
      {"VarianceToInvStdDev", BinaryOpType::VARIANCE_TO_INV_STD_DEV}};
  for (const auto &b : binaryNames) {
    const BinaryOpType op = b.second;
    e.def(b.first, [op](py::handle x, py::handle y) { return binary<BinaryOp>(op, x, y); }, py::arg("a"), py::arg("b"));
  }
  e.def("Select", [](py::handle a, py::handle b, py::handle c) -> ExprPtr {
    return std::make_unique<TernaryOp>(TernaryOpType::SELECT, *toExpr(a), *toExpr(b), *toExpr(c));
  }, py::arg("a"), py::arg("b"), py::arg("condition"), "condition ? a : b");
  e.def("Clamp", [](py::handle a, py::handle lo, py::handle hi) -> ExprPtr {
    return std::make_unique<TernaryOp>(TernaryOpType::CLAMP, *toExpr(a), *toExpr(lo), *toExpr(hi));
  }, py::arg("a"), py::arg("lower"), py::arg("upper"));
}

} // namespace

void bindPopopsExpr(py::module_ &m) {
  auto e = m.def_submodule("expr", "namespace popops::expr");
  bindExpressions(e);

  const auto dc = py::arg("debugContext") = poplar::DebugContext();
  const auto opts = py::arg("options") = OptionFlags();
  // The op-type and expression-list forms first: the expression form takes any object.
  using DC = const poplar::DebugContext &;
  using OF = const OptionFlags &;
  m.def("map", static_cast<Tensor (*)(Graph &, UnaryOpType, const Tensor &, Sequence &, DC, OF)>(&popops::map),
        py::arg("graph"), py::arg("op"), py::arg("t"), py::arg("prog"), dc, opts);
  m.def("map", static_cast<Tensor (*)(Graph &, BinaryOpType, const Tensor &, const Tensor &, Sequence &, DC, OF)>(
                   &popops::map),
        py::arg("graph"), py::arg("op"), py::arg("a"), py::arg("b"), py::arg("prog"), dc, opts);
  m.def("map",
        static_cast<Tensor (*)(Graph &, TernaryOpType, const Tensor &, const Tensor &, const Tensor &, Sequence &, DC,
                               OF)>(&popops::map),
        py::arg("graph"), py::arg("op"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("prog"), dc, opts);
  m.def("mapInPlace", static_cast<void (*)(Graph &, UnaryOpType, const Tensor &, Sequence &, DC, OF)>(&popops::mapInPlace),
        py::arg("graph"), py::arg("op"), py::arg("t"), py::arg("prog"), dc, opts);
  m.def("mapInPlace",
        static_cast<void (*)(Graph &, BinaryOpType, const Tensor &, const Tensor &, Sequence &, DC, OF)>(
            &popops::mapInPlace),
        py::arg("graph"), py::arg("op"), py::arg("a"), py::arg("b"), py::arg("prog"), dc, opts);
  m.def("mapInPlace",
        static_cast<void (*)(Graph &, TernaryOpType, const Tensor &, const Tensor &, const Tensor &, Sequence &, DC,
                             OF)>(&popops::mapInPlace),
        py::arg("graph"), py::arg("op"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("prog"), dc, opts);
  m.def("mapWithOutput",
        static_cast<void (*)(Graph &, UnaryOpType, const Tensor &, const Tensor &, Sequence &, DC, OF)>(
            &popops::mapWithOutput),
        py::arg("graph"), py::arg("op"), py::arg("in_"), py::arg("out"), py::arg("prog"), dc, opts);
  m.def("mapWithOutput",
        static_cast<void (*)(Graph &, BinaryOpType, const Tensor &, const Tensor &, const Tensor &, Sequence &, DC, OF)>(
            &popops::mapWithOutput),
        py::arg("graph"), py::arg("op"), py::arg("a"), py::arg("b"), py::arg("out"), py::arg("prog"), dc, opts);
  m.def("mapWithOutput",
        static_cast<void (*)(Graph &, TernaryOpType, const Tensor &, const Tensor &, const Tensor &, const Tensor &,
                             Sequence &, DC, OF)>(&popops::mapWithOutput),
        py::arg("graph"), py::arg("op"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("out"), py::arg("prog"), dc,
        opts);
  auto anyList = [](const py::list &exprs) {
    std::vector<Any> out;
    for (py::handle h : exprs) out.emplace_back(*toExpr(h));
    return out;
  };
  m.def("map", [anyList](Graph &g, const py::list &exprs, const std::vector<Tensor> &ts, Sequence &prog, DC d, OF o) {
          return popops::map(g, anyList(exprs), ts, prog, d, o);
        },
        py::arg("graph"), py::arg("exprs"), py::arg("ts"), py::arg("prog"), dc, opts);
  m.def("mapInPlace", [anyList](Graph &g, const py::list &exprs, const std::vector<Tensor> &ts, Sequence &prog, DC d,
                                OF o) { popops::mapInPlace(g, anyList(exprs), ts, prog, d, o); },
        py::arg("graph"), py::arg("exprs"), py::arg("ts"), py::arg("prog"), dc, opts);
  m.def("mapWithOutput", [anyList](Graph &g, const py::list &exprs, const std::vector<Tensor> &ts,
                                   const std::vector<Tensor> &outs, Sequence &prog, DC d, OF o) {
          popops::mapWithOutput(g, anyList(exprs), ts, outs, prog, d, o);
        },
        py::arg("graph"), py::arg("exprs"), py::arg("ts"), py::arg("outs"), py::arg("prog"), dc, opts);
  m.def("map", [](Graph &g, py::handle ex, const std::vector<Tensor> &ts, Sequence &prog,
                  const poplar::DebugContext &d, const OptionFlags &o) { return popops::map(g, *toExpr(ex), ts, prog, d, o); },
        py::arg("graph"), py::arg("expr"), py::arg("ts"), py::arg("prog"), dc, opts);
  m.def("mapInPlace", [](Graph &g, py::handle ex, const std::vector<Tensor> &ts, Sequence &prog,
                         const poplar::DebugContext &d, const OptionFlags &o) { popops::mapInPlace(g, *toExpr(ex), ts, prog, d, o); },
        py::arg("graph"), py::arg("expr"), py::arg("ts"), py::arg("prog"), dc, opts);
  m.def("mapWithOutput", [](Graph &g, py::handle ex, const std::vector<Tensor> &ts, const Tensor &out, Sequence &prog,
                            const poplar::DebugContext &d, const OptionFlags &o) {
          popops::mapWithOutput(g, *toExpr(ex), ts, out, prog, d, o);
        },
        py::arg("graph"), py::arg("expr"), py::arg("ts"), py::arg("out"), py::arg("prog"), dc, opts);

  using UnaryFn = Tensor (*)(Graph &, const Tensor &, Sequence &, const poplar::DebugContext &, const OptionFlags &);
  using UnaryInPlaceFn = void (*)(Graph &, const Tensor &, Sequence &, const poplar::DebugContext &, const OptionFlags &);
  using UnaryWithOutputFn = void (*)(Graph &, const Tensor &, const Tensor &, Sequence &, const poplar::DebugContext &,
                                     const OptionFlags &);
#define BIND_UNARY_FUNCTION(NAME)                                                                                    \
  m.def(#NAME, static_cast<UnaryFn>(&popops::NAME), py::arg("graph"), py::arg("A"), py::arg("prog"), dc, opts);
#define BIND_UNARY_WITH_OUTPUT(NAME)                                                                                 \
  m.def(#NAME "WithOutput", static_cast<UnaryWithOutputFn>(&popops::NAME##WithOutput), py::arg("graph"),             \
        py::arg("A"), py::arg("out"), py::arg("prog"), dc, opts);
#define BIND_UNARY(NAME)                                                                                             \
  BIND_UNARY_FUNCTION(NAME)                                                                                          \
  BIND_UNARY_WITH_OUTPUT(NAME)                                                                                       \
  m.def(#NAME "InPlace", static_cast<UnaryInPlaceFn>(&popops::NAME##InPlace), py::arg("graph"), py::arg("A"),       \
        py::arg("prog"), dc, opts);
  BIND_UNARY(abs) BIND_UNARY(asin) BIND_UNARY(bitwiseNot) BIND_UNARY(cbrt) BIND_UNARY(ceil) BIND_UNARY(cos)
  BIND_UNARY(countLeadingZeros) BIND_UNARY(erf) BIND_UNARY(exp) BIND_UNARY(exp2) BIND_UNARY(expm1)
  BIND_UNARY(floor) BIND_UNARY(geluErf) BIND_UNARY(inv) BIND_UNARY_FUNCTION(isFinite) BIND_UNARY_WITH_OUTPUT(isFinite) BIND_UNARY(log)
  BIND_UNARY(log1p) BIND_UNARY(logicalNot) BIND_UNARY(nearbyint) BIND_UNARY(neg) BIND_UNARY(popcount)
  BIND_UNARY(round) BIND_UNARY(rsqrt) BIND_UNARY(sigmoid) BIND_UNARY(signum) BIND_UNARY(sin) BIND_UNARY(sqrt)
  BIND_UNARY(square) BIND_UNARY(tan) BIND_UNARY(tanh)
#undef BIND_UNARY
#undef BIND_UNARY_FUNCTION
#undef BIND_UNARY_WITH_OUTPUT

  using BinaryFn = Tensor (*)(Graph &, const Tensor &, const Tensor &, Sequence &, const poplar::DebugContext &,
                              const OptionFlags &);
  using BinaryInPlaceFn = void (*)(Graph &, const Tensor &, const Tensor &, Sequence &, const poplar::DebugContext &,
                                   const OptionFlags &);
  using BinaryWithOutputFn = void (*)(Graph &, const Tensor &, const Tensor &, const Tensor &, Sequence &,
                                      const poplar::DebugContext &, const OptionFlags &);
  // Either operand may be a Python number; it becomes a constant of the other's type.
#define BIND_BINARY(NAME)                                                                                            \
  m.def(#NAME, [](Graph &g, py::handle a, py::handle b, Sequence &prog, const poplar::DebugContext &d,             \
                  const OptionFlags &o) {                                                                            \
          auto [ta, tb] = tensorPair(g, a, b, d);                                                                    \
          return static_cast<BinaryFn>(&popops::NAME)(g, ta, tb, prog, d, o);                                        \
        }, py::arg("graph"), py::arg("A"), py::arg("B"), py::arg("prog"), dc, opts);                                 \
  m.def(#NAME "InPlace", [](Graph &g, const Tensor &a, py::handle b, Sequence &prog, const poplar::DebugContext &d, \
                            const OptionFlags &o) {                                                                  \
          static_cast<BinaryInPlaceFn>(&popops::NAME##InPlace)(g, a, asTensor(g, b, a, d), prog, d, o);              \
        }, py::arg("graph"), py::arg("A"), py::arg("B"), py::arg("prog"), dc, opts);                                 \
  m.def(#NAME "WithOutput", [](Graph &g, py::handle a, py::handle b, const Tensor &out, Sequence &prog,             \
                               const poplar::DebugContext &d, const OptionFlags &o) {                                \
          auto [ta, tb] = tensorPair(g, a, b, d);                                                                    \
          static_cast<BinaryWithOutputFn>(&popops::NAME##WithOutput)(g, ta, tb, out, prog, d, o);                    \
        }, py::arg("graph"), py::arg("A"), py::arg("B"), py::arg("out"), py::arg("prog"), dc, opts);
  BIND_BINARY(add) BIND_BINARY(atan2) BIND_BINARY(bitwiseAnd) BIND_BINARY(bitwiseOr) BIND_BINARY(bitwiseXor)
  BIND_BINARY(bitwiseXnor) BIND_BINARY(div) BIND_BINARY(eq) BIND_BINARY(gt) BIND_BINARY(gteq)
  BIND_BINARY(logicalAnd) BIND_BINARY(logicalOr) BIND_BINARY(lt) BIND_BINARY(lteq) BIND_BINARY(max)
  BIND_BINARY(min) BIND_BINARY(mul) BIND_BINARY(neq) BIND_BINARY(pow) BIND_BINARY(rem) BIND_BINARY(shiftLeft)
  BIND_BINARY(shiftRight) BIND_BINARY(shiftRightSignExtend) BIND_BINARY(sub)
#undef BIND_BINARY

  m.def("select", &popops::select, py::arg("graph"), py::arg("A"), py::arg("B"), py::arg("conditions"),
        py::arg("prog"), dc, opts, "conditions ? A : B");
  m.def("selectInPlace", &popops::selectInPlace, py::arg("graph"), py::arg("A"), py::arg("B"),
        py::arg("conditions"), py::arg("prog"), dc, opts);
  m.def("clamp", &popops::clamp, py::arg("graph"), py::arg("values"), py::arg("minimums"), py::arg("maximums"),
        py::arg("prog"), dc, opts);
  m.def("selectWithOutput", &popops::selectWithOutput, py::arg("graph"), py::arg("A"), py::arg("B"),
        py::arg("conditions"), py::arg("out"), py::arg("prog"), dc, opts);
  m.def("clampWithOutput", &popops::clampWithOutput, py::arg("graph"), py::arg("values"), py::arg("minimums"),
        py::arg("maximums"), py::arg("out"), py::arg("prog"), dc, opts);

  using VarianceFn = Tensor (*)(Graph &, const Tensor &, const Tensor &, Sequence &, const poplar::Type,
                                const poplar::DebugContext &);
  using VarianceScalarFn = Tensor (*)(Graph &, const Tensor &, const float, Sequence &, const poplar::Type,
                                      const poplar::DebugContext &);
  const auto src = py::arg("src"), epsilon = py::arg("epsilon"), graph = py::arg("graph"), prog = py::arg("prog");
  m.def("varianceToInvStdDev", static_cast<VarianceFn>(&popops::varianceToInvStdDev), graph, src, epsilon, prog,
        py::arg("dstType") = poplar::HALF, dc);
  m.def("varianceToInvStdDev", static_cast<VarianceScalarFn>(&popops::varianceToInvStdDev), graph, src, epsilon,
        prog, py::arg("dstType") = poplar::HALF, dc);
  m.def("invStdDevToVariance", static_cast<VarianceFn>(&popops::invStdDevToVariance), graph, src, epsilon, prog,
        py::arg("dstType") = poplar::FLOAT, dc);
  m.def("invStdDevToVariance", static_cast<VarianceScalarFn>(&popops::invStdDevToVariance), graph, src, epsilon,
        prog, py::arg("dstType") = poplar::FLOAT, dc);
  m.def("createOutputForElementWiseOp", &popops::createOutputForElementWiseOp, graph, py::arg("inputs"),
        py::arg("outputType"), dc);
  m.def("clampInPlace", &popops::clampInPlace, py::arg("graph"), py::arg("values"), py::arg("minimums"),
        py::arg("maximums"), py::arg("prog"), dc, opts);
}

} // namespace popdsl_bindings
