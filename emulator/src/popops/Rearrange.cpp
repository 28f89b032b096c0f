// popops/Rearrange.hpp: regrouping keeps contents; see the header for what the emulator does.
#include <popops/Rearrange.hpp>

#include <poputil/exceptions.hpp>

#include <string>

namespace popops {
namespace rearrange {

namespace {

void checkGrouping(const poplar::Tensor &t, const poputil::GroupingInfo &g, const char *what) {
  if (t.rank() > 1 && (g.first >= t.rank() || g.second == 0 || t.dim(g.first) % g.second != 0))
    throw poputil::poplibs_error(std::string("regroupTensor: grouping ") + what + " (dimension " +
                                 std::to_string(g.first) + ", " + std::to_string(g.second) +
                                 " elements) does not divide the tensor");
}

} // namespace

poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t,
                             std::vector<poplar::program::Copy> &copies, const poplar::ComputeSet &,
                             const poputil::GroupingInfo &from, const poputil::GroupingInfo &to,
                             const poplar::DebugContext &debugContext) {
  checkGrouping(t, from, "from");
  checkGrouping(t, to, "to");
  if (t.rank() <= 1) return t;
  poplar::Tensor out = graph.clone(t, poplar::DebugContext(debugContext, "regrouped"));
  copies.emplace_back(t, out);
  return out;
}

poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &copies,
                             const poplar::ComputeSet &transposeCS, const poputil::GroupingInfo &from,
                             const poputil::GroupingInfo &to, const poplar::DebugContext &debugContext) {
  std::vector<poplar::program::Copy> made;
  poplar::Tensor out = regroupTensor(graph, t, made, transposeCS, from, to, debugContext);
  for (const poplar::program::Copy &c : made) copies.add(c);
  return out;
}

poplar::Tensor regroupIfPossible(poplar::Graph &, const poplar::Tensor &t, poplar::program::Sequence &,
                                 const poputil::GroupingInfo &, const poplar::DebugContext &) {
  return t;
}

poplar::Tensor regroupIfBeneficial(poplar::Graph &, const poplar::Tensor &in, const poplar::Tensor &ref,
                                   poplar::program::Sequence &, const poplar::DebugContext &) {
  if (in.shape() != ref.shape())
    throw poputil::poplibs_error("regroupIfBeneficial: in and ref must have the same shape");
  return in;
}

poplar::Tensor regroupIfBeneficial(poplar::Graph &, const poplar::Tensor &in, const poplar::Tensor &ref,
                                   std::vector<poplar::program::Copy> &, poplar::ComputeSet,
                                   const poplar::DebugContext &) {
  if (in.shape() != ref.shape())
    throw poputil::poplibs_error("regroupIfBeneficial: in and ref must have the same shape");
  return in;
}

poplar::Tensor regroupIfBeneficial(poplar::Graph &, const poplar::Tensor &in, std::size_t,
                                   poplar::program::Sequence &, const poplar::DebugContext &) {
  return in;
}

} // namespace rearrange
} // namespace popops
