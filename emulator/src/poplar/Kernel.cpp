#include "Kernel.hpp"

#include <map>

#include "GraphState.hpp"

namespace poplar::detail {

namespace {
std::map<std::string, KernelFactory> &registry() {
  static std::map<std::string, KernelFactory> kinds;
  return kinds;
}
} // namespace

KernelKind::KernelKind(const char *kind, KernelFactory factory) { registry()[kind] = factory; }

Kernel makeKernel(const std::string &kind, std::vector<Tensor> reads, std::vector<Tensor> writes,
                  std::vector<std::uint8_t> params, std::string vertexType) {
  const auto it = registry().find(kind);
  if (it == registry().end())
    throw poplar_error("Unknown kernel kind '" + kind +
                       "': it has no factory, so it cannot be built or deserialized");
  Kernel k;
  k.kind = kind;
  k.vertexType = vertexType.empty() ? kind : std::move(vertexType);
  k.reads = std::move(reads);
  k.writes = std::move(writes);
  k.params = std::move(params);
  ByteReader reader(k.params, "the parameters of kernel '" + kind + "'");
  k.compile = it->second(reader);
  if (!reader.atEnd()) reader.corrupt();
  return k;
}

void addKernel(poplar::Graph &graph, poplar::ComputeSet cs, Kernel kernel) {
  detail::graphState(graph).computeSet(cs, kernel.kind).kernels.push_back(std::move(kernel));
}

void executeKernel(poplar::Graph &graph, poplar::program::Sequence &prog, Kernel kernel,
                   const poplar::DebugContext &debugContext) {
  const poplar::ComputeSet cs = graph.addComputeSet(debugContext);
  addKernel(graph, cs, std::move(kernel));
  prog.add(poplar::program::Execute(cs, debugContext));
}

} // namespace poplar::detail
