#pragma once
// Checks a kernel's compile function makes of the operands it is given before using
// them. Kernels and their parameters may come from an executable file (damaged, or
// crafted), so nothing a compile function reads from its parameters is trusted to fit
// its operands: each kind checks the operand count, element counts (re-derived from the
// parameters without overflow) and element types, and throws poplar_error naming the
// kind and the mismatch.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <poplar/Type.hpp>

#include "Access.hpp"

namespace poplar::detail {

class KernelOperands {
public:
  // Exactly `count` operands (or between `count` and `maxCount`).
  KernelOperands(const char *kind, const std::vector<Access> &operands, std::size_t count,
                 std::size_t maxCount = 0);
  const Access &operator[](std::size_t i) const { return operands_[i]; }
  std::size_t size() const { return operands_.size(); }
  // Operand i has `expected` elements.
  const KernelOperands &elements(std::size_t i, std::size_t expected) const;
  // Operand i is of `expected` type (one of `allowed`).
  const KernelOperands &type(std::size_t i, const Type &expected) const;
  const KernelOperands &typeIn(std::size_t i, std::initializer_list<Type> allowed) const;
  const KernelOperands &sameType(std::size_t i, std::size_t j) const;
  // Throws unless `holds`: `what` says which parameter does not fit the operands.
  const KernelOperands &require(bool holds, const std::string &what) const;
  // The product of `factors`, throwing when it overflows std::size_t.
  std::size_t product(std::initializer_list<std::uint64_t> factors) const;
  std::size_t product(const std::vector<std::size_t> &factors) const;
  [[noreturn]] void fail(const std::string &problem) const;

private:
  const char *kind_;
  const std::vector<Access> &operands_;
};

} // namespace poplar::detail
