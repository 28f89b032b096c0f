#include <popops/SortOrder.hpp>

#include <ostream>

namespace popops {

std::ostream &operator<<(std::ostream &os, const SortOrder &o) {
  switch (o) {
  case SortOrder::NONE: return os << "none";
  case SortOrder::ASCENDING: return os << "ascending";
  case SortOrder::DESCENDING: return os << "descending";
  }
  return os << "SortOrder(" << static_cast<int>(o) << ")";
}

} // namespace popops
