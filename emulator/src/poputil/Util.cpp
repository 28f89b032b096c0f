#include <poputil/Util.hpp>

#include <poplar/MetadataCreation.hpp>

namespace poputil {

poplar::Tensor duplicate(poplar::Graph &graph, const poplar::Tensor &in,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                         poplar::TensorCloneMethod method) {
  poplar::Tensor out = graph.clone(in, debugContext, method);
  prog.add(poplar::program::Copy(in, out, false, debugContext));
  return out;
}

poplar::Tensor cloneN(poplar::Graph &graph, const poplar::Tensor &t, unsigned N,
                      const poplar::DebugContext &debugContext, poplar::TensorCloneMethod method) {
  return graph.cloneN(t, N, debugContext, method);
}

poplar::Tensor createConstantMetadataTensor(poplar::Graph &graph, poplar::QuarterMetadata::Format fp8Format,
                                            int fp8Scale) {
  return poplar::createConstantMetadataTensor(graph, fp8Format, fp8Scale);
}

poplar::Tensor createVariableMetadataTensor(poplar::Graph &graph, poplar::QuarterMetadata::Format fp8Format,
                                            int fp8Scale) {
  return poplar::createVariableMetadataTensor(graph, fp8Format, fp8Scale);
}

} // namespace poputil
