// popops::embedding::planMultiple: each parameter set planned as plan() plans it.
#include <popops/DynamicSlice.hpp>

namespace popops {
namespace embedding {

std::vector<SlicePlan> planMultiple(const std::vector<SlicePlanningParameters> &spds) {
  std::vector<SlicePlan> plans;
  for (const SlicePlanningParameters &p : spds) {
    if (p.groupSize == 1)
      plans.push_back(plan(p.graph, p.dataType, p.numEntries, p.outputSize, p.numLookups, p.optionFlags));
    else
      plans.push_back(
          plan(p.graph, p.dataType, p.groupSize, p.numEntries, p.outputSize, p.numLookups, p.optionFlags));
  }
  return plans;
}

} // namespace embedding
} // namespace popops
