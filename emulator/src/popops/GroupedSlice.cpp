// Grouped multi-slices and multi-updates: the ungrouped operation applied to each group
// (t[g], offsets[g], s[g]), checked against the grouped plan first.
#include <popops/DynamicSlice.hpp>

#include <poputil/exceptions.hpp>

#include "KernelSupport.hpp"
#include "SlicePlanInternal.hpp"

namespace popops {

namespace {

using poplar::Tensor;
using popops::detail::bracketed;
using popops::detail::describe;

void checkPlan(const char *fn, const SlicePlan &plan, std::size_t groupSize) {
  const SlicePlanInternal &p = plan.getImpl();
  if (p.isNull || p.groupSize == 0)
    throw poputil::poplibs_error(std::string(fn) + " needs a plan made by the grouped embedding::plan");
  if (p.groupSize != groupSize)
    throw poputil::poplibs_error(std::string(fn) + ": the group size " + std::to_string(groupSize) +
                                 " differs from the plan's " + std::to_string(p.groupSize));
}

// Checks the group dimension of t, offsets ([G, numIndices, dims.size()]) and s (when
// valid), and the plan; returns G.
std::size_t checkGroups(const char *fn, const Tensor &t, const Tensor &offsets, const Tensor &s,
                        const std::vector<std::size_t> &dims, const SlicePlan &plan) {
  if (t.rank() < 2)
    throw poputil::poplibs_error(std::string(fn) + ": " + describe(t) +
                                 " must have a group dimension and at least one more");
  const std::size_t groups = t.dim(0);
  if (offsets.rank() != 3 || offsets.dim(0) != groups || offsets.dim(2) != dims.size())
    throw poputil::poplibs_error(std::string(fn) + ": offsets " + describe(offsets) + " must have shape [" +
                                 std::to_string(groups) + ", numIndices, " + std::to_string(dims.size()) +
                                 "] to slice " + describe(t));
  if (s.valid() && (s.rank() == 0 || s.dim(0) != groups))
    throw poputil::poplibs_error(std::string(fn) + ": slices " + describe(s) + " must have " +
                                 std::to_string(groups) + " groups, as " + describe(t));
  checkPlan(fn, plan, groups);
  return groups;
}

std::vector<std::size_t> slicedShape(const char *fn, std::vector<std::size_t> shape,
                                     const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes) {
  if (dims.size() != sizes.size())
    throw poputil::poplibs_error(std::string(fn) + ": dims " + bracketed(dims) + " and sizes " + bracketed(sizes) +
                                 " differ in length");
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= shape.size() || sizes[i] > shape[dims[i]])
      throw poputil::poplibs_error(std::string(fn) + ": cannot slice " + std::to_string(sizes[i]) +
                                   " elements of dimension " + std::to_string(dims[i]) + " of shape " +
                                   bracketed(shape));
    shape[dims[i]] = sizes[i];
  }
  return shape;
}

Tensor stackGroups(const std::vector<Tensor> &groups) {
  std::vector<Tensor> expanded;
  for (const Tensor &g : groups) expanded.push_back(g.expand({0}));
  return poplar::concat(expanded, 0);
}

} // namespace

Tensor createGroupedSliceableTensor(poplar::Graph &graph, const poplar::Type &type, const std::size_t groupSize,
                                    const std::vector<std::size_t> &shape, const std::vector<std::size_t> &dims,
                                    const std::vector<std::size_t> &sizes, const SlicePlan &plan,
                                    const poplar::OptionFlags &, const poplar::DebugContext &debugContext) {
  checkPlan("createGroupedSliceableTensor", plan, groupSize);
  std::vector<Tensor> groups;
  for (std::size_t g = 0; g < groupSize; ++g)
    groups.push_back(createSliceableTensor(graph, type, shape, dims, sizes, 0, debugContext));
  return stackGroups(groups);
}

Tensor createGroupedSliceTensor(poplar::Graph &graph, const poplar::Type &type, const std::size_t groupSize,
                                const std::vector<std::size_t> &shape, const std::vector<std::size_t> &dims,
                                const std::vector<std::size_t> &sizes, const std::size_t numIndices,
                                const SlicePlan &plan, const poplar::OptionFlags &,
                                const poplar::DebugContext &debugContext) {
  checkPlan("createGroupedSliceTensor", plan, groupSize);
  std::vector<std::size_t> out = slicedShape("createGroupedSliceTensor", shape, dims, sizes);
  out.insert(out.begin(), {groupSize, numIndices});
  return detail::createLinearOutput(graph, type, out, debugContext);
}

Tensor createGroupedIndicesTensor(poplar::Graph &graph, const std::size_t groupSize,
                                  const std::vector<std::size_t> &dims, const std::size_t numIndices,
                                  const SlicePlan &plan, const poplar::OptionFlags &,
                                  const poplar::DebugContext &debugContext) {
  checkPlan("createGroupedIndicesTensor", plan, groupSize);
  return detail::createLinearOutput(graph, poplar::UNSIGNED_INT, {groupSize, numIndices, dims.size()},
                                    debugContext);
}

Tensor groupedMultiSlice(poplar::Graph &graph, const Tensor &t, const Tensor &offsets,
                         const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                         poplar::program::Sequence &prog, const SlicePlan &plan, const poplar::OptionFlags &options,
                         const poplar::DebugContext &debugContext) {
  const std::size_t groups = checkGroups("groupedMultiSlice", t, offsets, Tensor(), dims, plan);
  std::vector<Tensor> slices;
  for (std::size_t g = 0; g < groups; ++g)
    slices.push_back(multiSlice(graph, t[g], offsets[g], dims, sizes, prog, SlicePlan(), options, debugContext));
  return stackGroups(slices);
}

void groupedMultiUpdate(poplar::Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                        const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                        poplar::program::Sequence &prog, const SlicePlan &plan, const poplar::OptionFlags &options,
                        const poplar::DebugContext &debugContext) {
  const std::size_t groups = checkGroups("groupedMultiUpdate", t, offsets, s, dims, plan);
  for (std::size_t g = 0; g < groups; ++g)
    multiUpdate(graph, t[g], s[g], offsets[g], dims, sizes, prog, SlicePlan(), options, debugContext);
}

void groupedMultiUpdateAdd(poplar::Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                           const Tensor &scale, const std::vector<std::size_t> &dims,
                           const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                           const SlicePlan &plan, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext) {
  const std::size_t groups = checkGroups("groupedMultiUpdateAdd", t, offsets, s, dims, plan);
  for (std::size_t g = 0; g < groups; ++g)
    multiUpdateAdd(graph, t[g], s[g], offsets[g], scale, dims, sizes, prog, SlicePlan(), options, debugContext);
}

void groupedMultiUpdateMax(poplar::Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                           const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                           poplar::program::Sequence &prog, const SlicePlan &plan,
                           const poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  const std::size_t groups = checkGroups("groupedMultiUpdateMax", t, offsets, s, dims, plan);
  for (std::size_t g = 0; g < groups; ++g)
    multiUpdateMax(graph, t[g], s[g], offsets[g], dims, sizes, prog, SlicePlan(), options, debugContext);
}

void groupedMultiUpdateMul(poplar::Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                           const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                           poplar::program::Sequence &prog, const SlicePlan &plan,
                           const poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  const std::size_t groups = checkGroups("groupedMultiUpdateMul", t, offsets, s, dims, plan);
  for (std::size_t g = 0; g < groups; ++g)
    multiUpdateMul(graph, t[g], s[g], offsets[g], dims, sizes, prog, SlicePlan(), options, debugContext);
}

namespace embedding {

SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType, const std::size_t groupSize,
               const std::size_t numEntries, const std::size_t outputSize,
               const std::vector<std::size_t> &numLookups, const poplar::OptionFlags &options) {
  if (groupSize == 0) throw poputil::poplibs_error("embedding::plan: the group size must be at least 1");
  SlicePlan result = plan(graph, dataType, numEntries, outputSize, numLookups, options);
  result.getImpl().groupSize = groupSize;
  return result;
}

} // namespace embedding

} // namespace popops
