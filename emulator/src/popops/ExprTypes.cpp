#include "ExprTypes.hpp"

#include <cmath>
#include <optional>
#include <sstream>

#include <poputil/exceptions.hpp>

#include "poplar/TypeInfo.hpp"

namespace popops::detail {

using namespace popops::expr;
using poplar::Type;
using poputil::poplibs_error;
using TypeKind = poplar::detail::TypeKind;

namespace {

bool isFloat(Type t) { return t == poplar::FLOAT || t == poplar::HALF; }
bool isInteger(Type t) {
  const auto k = poplar::detail::typeInfo(t).kind;
  return k == TypeKind::Signed || k == TypeKind::Unsigned;
}

bool returnsBool(BinaryOpType op) {
  switch (op) {
  case BinaryOpType::EQUAL: case BinaryOpType::NOT_EQUAL: case BinaryOpType::LESS_THAN:
  case BinaryOpType::LESS_THAN_EQUAL: case BinaryOpType::GREATER_THAN:
  case BinaryOpType::GREATER_THAN_EQUAL: case BinaryOpType::LOGICAL_AND:
  case BinaryOpType::LOGICAL_OR:
    return true;
  default:
    return false;
  }
}

bool returnsBool(UnaryOpType op) {
  return op == UnaryOpType::IS_FINITE || op == UnaryOpType::IS_INF || op == UnaryOpType::IS_NAN ||
         op == UnaryOpType::LOGICAL_NOT;
}

enum class Domain { Float, Integer, Numeric, Bool, Any };

Domain domainOf(UnaryOpType op) {
  switch (op) {
  case UnaryOpType::BITWISE_NOT: case UnaryOpType::COUNT_LEADING_ZEROS: case UnaryOpType::POPCOUNT:
    return Domain::Integer;
  case UnaryOpType::ABSOLUTE: case UnaryOpType::NEGATE: case UnaryOpType::SIGNUM:
  case UnaryOpType::SQUARE: case UnaryOpType::RELU:
    return Domain::Numeric;
  case UnaryOpType::LOGICAL_NOT:
    return Domain::Bool;
  default:
    return Domain::Float;
  }
}

Domain domainOf(BinaryOpType op) {
  switch (op) {
  case BinaryOpType::ATAN2: case BinaryOpType::POWER: case BinaryOpType::INV_STD_DEV_TO_VARIANCE:
  case BinaryOpType::VARIANCE_TO_INV_STD_DEV:
    return Domain::Float;
  case BinaryOpType::BITWISE_AND: case BinaryOpType::BITWISE_OR: case BinaryOpType::BITWISE_XOR:
  case BinaryOpType::BITWISE_XNOR: case BinaryOpType::SHIFT_LEFT: case BinaryOpType::SHIFT_RIGHT:
  case BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND:
    return Domain::Integer;
  case BinaryOpType::LOGICAL_AND: case BinaryOpType::LOGICAL_OR:
    return Domain::Bool;
  case BinaryOpType::EQUAL: case BinaryOpType::NOT_EQUAL: case BinaryOpType::LESS_THAN:
  case BinaryOpType::LESS_THAN_EQUAL: case BinaryOpType::GREATER_THAN:
  case BinaryOpType::GREATER_THAN_EQUAL:
    return Domain::Any;
  default:
    return Domain::Numeric;
  }
}

bool inDomain(Type t, Domain d) {
  switch (d) {
  case Domain::Float: return isFloat(t);
  case Domain::Integer: return isInteger(t);
  case Domain::Numeric: return isFloat(t) || isInteger(t);
  case Domain::Bool: return t == poplar::BOOL;
  case Domain::Any: return isFloat(t) || isInteger(t) || t == poplar::BOOL;
  }
  return false;
}

std::string text(const Expr &e) {
  std::ostringstream os;
  os << e;
  return os.str();
}

// The errors of type resolution, built out of line: resolving recurses once a level of the
// tree, and messages built in place would make every frame several times larger.
[[noreturn, gnu::noinline]] void refuseType(const std::string &message, const Expr &e) {
  throw poplibs_error(message + " (in expression " + text(e) + ")");
}
[[noreturn, gnu::noinline]] void refuseDomain(Type t, const char *op, const Expr &e) {
  refuseType(std::string("Operation ") + op + " does not support element type " + t.toString().str(), e);
}
[[noreturn, gnu::noinline]] void refuseUntyped(BinaryOpType op, const Expr &e) {
  refuseType(std::string("Cannot infer the operand type of ") + toString(op) + " between two constants", e);
}
[[noreturn, gnu::noinline]] void refuseCondition(Type t, const Expr &e) {
  refuseType("The condition of SELECT must be BOOL, not " + t.toString().str(), e);
}
[[noreturn, gnu::noinline]] void refuseOperands(BinaryOpType op, Type lhs, Type rhs, const Expr &e) {
  throw poplibs_error("Inferred type of lhs (" + lhs.toString().str() + ") does not match inferred type of rhs (" +
                      rhs.toString().str() + ") of " + toString(op) + " (in expression " + text(e) +
                      "); use Cast to convert");
}
[[noreturn, gnu::noinline]] void refuseOperands(TernaryOpType op, Type first, Type other, const Expr &e) {
  throw poplibs_error(std::string("Operand types of ") + toString(op) + " differ (" + first.toString().str() +
                      " vs " + other.toString().str() + ") in expression " + text(e));
}

class Resolver {
public:
  explicit Resolver(const std::vector<Type> &inputs) : inputs_(inputs) {}

  // The type an expression has on its own; none for constants that wait for a partner.
  std::optional<Type> fixedType(const Expr &e) const {
    if (const auto *p = e.getAs<PlaceHolder>()) return inputType(*p);
    if (e.isA<Const>()) return std::nullopt;
    if (const auto *c = e.getAs<Cast>()) return c->getRHSType();
    if (const auto *u = e.getAs<UnaryOp>())
      return returnsBool(u->getOpType()) ? std::optional<Type>(poplar::BOOL) : fixedType(u->getArg());
    if (const auto *b = e.getAs<BinaryOp>()) {
      if (returnsBool(b->getOpType())) return poplar::BOOL;
      if (auto t = fixedType(b->getLHS())) return t;
      return fixedType(b->getRHS());
    }
    const auto &t = *e.getAs<TernaryOp>();
    if (auto a = fixedType(t.getArg0())) return a;
    if (auto b = fixedType(t.getArg1())) return b;
    if (t.getOpType() == TernaryOpType::CLAMP) return fixedType(t.getArg2());
    return std::nullopt;
  }

  TypedExpr resolve(const Expr &e, std::optional<Type> expected) const {
    TypedExpr out;
    if (const auto *p = e.getAs<PlaceHolder>()) {
      out.kind = TypedExpr::Kind::Input;
      out.input = p->getIndex() - 1;
      out.type = inputType(*p);
    } else if (const auto *c = e.getAs<Const>()) {
      out.kind = TypedExpr::Kind::Const;
      out.value = c->getValue();
      out.type = expected ? *expected : c->getType();
    } else if (const auto *cast = e.getAs<Cast>()) {
      out.kind = TypedExpr::Kind::Cast;
      out.type = cast->getRHSType();
      out.args.push_back(resolve(cast->getLHS(), fixedType(cast->getLHS())));
    } else if (const auto *u = e.getAs<UnaryOp>()) {
      resolveUnary(*u, expected, out);
    } else if (const auto *b = e.getAs<BinaryOp>()) {
      resolveBinary(*b, expected, out);
    } else {
      resolveTernary(*e.getAs<TernaryOp>(), expected, out);
    }
    return out;
  }

private:
  Type inputType(const PlaceHolder &p) const {
    if (p.getIndex() == 0 || p.getIndex() > inputs_.size())
      throw poplibs_error("Invalid placeholder _" + std::to_string(p.getIndex()) + ": the map has " +
                          std::to_string(inputs_.size()) + " input tensor(s)");
    return inputs_[p.getIndex() - 1];
  }

  static void checkDomain(Type t, Domain d, const char *op, const Expr &e) {
    if (!inDomain(t, d)) refuseDomain(t, op, e);
  }

  void resolveUnary(const UnaryOp &u, std::optional<Type> expected, TypedExpr &out) const {
    const UnaryOpType op = u.getOpType();
    out.kind = TypedExpr::Kind::Unary;
    out.op = static_cast<int>(op);
    const bool toBool = returnsBool(op);
    out.args.push_back(resolve(u.getArg(), toBool ? fixedType(u.getArg()) : expected));
    checkDomain(out.args[0].type, domainOf(op), toString(op), u);
    out.type = toBool ? poplar::BOOL : out.args[0].type;
  }

  void resolveBinary(const BinaryOp &b, std::optional<Type> expected, TypedExpr &out) const {
    const BinaryOpType op = b.getOpType();
    out.kind = TypedExpr::Kind::Binary;
    out.op = static_cast<int>(op);
    const auto lhs = fixedType(b.getLHS()), rhs = fixedType(b.getRHS());
    std::optional<Type> common = lhs ? lhs : rhs;
    if (!common && !returnsBool(op)) common = expected;
    if (!common) {
      if (returnsBool(op))
        refuseUntyped(op, b);
      common = b.getLHS().getAs<Const>() ? b.getLHS().getAs<Const>()->getType() : std::optional<Type>();
    }
    out.args.push_back(resolve(b.getLHS(), common));
    out.args.push_back(resolve(b.getRHS(), out.args[0].type));
    if (out.args[0].type != out.args[1].type)
      refuseOperands(op, out.args[0].type, out.args[1].type, b);
    checkDomain(out.args[0].type, domainOf(op), toString(op), b);
    out.type = returnsBool(op) ? poplar::BOOL : out.args[0].type;
  }

  void resolveTernary(const TernaryOp &t, std::optional<Type> expected, TypedExpr &out) const {
    const TernaryOpType op = t.getOpType();
    out.kind = TypedExpr::Kind::Ternary;
    out.op = static_cast<int>(op);
    std::optional<Type> common = fixedType(t.getArg0());
    if (!common) common = fixedType(t.getArg1());
    if (!common && op == TernaryOpType::CLAMP) common = fixedType(t.getArg2());
    if (!common) common = expected;
    out.args.push_back(resolve(t.getArg0(), common));
    out.args.push_back(resolve(t.getArg1(), out.args[0].type));
    if (op == TernaryOpType::SELECT) {
      out.args.push_back(resolve(t.getArg2(), fixedType(t.getArg2())));
      if (out.args[2].type != poplar::BOOL)
        refuseCondition(out.args[2].type, t);
      checkDomain(out.args[0].type, Domain::Any, "SELECT", t);
    } else {
      out.args.push_back(resolve(t.getArg2(), out.args[0].type));
      checkDomain(out.args[0].type, Domain::Numeric, "CLAMP", t);
    }
    for (std::size_t i = 1; i < 2 + (op == TernaryOpType::CLAMP); ++i)
      if (out.args[i].type != out.args[0].type)
        refuseOperands(op, out.args[0].type, out.args[i].type, t);
    out.type = out.args[0].type;
  }

  const std::vector<Type> &inputs_;
};

} // namespace

TypedExpr resolveTypes(const Expr &e, const std::vector<Type> &inputTypes) {
  Resolver r(inputTypes);
  return r.resolve(e, r.fixedType(e));
}

unsigned maxPlaceholder(const Expr &e) {
  if (const auto *p = e.getAs<PlaceHolder>()) return p->getIndex();
  if (const auto *c = e.getAs<Cast>()) return maxPlaceholder(c->getLHS());
  if (const auto *u = e.getAs<UnaryOp>()) return maxPlaceholder(u->getArg());
  if (const auto *b = e.getAs<BinaryOp>())
    return std::max(maxPlaceholder(b->getLHS()), maxPlaceholder(b->getRHS()));
  if (const auto *t = e.getAs<TernaryOp>())
    return std::max({maxPlaceholder(t->getArg0()), maxPlaceholder(t->getArg1()),
                     maxPlaceholder(t->getArg2())});
  return 0;
}

void writeTypedExpr(poplar::detail::ByteWriter &out, const TypedExpr &e) {
  // A long double constant as a double plus the (exactly representable) rest.
  const double high = static_cast<double>(e.value);
  out.u64(static_cast<unsigned>(e.kind)).type(e.type).u64(e.input).f64(high)
      .f64(static_cast<double>(e.value - high)).i64(e.op).u64(e.args.size());
  for (const TypedExpr &a : e.args) writeTypedExpr(out, a);
}

namespace {

// No tree is built deeper than kMaxExpressionDepth; a crafted one is refused before its
// reading and compiling could run off the end of the stack.
TypedExpr readTypedExpr(poplar::detail::ByteReader &in, unsigned depth) {
  if (depth > kMaxExpressionDepth) in.corrupt();
  TypedExpr e;
  const std::uint64_t kind = in.u64();
  if (kind > static_cast<unsigned>(TypedExpr::Kind::Ternary)) in.corrupt();
  e.kind = static_cast<TypedExpr::Kind>(kind);
  e.type = in.type();
  e.input = static_cast<unsigned>(in.u64());
  e.value = static_cast<long double>(in.f64());
  e.value += static_cast<long double>(in.f64());
  e.op = static_cast<int>(in.i64());
  e.args.resize(in.count(8));
  for (TypedExpr &a : e.args) a = readTypedExpr(in, depth + 1);
  return e;
}

[[noreturn]] void corruptExpression(const std::string &problem) {
  throw poplar::poplar_error("popops::map kernel: the expression read from the executable is corrupt: " + problem);
}

bool holdsConstant(const poplar::Type &type, long double value) {
  using poplar::detail::TypeKind;
  const poplar::detail::TypeInfo &info = poplar::detail::typeInfo(type);
  if (info.kind != TypeKind::Bool && info.kind != TypeKind::Signed && info.kind != TypeKind::Unsigned)
    return true; // floating-point types take any value (infinities and NaN too)
  if (!(value == value)) return false;
  const long double range = info.kind == TypeKind::Bool ? 2.0L : std::ldexp(1.0L, 8 * static_cast<int>(info.size));
  const long double low = info.kind == TypeKind::Signed ? -range / 2 : 0;
  return value >= low && value < low + range;
}

} // namespace

TypedExpr readTypedExpr(poplar::detail::ByteReader &in) { return readTypedExpr(in, 1); }

void checkTypedExpr(const TypedExpr &e, const std::vector<poplar::Type> &inputTypes, const poplar::Type &outputType) {
  if (e.type != outputType)
    corruptExpression("its result is " + e.type.toString().str() + " but the output is " + outputType.toString().str());
  using K = TypedExpr::Kind;
  static const std::size_t arity[] = {0, 0, 1, 1, 2, 3}; // by Kind
  static const int opCount[] = {0, 0, 0, static_cast<int>(UnaryOpType::TRUNC) + 1,
                                static_cast<int>(BinaryOpType::VARIANCE_TO_INV_STD_DEV) + 1,
                                static_cast<int>(TernaryOpType::SELECT) + 1};
  const auto kind = static_cast<std::size_t>(e.kind);
  if (e.args.size() != arity[kind])
    corruptExpression("a node of kind " + std::to_string(kind) + " has " + std::to_string(e.args.size()) +
                      " operands");
  if (opCount[kind] && (e.op < 0 || e.op >= opCount[kind]))
    corruptExpression("operation " + std::to_string(e.op) + " does not exist");
  switch (e.kind) {
  case K::Input:
    if (e.input >= inputTypes.size())
      corruptExpression("placeholder _" + std::to_string(std::size_t(e.input) + 1) + " but the map has " +
                        std::to_string(inputTypes.size()) + " operand(s)");
    if (inputTypes[e.input] != e.type)
      corruptExpression("placeholder _" + std::to_string(std::size_t(e.input) + 1) + " is " + e.type.toString().str() +
                        " but its operand is " + inputTypes[e.input].toString().str());
    return;
  case K::Const:
    if (!holdsConstant(e.type, e.value)) corruptExpression("a constant does not fit its type " + e.type.toString().str());
    return;
  case K::Cast: checkTypedExpr(e.args[0], inputTypes, e.args[0].type); return;
  case K::Unary: checkTypedExpr(e.args[0], inputTypes, e.args[0].type); return;
  case K::Binary:
  case K::Ternary:
    break;
  }
  // Binary operations and CLAMP take operands of one type; SELECT's third is its BOOL condition.
  const bool select = e.kind == K::Ternary && e.op == static_cast<int>(TernaryOpType::SELECT);
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    const poplar::Type expected = select && i == 2 ? poplar::BOOL : e.args[0].type;
    checkTypedExpr(e.args[i], inputTypes, expected);
  }
}

} // namespace popops::detail
