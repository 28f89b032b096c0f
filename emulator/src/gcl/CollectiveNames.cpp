// Stream operators for the gcl enums and CommGroup.
#include <gcl/Collectives.hpp>
#include <poputil/exceptions.hpp>

#include <istream>
#include <iterator>
#include <ostream>
#include <string>

namespace gcl {

namespace {

const char *const kOperatorNames[] = {"ADD", "MEAN", "MUL", "MIN", "MAX", "LOGICAL_AND", "LOGICAL_OR", "SQUARE_ADD",
                                      "LOCAL"};
const char *const kGroupTypeNames[] = {"ALL", "CONSECUTIVE", "ORTHOGONAL"};

template <std::size_t N> const char *nameOf(const char *const (&names)[N], unsigned value, const char *what) {
  if (value >= N) throw poputil::poplibs_error(std::string("Unknown ") + what + " value " + std::to_string(value));
  return names[value];
}

} // namespace

std::ostream &operator<<(std::ostream &os, const CollectiveOperator &op) {
  return os << nameOf(kOperatorNames, static_cast<unsigned>(op), "gcl::CollectiveOperator");
}

std::istream &operator>>(std::istream &is, CollectiveOperator &op) {
  std::string token;
  is >> token;
  for (unsigned i = 0; i < std::size(kOperatorNames); ++i)
    if (token == kOperatorNames[i]) {
      op = static_cast<CollectiveOperator>(i);
      return is;
    }
  throw poputil::poplibs_error("Unrecognised gcl::CollectiveOperator '" + token + "'");
}

std::ostream &operator<<(std::ostream &os, const CommGroupType &type) {
  return os << nameOf(kGroupTypeNames, static_cast<unsigned>(type), "gcl::CommGroupType");
}

std::ostream &operator<<(std::ostream &os, const CommGroup &group) {
  return os << "CommGroup(" << group.type << ", size " << group.replicaGroupSize << ", stride "
            << group.replicaStride << ')';
}

} // namespace gcl
