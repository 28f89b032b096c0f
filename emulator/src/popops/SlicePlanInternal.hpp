#pragma once
// What a plan was made for. The emulator's kernels need no plan, so this only lets
// plans be told apart and printed, and grouped operations check their group size.
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

namespace popops {

class SlicePlanInternal {
public:
  bool isNull = true;
  std::string dataType;
  std::size_t numEntries = 0, outputSize = 0;
  std::vector<std::size_t> numLookups;
  std::size_t groupSize = 0; // 0: made by the ungrouped embedding::plan

  auto key() const { return std::tie(isNull, dataType, numEntries, outputSize, numLookups, groupSize); }
};

} // namespace popops
