#include <popops/Expr.hpp>

#include <algorithm>
#include <sstream>

#include <poputil/exceptions.hpp>

#include "ExprTypes.hpp"

namespace popops::expr {

const PlaceHolder _1(1), _2(2), _3(3), _4(4), _5(5), _6(6), _7(7), _8(8), _9(9), _10(10), _11(11),
    _12(12), _13(13), _14(14), _15(15), _16(16), _17(17), _18(18), _19(19), _20(20);

const char *toString(UnaryOpType op) {
  static const char *const names[] = {
      "ABSOLUTE", "ASIN", "BITWISE_NOT", "CBRT", "CEIL", "COS", "COUNT_LEADING_ZEROS", "ERF",
      "EXPONENT", "EXPONENT_MINUS_ONE", "EXPONENT2", "FLOOR", "GELU_ERF", "INVERSE", "IS_FINITE",
      "IS_INF", "IS_NAN", "LOGARITHM", "LOGARITHM_ONE_PLUS", "LOGICAL_NOT", "NEGATE", "NEARBY_INT",
      "POPCOUNT", "RELU", "SIGNUM", "SIN", "TAN", "TANH", "ROUND", "SQRT", "SQUARE", "SIGMOID",
      "RSQRT", "TRUNC"};
  return names[static_cast<int>(op)];
}

const char *toString(BinaryOpType op) {
  static const char *const names[] = {
      "ADD", "ATAN2", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "BITWISE_XNOR", "DIVIDE", "EQUAL",
      "GREATER_THAN_EQUAL", "GREATER_THAN", "INV_STD_DEV_TO_VARIANCE", "LESS_THAN_EQUAL",
      "LOGICAL_AND", "LOGICAL_OR", "LESS_THAN", "MAXIMUM", "MINIMUM", "MULTIPLY", "NOT_EQUAL",
      "POWER", "REMAINDER", "SHIFT_LEFT", "SHIFT_RIGHT", "SHIFT_RIGHT_SIGN_EXTEND", "SUBTRACT",
      "VARIANCE_TO_INV_STD_DEV"};
  return names[static_cast<int>(op)];
}

const char *toString(TernaryOpType op) { return op == TernaryOpType::CLAMP ? "CLAMP" : "SELECT"; }

unsigned Expr::depthOver(const char *op, std::initializer_list<const Expr *> operands) {
  unsigned deepest = 0;
  for (const Expr *e : operands) deepest = std::max(deepest, e->depth_);
  if (deepest >= popops::detail::kMaxExpressionDepth)
    throw poputil::poplibs_error(std::string("popops::expr: ") + op + " would nest the expression " +
                                 std::to_string(deepest + 1) + " levels deep; the limit is " +
                                 std::to_string(popops::detail::kMaxExpressionDepth) +
                                 " (split the computation over several maps)");
  return deepest + 1;
}

std::ostream &operator<<(std::ostream &os, const Expr &expr) {
  expr.print(os, 0, false);
  return os;
}

std::string Const::printValue() const {
  std::ostringstream os;
  os << static_cast<double>(value_);
  return os.str();
}
std::string Const::name(const std::vector<poplar::Tensor> &) const { return "Const_" + printValue(); }
bool Const::deepEquals(const Expr &other) const {
  const auto *o = other.getAs<Const>();
  return o && o->value_ == value_ && o->type_ == type_;
}
void Const::print(std::ostream &os, unsigned, bool) const { os << printValue(); }

std::string Cast::name(const std::vector<poplar::Tensor> &inputs) const {
  return "Cast_" + a_->name(inputs) + "_" + type_.toString().str();
}
bool Cast::deepEquals(const Expr &other) const {
  const auto *o = other.getAs<Cast>();
  return o && o->type_ == type_ && a_->deepEquals(*o->a_);
}
void Cast::print(std::ostream &os, unsigned indent, bool pretty) const {
  os << "Cast(";
  a_->print(os, indent, pretty);
  os << ", " << type_ << ")";
}

std::string PlaceHolder::name(const std::vector<poplar::Tensor> &) const {
  return "_" + std::to_string(index_);
}
bool PlaceHolder::deepEquals(const Expr &other) const {
  const auto *o = other.getAs<PlaceHolder>();
  return o && o->index_ == index_;
}
void PlaceHolder::print(std::ostream &os, unsigned, bool) const { os << "_" << index_; }

std::string UnaryOp::name(const std::vector<poplar::Tensor> &inputs) const {
  return std::string(toString(type_)) + "_" + a_->name(inputs);
}
bool UnaryOp::deepEquals(const Expr &other) const {
  const auto *o = other.getAs<UnaryOp>();
  return o && o->type_ == type_ && a_->deepEquals(*o->a_);
}
void UnaryOp::print(std::ostream &os, unsigned indent, bool pretty) const {
  os << toString(type_) << "(";
  a_->print(os, indent, pretty);
  os << ")";
}

std::string BinaryOp::name(const std::vector<poplar::Tensor> &inputs) const {
  return std::string(toString(type_)) + "_" + a_->name(inputs) + "_" + b_->name(inputs);
}
bool BinaryOp::deepEquals(const Expr &other) const {
  const auto *o = other.getAs<BinaryOp>();
  return o && o->type_ == type_ && a_->deepEquals(*o->a_) && b_->deepEquals(*o->b_);
}
void BinaryOp::print(std::ostream &os, unsigned indent, bool pretty) const {
  os << toString(type_) << "(";
  a_->print(os, indent, pretty);
  os << ", ";
  b_->print(os, indent, pretty);
  os << ")";
}

std::string TernaryOp::name(const std::vector<poplar::Tensor> &inputs) const {
  return std::string(toString(type_)) + "_" + a_->name(inputs) + "_" + b_->name(inputs) + "_" +
         c_->name(inputs);
}
bool TernaryOp::deepEquals(const Expr &other) const {
  const auto *o = other.getAs<TernaryOp>();
  return o && o->type_ == type_ && a_->deepEquals(*o->a_) && b_->deepEquals(*o->b_) &&
         c_->deepEquals(*o->c_);
}
void TernaryOp::print(std::ostream &os, unsigned indent, bool pretty) const {
  os << toString(type_) << "(";
  a_->print(os, indent, pretty);
  os << ", ";
  b_->print(os, indent, pretty);
  os << ", ";
  c_->print(os, indent, pretty);
  os << ")";
}

} // namespace popops::expr
