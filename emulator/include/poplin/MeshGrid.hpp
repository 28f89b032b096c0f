#pragma once
// Coordinate vectors and grids: linspace and its 2D mesh (popnn's spatial softmax uses them).
#include <cstddef>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poplin {

// A FLOAT or HALF constant [count] of values evenly spaced from left to right inclusive.
poplar::Tensor linspace(poplar::Graph &graph, const poplar::Type &type, float left, float right, std::size_t count,
                        const poplar::DebugContext &debugContext = {});

// {xGrid, yGrid}, each [y.numElements()][x.numElements()]: views of the vectors x and y
// broadcast along the rows and the columns.
std::vector<poplar::Tensor> meshgrid2d(poplar::Graph &graph, poplar::Tensor x, poplar::Tensor y);

} // namespace poplin
