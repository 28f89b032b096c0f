#pragma once
// Element-wise expressions for popops::map: placeholders _1.._20 stand for the
// mapped tensors; constants take the type of the operand they meet.
#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <popops/ExprOp.hpp>

namespace popops {
namespace expr {

class Expr {
public:
  virtual ~Expr() = default;
  template <class T> bool isA() const { return dynamic_cast<const T *>(this) != nullptr; }
  template <class T> T *getAs() { return dynamic_cast<T *>(this); }
  template <class T> const T *getAs() const { return dynamic_cast<const T *>(this); }
  virtual std::unique_ptr<Expr> clone() const = 0;
  virtual std::string name(const std::vector<poplar::Tensor> &inputs) const = 0;
  virtual bool deepEquals(const Expr &other) const = 0;
  virtual void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const = 0;

protected:
  Expr() = default;
  explicit Expr(unsigned depth) : depth_(depth) {}
  // The depth of a node over `operands`: one more than the deepest. Throws
  // poputil::poplibs_error naming `op` past the limit (Expr.cpp), so that cloning,
  // printing, freeing and compiling a tree, which recurse, stay on a small thread stack.
  static unsigned depthOver(const char *op, std::initializer_list<const Expr *> operands);

private:
  unsigned depth_ = 1; // levels of the tree under this node, itself included
};

std::ostream &operator<<(std::ostream &os, const Expr &expr);
inline bool deepEquals(const Expr &a, const Expr &b) { return a.deepEquals(b); }

// An owning handle to any expression (for lists of expressions).
class Any {
public:
  Any(const Expr &e) : expr_(e.clone()) {}
  Any(const Any &other) : expr_(other.expr_->clone()) {}
  Any(Any &&) = default;
  Any &operator=(const Any &other) { expr_ = other.expr_->clone(); return *this; }
  operator Expr &() { return *expr_; }
  operator const Expr &() const { return *expr_; }
  const Expr &get() const { return *expr_; }

private:
  std::unique_ptr<Expr> expr_;
};

class Const : public Expr {
public:
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  Const(T x) : Const(static_cast<long double>(x), typeOf<T>()) {}
  Const(long double value, poplar::Type type) : value_(value), type_(type) {}

  const poplar::Type &getType() const { return type_; }
  double getDataAsDouble() const { return static_cast<double>(value_); }
  // The value of an unsigned integral constant (exact where long double has a 64-bit
  // mantissa, as on x86-64; a double cannot hold every 64-bit value).
  std::uint64_t getDataForUnsignedIntegral() const { return static_cast<std::uint64_t>(value_); }
  long double getValue() const { return value_; }
  std::string printValue() const;

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new Const(*this)); }
  std::string name(const std::vector<poplar::Tensor> &) const override;
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  template <class T> static poplar::Type typeOf() {
    if (std::is_same<T, bool>::value) return poplar::BOOL;
    if (std::is_floating_point<T>::value) return poplar::FLOAT;
    if (sizeof(T) == 8) return std::is_signed<T>::value ? poplar::LONGLONG : poplar::UNSIGNED_LONGLONG;
    if (sizeof(T) == 2) return std::is_signed<T>::value ? poplar::SHORT : poplar::UNSIGNED_SHORT;
    if (sizeof(T) == 1) return std::is_signed<T>::value ? poplar::CHAR : poplar::UNSIGNED_CHAR;
    return std::is_signed<T>::value ? poplar::INT : poplar::UNSIGNED_INT;
  }
  long double value_;
  poplar::Type type_;
};

class ConstHalf : public Const {
public:
  ConstHalf(float x) : Const(static_cast<long double>(x), poplar::HALF) {}
};

inline ConstHalf operator"" _half(long double x) { return ConstHalf(static_cast<float>(x)); }

class Cast : public Expr {
public:
  Cast(const Expr &a, const poplar::Type type) : Expr(depthOver("Cast", {&a})), a_(a.clone()), type_(type) {}
  Cast(const Cast &other) : Expr(other), a_(other.a_->clone()), type_(other.type_) {}
  const Expr &getLHS() const { return *a_; }
  const poplar::Type &getRHSType() const { return type_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new Cast(*this)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  std::unique_ptr<Expr> a_;
  poplar::Type type_;
};

class PlaceHolder : public Expr {
public:
  explicit PlaceHolder(unsigned index) : index_(index) {}
  unsigned getIndex() const { return index_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new PlaceHolder(*this)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  unsigned index_;
};

extern const PlaceHolder _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,
    _17, _18, _19, _20;

class UnaryOp : public Expr {
public:
  UnaryOp(UnaryOpType type, const Expr &a) : Expr(depthOver(toString(type), {&a})), type_(type), a_(a.clone()) {}
  UnaryOp(const UnaryOp &other) : Expr(other), type_(other.type_), a_(other.a_->clone()) {}
  UnaryOpType getOpType() const { return type_; }
  const Expr &getArg() const { return *a_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new UnaryOp(*this)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  UnaryOpType type_;
  std::unique_ptr<Expr> a_;
};

class BinaryOp : public Expr {
public:
  BinaryOp(BinaryOpType type, const Expr &a, const Expr &b)
      : Expr(depthOver(toString(type), {&a, &b})), type_(type), a_(a.clone()), b_(b.clone()) {}
  BinaryOp(const BinaryOp &other)
      : Expr(other), type_(other.type_), a_(other.a_->clone()), b_(other.b_->clone()) {}
  BinaryOpType getOpType() const { return type_; }
  const Expr &getLHS() const { return *a_; }
  const Expr &getRHS() const { return *b_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new BinaryOp(*this)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  BinaryOpType type_;
  std::unique_ptr<Expr> a_, b_;
};

class TernaryOp : public Expr {
public:
  TernaryOp(TernaryOpType type, const Expr &a, const Expr &b, const Expr &c)
      : Expr(depthOver(toString(type), {&a, &b, &c})), type_(type), a_(a.clone()), b_(b.clone()), c_(c.clone()) {}
  TernaryOp(const TernaryOp &other)
      : Expr(other), type_(other.type_), a_(other.a_->clone()), b_(other.b_->clone()), c_(other.c_->clone()) {}
  TernaryOpType getOpType() const { return type_; }
  const Expr &getArg0() const { return *a_; }
  const Expr &getArg1() const { return *b_; }
  const Expr &getArg2() const { return *c_; }

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new TernaryOp(*this)); }
  std::string name(const std::vector<poplar::Tensor> &inputs) const override;
  bool deepEquals(const Expr &other) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  TernaryOpType type_;
  std::unique_ptr<Expr> a_, b_, c_;
};

// Named operations: thin wrappers whose clones are plain UnaryOp/BinaryOp/TernaryOp.
#define POPOPS_UNARY_EXPR(NAME, OP)                                                      \
  class NAME : public UnaryOp {                                                          \
  public:                                                                                \
    NAME(const Expr &a) : UnaryOp(UnaryOpType::OP, a) {}                                 \
  };
#define POPOPS_BINARY_EXPR(NAME, OP)                                                     \
  class NAME : public BinaryOp {                                                         \
  public:                                                                                \
    NAME(const Expr &a, const Expr &b) : BinaryOp(BinaryOpType::OP, a, b) {}             \
  };

POPOPS_UNARY_EXPR(Abs, ABSOLUTE)
POPOPS_UNARY_EXPR(Asin, ASIN)
POPOPS_UNARY_EXPR(BitwiseNot, BITWISE_NOT)
POPOPS_UNARY_EXPR(Cbrt, CBRT)
POPOPS_UNARY_EXPR(Erf, ERF)
POPOPS_UNARY_EXPR(Ceil, CEIL)
POPOPS_UNARY_EXPR(Cos, COS)
POPOPS_UNARY_EXPR(Exp, EXPONENT)
POPOPS_UNARY_EXPR(Expm1, EXPONENT_MINUS_ONE)
POPOPS_UNARY_EXPR(Exp2, EXPONENT2)
POPOPS_UNARY_EXPR(Floor, FLOOR)
POPOPS_UNARY_EXPR(GeluErf, GELU_ERF)
POPOPS_UNARY_EXPR(Inv, INVERSE)
POPOPS_UNARY_EXPR(IsFinite, IS_FINITE)
POPOPS_UNARY_EXPR(IsInf, IS_INF)
POPOPS_UNARY_EXPR(IsNaN, IS_NAN)
POPOPS_UNARY_EXPR(Log, LOGARITHM)
POPOPS_UNARY_EXPR(Log1p, LOGARITHM_ONE_PLUS)
POPOPS_UNARY_EXPR(Not, LOGICAL_NOT)
POPOPS_UNARY_EXPR(Neg, NEGATE)
POPOPS_UNARY_EXPR(NearbyInt, NEARBY_INT)
POPOPS_UNARY_EXPR(Signum, SIGNUM)
POPOPS_UNARY_EXPR(Sin, SIN)
POPOPS_UNARY_EXPR(Tan, TAN)
POPOPS_UNARY_EXPR(Tanh, TANH)
POPOPS_UNARY_EXPR(Round, ROUND)
POPOPS_UNARY_EXPR(Trunc, TRUNC)
POPOPS_UNARY_EXPR(Sqrt, SQRT)
POPOPS_UNARY_EXPR(Square, SQUARE)
POPOPS_UNARY_EXPR(Sigmoid, SIGMOID)
POPOPS_UNARY_EXPR(Rsqrt, RSQRT)

POPOPS_BINARY_EXPR(Add, ADD)
POPOPS_BINARY_EXPR(Atan2, ATAN2)
POPOPS_BINARY_EXPR(BitwiseAnd, BITWISE_AND)
POPOPS_BINARY_EXPR(BitwiseOr, BITWISE_OR)
POPOPS_BINARY_EXPR(BitwiseXor, BITWISE_XOR)
POPOPS_BINARY_EXPR(BitwiseXnor, BITWISE_XNOR)
POPOPS_BINARY_EXPR(Divide, DIVIDE)
POPOPS_BINARY_EXPR(Equal, EQUAL)
POPOPS_BINARY_EXPR(Gte, GREATER_THAN_EQUAL)
POPOPS_BINARY_EXPR(Gt, GREATER_THAN)
POPOPS_BINARY_EXPR(InvStdDevToVariance, INV_STD_DEV_TO_VARIANCE)
POPOPS_BINARY_EXPR(Lte, LESS_THAN_EQUAL)
POPOPS_BINARY_EXPR(And, LOGICAL_AND)
POPOPS_BINARY_EXPR(Or, LOGICAL_OR)
POPOPS_BINARY_EXPR(Lt, LESS_THAN)
POPOPS_BINARY_EXPR(Max, MAXIMUM)
POPOPS_BINARY_EXPR(Min, MINIMUM)
POPOPS_BINARY_EXPR(Mul, MULTIPLY)
POPOPS_BINARY_EXPR(NotEqual, NOT_EQUAL)
POPOPS_BINARY_EXPR(Pow, POWER)
POPOPS_BINARY_EXPR(Rem, REMAINDER)
POPOPS_BINARY_EXPR(Shl, SHIFT_LEFT)
POPOPS_BINARY_EXPR(Shr, SHIFT_RIGHT)
POPOPS_BINARY_EXPR(ShrSE, SHIFT_RIGHT_SIGN_EXTEND)
POPOPS_BINARY_EXPR(Sub, SUBTRACT)
POPOPS_BINARY_EXPR(VarianceToInvStdDev, VARIANCE_TO_INV_STD_DEV)

#undef POPOPS_UNARY_EXPR
#undef POPOPS_BINARY_EXPR

// Select(a, b, c) is c ? a : b; Clamp(a, lo, hi) is min(max(a, lo), hi).
class Select : public TernaryOp {
public:
  Select(const Expr &a, const Expr &b, const Expr &c) : TernaryOp(TernaryOpType::SELECT, a, b, c) {}
};
class Clamp : public TernaryOp {
public:
  Clamp(const Expr &a, const Expr &b, const Expr &c) : TernaryOp(TernaryOpType::CLAMP, a, b, c) {}
};

template <class T>
using IfScalar = typename std::enable_if<std::is_arithmetic<T>::value && !std::is_base_of<Expr, T>::value>::type;

#define POPOPS_EXPR_OPERATOR(SYMBOL, NAME)                                                   \
  inline NAME operator SYMBOL(const Expr &a, const Expr &b) { return NAME(a, b); }         \
  template <class T, class = IfScalar<T>> NAME operator SYMBOL(const T &a, const Expr &b) { \
    return NAME(Const(a), b);                                                              \
  }                                                                                        \
  template <class T, class = IfScalar<T>> NAME operator SYMBOL(const Expr &a, const T &b) { \
    return NAME(a, Const(b));                                                              \
  }

POPOPS_EXPR_OPERATOR(+, Add)
POPOPS_EXPR_OPERATOR(&, BitwiseAnd)
POPOPS_EXPR_OPERATOR(|, BitwiseOr)
POPOPS_EXPR_OPERATOR(^, BitwiseXor)
POPOPS_EXPR_OPERATOR(/, Divide)
POPOPS_EXPR_OPERATOR(==, Equal)
POPOPS_EXPR_OPERATOR(>=, Gte)
POPOPS_EXPR_OPERATOR(>, Gt)
POPOPS_EXPR_OPERATOR(<=, Lte)
POPOPS_EXPR_OPERATOR(&&, And)
POPOPS_EXPR_OPERATOR(||, Or)
POPOPS_EXPR_OPERATOR(<, Lt)
POPOPS_EXPR_OPERATOR(*, Mul)
POPOPS_EXPR_OPERATOR(!=, NotEqual)
POPOPS_EXPR_OPERATOR(%, Rem)
POPOPS_EXPR_OPERATOR(<<, Shl)
POPOPS_EXPR_OPERATOR(>>, Shr)
POPOPS_EXPR_OPERATOR(-, Sub)
#undef POPOPS_EXPR_OPERATOR

inline Neg operator-(const Expr &a) { return Neg(a); }
inline Not operator!(const Expr &a) { return Not(a); }
inline BitwiseNot operator~(const Expr &a) { return BitwiseNot(a); }

} // namespace expr
} // namespace popops
