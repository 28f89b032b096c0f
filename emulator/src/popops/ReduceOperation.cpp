#include <popops/Operation.hpp>
#include <poputil/exceptions.hpp>

#include <string>

namespace popops {

namespace {
const char *const kOperationNames[] = {"ADD",        "MUL",        "MIN",        "MAX",
                                       "LOGICAL_AND", "LOGICAL_OR", "SQUARE_ADD", "LOG_ADD"};
} // namespace

std::istream &operator>>(std::istream &is, Operation &op) {
  std::string token;
  is >> token;
  for (unsigned i = 0; i < std::size(kOperationNames); ++i)
    if (token == kOperationNames[i]) {
      op = static_cast<Operation>(i);
      return is;
    }
  throw poputil::poplibs_error("Unrecognised operation '" + token + "'");
}

std::ostream &operator<<(std::ostream &os, const Operation &op) {
  const auto i = static_cast<unsigned>(op);
  if (i >= std::size(kOperationNames))
    throw poputil::poplibs_error("Unknown operation value " + std::to_string(i));
  return os << kOperationNames[i];
}

} // namespace popops
