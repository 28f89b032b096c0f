#pragma once
// Spatial softmax of 2D fields: the expected (y, x) coordinates, in [-1, 1], of each field
// under a softmax of all the fields' elements together, scaled by 1 / temperature.
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {

// fields [F][H][W]; returns ([F][2] coordinates, the scalar temperature variable, which
// starts at `temperature`). disableSoftmax takes the fields as probabilities already.
std::pair<poplar::Tensor, poplar::Tensor> spatialSoftMax2D(poplar::Graph &graph, poplar::program::Sequence &prog,
                                                           const poplar::Tensor &fields, float temperature,
                                                           bool disableSoftmax = false,
                                                           const poplar::DebugContext &debugContext = {});

} // namespace popnn
