#pragma once
// popops expressions with every node's element type resolved by poplibs' rules:
// constants take the type of the operand they meet, relational and logical
// operations give BOOL, and mismatched operand types are an error (no promotion).
#include <vector>

#include <poplar/Type.hpp>
#include <popops/Expr.hpp>

#include "poplar/Bytes.hpp"

namespace popops::detail {

// The deepest expression tree, in levels: the constructors of popops::expr operations
// refuse deeper ones, and executables are read with the same bound. Every walk of a tree
// recurses once a level; at this depth the deepest (compiling a map) stays well inside a
// 1 MiB thread stack.
constexpr unsigned kMaxExpressionDepth = 1000;

struct TypedExpr {
  enum class Kind { Input, Const, Cast, Unary, Binary, Ternary };
  Kind kind;
  poplar::Type type;
  unsigned input = 0;    // Input: 0-based index into the mapped tensors
  long double value = 0; // Const
  int op = 0;            // Unary/Binary/TernaryOpType
  std::vector<TypedExpr> args;
};

// Throws poputil::poplibs_error naming the expression when types cannot be resolved
// or an operation does not support its operand type.
TypedExpr resolveTypes(const expr::Expr &e, const std::vector<poplar::Type> &inputTypes);

// The portable form of a typed expression tree (a map kernel's parameters).
void writeTypedExpr(poplar::detail::ByteWriter &out, const TypedExpr &e);
TypedExpr readTypedExpr(poplar::detail::ByteReader &in);

// Checks a tree read from an executable against the operands it will run on: each
// node's argument count, operation and constant, placeholders within `inputTypes` and of
// their types, operands of one type where the kernels assume it, and a root of
// `outputType`. Throws poplar_error naming what is wrong.
void checkTypedExpr(const TypedExpr &e, const std::vector<poplar::Type> &inputTypes, const poplar::Type &outputType);

// The highest placeholder index used (0 when there is none).
unsigned maxPlaceholder(const expr::Expr &e);

} // namespace popops::detail
