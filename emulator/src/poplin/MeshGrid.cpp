// poplin/MeshGrid.hpp.
#include <poplin/MeshGrid.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "popops/KernelSupport.hpp"

namespace poplin {

poplar::Tensor linspace(poplar::Graph &graph, const poplar::Type &type, float left, float right, std::size_t count,
                        const poplar::DebugContext &debugContext) {
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error("linspace: the type must be FLOAT or HALF, not " + type.toString().str());
  if (count == 0) throw poputil::poplibs_error("linspace: needs a count of 1 or more");
  std::vector<float> values(count, left);
  const double step = count > 1 ? (static_cast<double>(right) - left) / static_cast<double>(count - 1) : 0.0;
  for (std::size_t i = 1; i < count; ++i) values[i] = static_cast<float>(left + step * static_cast<double>(i));
  poplar::Tensor t = graph.addConstant(type, {count}, poplar::ArrayRef<float>(values), {debugContext, "linspace"});
  poputil::mapTensorLinearly(graph, t);
  return t;
}

std::vector<poplar::Tensor> meshgrid2d(poplar::Graph &graph, poplar::Tensor x, poplar::Tensor y) {
  for (const poplar::Tensor *axis : {&x, &y})
    if (axis->rank() != 1)
      throw poputil::poplibs_error("meshgrid2d: the axes must be vectors, got " + popops::detail::describe(*axis));
  const std::size_t width = x.numElements(), height = y.numElements();
  return {x.reshape({1, width}).broadcast(static_cast<unsigned>(height), 0),
          y.reshape({height, 1}).broadcast(static_cast<unsigned>(width), 1)};
}

} // namespace poplin
