#include "KernelOperands.hpp"

#include <limits>

#include <poplar/exceptions.hpp>

namespace poplar::detail {

KernelOperands::KernelOperands(const char *kind, const std::vector<Access> &operands, std::size_t count,
                               std::size_t maxCount)
    : kind_(kind), operands_(operands) {
  const std::size_t most = maxCount ? maxCount : count;
  if (operands.size() < count || operands.size() > most)
    fail("it has " + std::to_string(operands.size()) + " operand(s), not " + std::to_string(count) +
         (most != count ? " to " + std::to_string(most) : ""));
}

void KernelOperands::fail(const std::string &problem) const {
  throw poplar_error(std::string("Kernel ") + kind_ + ": its parameters do not fit its operands (a damaged "
                     "executable?): " + problem);
}

const KernelOperands &KernelOperands::elements(std::size_t i, std::size_t expected) const {
  if (operands_[i].numElements != expected)
    fail("operand " + std::to_string(i) + " has " + std::to_string(operands_[i].numElements) +
         " elements, the parameters give " + std::to_string(expected));
  return *this;
}

const KernelOperands &KernelOperands::type(std::size_t i, const Type &expected) const {
  return typeIn(i, {expected});
}

const KernelOperands &KernelOperands::typeIn(std::size_t i, std::initializer_list<Type> allowed) const {
  for (const Type &t : allowed)
    if (operands_[i].type == t) return *this;
  fail("operand " + std::to_string(i) + " is of type " + operands_[i].type.toString().str());
}

const KernelOperands &KernelOperands::sameType(std::size_t i, std::size_t j) const {
  if (operands_[i].type != operands_[j].type)
    fail("operands " + std::to_string(i) + " and " + std::to_string(j) + " are of types " +
         operands_[i].type.toString().str() + " and " + operands_[j].type.toString().str());
  return *this;
}

const KernelOperands &KernelOperands::require(bool holds, const std::string &what) const {
  if (!holds) fail(what);
  return *this;
}

std::size_t KernelOperands::product(std::initializer_list<std::uint64_t> factors) const {
  return product(std::vector<std::size_t>(factors.begin(), factors.end()));
}

std::size_t KernelOperands::product(const std::vector<std::size_t> &factors) const {
  std::size_t result = 1;
  for (std::size_t f : factors) {
    if (f != 0 && result > std::numeric_limits<std::size_t>::max() / f) fail("a size overflows");
    result *= f;
  }
  return result;
}

} // namespace poplar::detail
