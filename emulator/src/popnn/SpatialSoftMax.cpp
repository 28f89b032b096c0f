// popnn/SpatialSoftMax.hpp: as poplibs computes it, one softmax over all the fields'
// elements, then a matmul of the [F][H*W] probabilities with the [H*W][2] (y, x) grid.
#include <popnn/SpatialSoftMax.hpp>

#include <poplin/MatMul.hpp>
#include <poplin/MeshGrid.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <poputil/exceptions.hpp>

#include "popops/KernelSupport.hpp"

namespace popnn {

std::pair<poplar::Tensor, poplar::Tensor> spatialSoftMax2D(poplar::Graph &graph, poplar::program::Sequence &prog,
                                                           const poplar::Tensor &fields, float temperature,
                                                           bool disableSoftmax,
                                                           const poplar::DebugContext &debugContext) {
  const char *fn = "spatialSoftMax2D";
  const poplar::DebugContext dc(debugContext, fn);
  if (fields.rank() != 3 || (fields.elementType() != poplar::FLOAT && fields.elementType() != poplar::HALF))
    throw poputil::poplibs_error(std::string(fn) + ": fields " + popops::detail::describe(fields) +
                                 " must be a FLOAT or HALF tensor of rank 3 ([F][H][W])");
  const poplar::Type type = fields.elementType();
  poplar::Tensor temperatureVar = graph.addVariable(type, {}, {dc, "temperature"});
  graph.setInitialValue(temperatureVar, temperature);
  graph.setTileMapping(temperatureVar, 0);

  namespace pe = popops::expr;
  poplar::Tensor scaled = popops::map(graph, pe::_1 / pe::_2, {fields, temperatureVar}, prog, {dc, "scaled"});
  poplar::Tensor probabilities =
      disableSoftmax ? scaled : nonLinearity(graph, NonLinearityType::SOFTMAX, scaled.flatten(), prog, {dc, "softmax"});

  const std::size_t numFields = fields.dim(0), height = fields.dim(1), width = fields.dim(2);
  const std::vector<poplar::Tensor> grids = poplin::meshgrid2d(
      graph, poplin::linspace(graph, type, -1.f, 1.f, width, {dc, "x"}),
      poplin::linspace(graph, type, -1.f, 1.f, height, {dc, "y"}));
  // Column 0 the y coordinate of each element, column 1 its x: (row, column) order.
  const poplar::Tensor coordinates =
      poplar::concat(grids[1].reshape({height * width, 1}), grids[0].reshape({height * width, 1}), 1);
  return {poplin::matMul(graph, probabilities.reshape({numFields, height * width}), coordinates, prog,
                         {dc, "expectedCoordinates"}),
          temperatureVar};
}

} // namespace popnn
