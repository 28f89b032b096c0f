#pragma once
#include <iosfwd>
#include <istream>
#include <ostream>

#include <popops/OperationDef.hpp>

namespace popops {

// Reads an operation by its enumerator name ("ADD", "MUL", ...).
std::istream &operator>>(std::istream &is, Operation &op);
std::ostream &operator<<(std::ostream &os, const Operation &op);

} // namespace popops
