#pragma once
#include <iosfwd>

namespace popops {

// The order a sorting operation leaves its results in.
enum class SortOrder { NONE, ASCENDING, DESCENDING };

std::ostream &operator<<(std::ostream &os, const SortOrder &o);

} // namespace popops
