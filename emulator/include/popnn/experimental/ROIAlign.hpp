#pragma once
// ROIAlign (popnn::experimental), as ONNX's RoiAlign in average mode: each region of
// interest [x1, y1, x2, y2] of its batch element's [C][H][W] feature map, scaled by
// spatialScale_ (and shifted by -0.5 when aligned_), is cut into alignedHeight_ x
// alignedWidth_ bins; a bin's value is the mean of samplingRatio_ x samplingRatio_
// bilinear samples at the centres of a regular grid over it (with samplingRatio_ 0,
// ceil(bin size) samples a side). A sample more than a pixel outside the map reads 0; one
// within a pixel of the edge reads the edge. Without aligned_, a region is at least 1 x 1.
// A region whose batch index is not in the batch pools zeros.
//
// Emulator: each pass is one kernel computing in double.
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {
namespace experimental {

struct roiAlignParams {
  long unsigned int samplingRatio_, alignedHeight_, alignedWidth_;
  bool aligned_;
  float spatialScale_;
  roiAlignParams(long unsigned int samplingRatio, long unsigned int poolH, long unsigned int poolW, bool aligned,
                 float spatialScale)
      : samplingRatio_{samplingRatio}, alignedHeight_{poolH}, alignedWidth_{poolW}, aligned_{aligned},
        spatialScale_{spatialScale} {}
};

// bottomData [N][C][H][W] (FLOAT or HALF), bottomRois [numRois][4] of its type,
// bottomBatchIndex [numRois] (INT or UNSIGNED_INT): the pooled [numRois][C][alignedHeight_]
// [alignedWidth_] of bottomData's type.
poplar::Tensor roiAlignFwd(poplar::Graph &graph, poplar::program::Sequence &prog, poplar::Tensor &bottomData,
                           poplar::Tensor &bottomRois, poplar::Tensor &bottomBatchIndex,
                           const roiAlignParams &params, const poplar::DebugContext &debugContext = {});

// The gradient [N][C][H][W] at bottomData of the loss whose gradient at roiAlignFwd's
// output is topDataGrad: each bin's gradient spread over its samples' pixels by their
// bilinear weights.
poplar::Tensor roiAlignInputGradient(poplar::Graph &graph, poplar::program::Sequence &prog,
                                     poplar::Tensor &bottomData, poplar::Tensor &bottomRois,
                                     poplar::Tensor &bottomBatchIndex, poplar::Tensor &topDataGrad,
                                     const roiAlignParams &params, const poplar::DebugContext &debugContext = {});

} // namespace experimental
} // namespace popnn
