#include <popops/AllTrue.hpp>

#include <popops/Reduce.hpp>
#include <poputil/exceptions.hpp>

#include "KernelSupport.hpp"

namespace popops {

poplar::Tensor allTrue(poplar::Graph &graph, poplar::Tensor A, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext) {
  if (A.elementType() != poplar::BOOL)
    throw poputil::poplibs_error("allTrue: A " + detail::describe(A) + " must be a tensor of BOOL");
  return reduce(graph, A.flatten(), poplar::BOOL, {0}, Operation::LOGICAL_AND, prog, {debugContext, "allTrue"});
}

} // namespace popops
