// popnn/experimental/ROIAlign.hpp: the bilinear samples of each bin, read (forward) or
// scattered into (input gradient) by one kernel each.
#include <popnn/experimental/ROIAlign.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "poplar/AccessValues.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popnn {
namespace experimental {

namespace {

using poplar::Tensor;
using poplar::detail::Access;

// The shapes and parameters a kernel needs.
struct RoiPooling {
  std::size_t batch, channels, height, width, rois, pooledHeight, pooledWidth, samplingRatio;
  bool aligned;
  double spatialScale;

  void write(poplar::detail::ByteWriter &w) const {
    w.u64(batch).u64(channels).u64(height).u64(width).u64(rois).u64(pooledHeight).u64(pooledWidth)
        .u64(samplingRatio).boolean(aligned).f64(spatialScale);
  }
  static RoiPooling read(poplar::detail::ByteReader &r) {
    RoiPooling p;
    p.batch = r.u64();
    p.channels = r.u64();
    p.height = r.u64();
    p.width = r.u64();
    p.rois = r.u64();
    p.pooledHeight = r.u64();
    p.pooledWidth = r.u64();
    p.samplingRatio = r.u64();
    p.aligned = r.boolean();
    p.spatialScale = r.f64();
    return p;
  }
  std::size_t dataElements(poplar::detail::KernelOperands &check) const {
    return check.product({batch, channels, height, width});
  }
  std::size_t pooledElements(poplar::detail::KernelOperands &check) const {
    return check.product({rois, channels, pooledHeight, pooledWidth});
  }

  // Calls visit(bin, pixel, weight) for every pixel (y * width + x) a bin of region `roi`
  // samples, weight being its bilinear weight over the bin's sample count.
  template <class Visit> void samples(const double *roi, Visit visit) const {
    const double offset = aligned ? 0.5 : 0.0;
    const double startX = roi[0] * spatialScale - offset, startY = roi[1] * spatialScale - offset;
    double roiWidth = roi[2] * spatialScale - offset - startX, roiHeight = roi[3] * spatialScale - offset - startY;
    if (!aligned) {
      roiWidth = std::max(roiWidth, 1.0);
      roiHeight = std::max(roiHeight, 1.0);
    }
    const double binHeight = roiHeight / double(pooledHeight), binWidth = roiWidth / double(pooledWidth);
    const std::size_t gridHeight = samplingRatio ? samplingRatio : std::size_t(std::ceil(binHeight));
    const std::size_t gridWidth = samplingRatio ? samplingRatio : std::size_t(std::ceil(binWidth));
    const double count = double(std::max<std::size_t>(gridHeight * gridWidth, 1));
    for (std::size_t ph = 0; ph < pooledHeight; ++ph)
      for (std::size_t pw = 0; pw < pooledWidth; ++pw)
        for (std::size_t iy = 0; iy < gridHeight; ++iy)
          for (std::size_t ix = 0; ix < gridWidth; ++ix) {
            double y = startY + double(ph) * binHeight + (double(iy) + 0.5) * binHeight / double(gridHeight);
            double x = startX + double(pw) * binWidth + (double(ix) + 0.5) * binWidth / double(gridWidth);
            if (y < -1.0 || y > double(height) || x < -1.0 || x > double(width)) continue;
            y = std::max(y, 0.0);
            x = std::max(x, 0.0);
            std::size_t y0 = std::size_t(y), x0 = std::size_t(x), y1 = y0 + 1, x1 = x0 + 1;
            if (y0 >= height - 1) y = double(y0 = y1 = height - 1);
            if (x0 >= width - 1) x = double(x0 = x1 = width - 1);
            const double ly = y - double(y0), lx = x - double(x0);
            const std::size_t bin = ph * pooledWidth + pw;
            visit(bin, y0 * width + x0, (1 - ly) * (1 - lx) / count);
            visit(bin, y0 * width + x1, (1 - ly) * lx / count);
            visit(bin, y1 * width + x0, ly * (1 - lx) / count);
            visit(bin, y1 * width + x1, ly * lx / count);
          }
  }

  // Calls visit(plane of the data, plane of the pooled values, bin, pixel, weight) for
  // every sample of every region whose batch index is within the batch, and channel.
  template <class Visit>
  void forEach(const std::vector<double> &rois, const std::vector<double> &batchIndex, Visit visit) const {
    const std::size_t plane = height * width, bins = pooledHeight * pooledWidth;
    for (std::size_t r = 0; r < this->rois; ++r) {
      if (batchIndex[r] < 0 || batchIndex[r] >= double(batch)) continue;
      const std::size_t n = std::size_t(batchIndex[r]);
      samples(&rois[4 * r], [&](std::size_t bin, std::size_t pixel, double weight) {
        for (std::size_t c = 0; c < channels; ++c)
          visit(((n * channels + c) * plane) + pixel, (r * channels + c) * bins + bin, weight);
      });
    }
  }
};

// Reads: data, rois, batch indices; writes: pooled.
poplar::detail::KernelCompile forwardCompile(poplar::detail::ByteReader &params) {
  const RoiPooling p = RoiPooling::read(params);
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popnn::ROIAlign", ops, 4);
    check.elements(0, p.dataElements(check)).elements(1, check.product({p.rois, 4})).elements(2, p.rois)
        .elements(3, p.pooledElements(check)).require(p.height > 0 && p.width > 0, "the feature map's size");
    return [=] {
      std::vector<double> data, rois, batchIndex, pooled(ops[3].numElements, 0.0);
      poplar::detail::readValues(ops[0], data);
      poplar::detail::readValues(ops[1], rois);
      poplar::detail::readValues(ops[2], batchIndex);
      p.forEach(rois, batchIndex, [&](std::size_t at, std::size_t out, double w) { pooled[out] += w * data[at]; });
      poplar::detail::writeValues(ops[3], pooled);
    };
  };
}
const poplar::detail::KernelKind forwardKind("popnn::ROIAlign", forwardCompile);

// Reads: rois, batch indices, the output gradient; writes: the input gradient.
poplar::detail::KernelCompile gradientCompile(poplar::detail::ByteReader &params) {
  const RoiPooling p = RoiPooling::read(params);
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popnn::ROIAlignGrad", ops, 4);
    check.elements(0, check.product({p.rois, 4})).elements(1, p.rois).elements(2, p.pooledElements(check))
        .elements(3, p.dataElements(check)).require(p.height > 0 && p.width > 0, "the feature map's size");
    return [=] {
      std::vector<double> rois, batchIndex, top, gradient(ops[3].numElements, 0.0);
      poplar::detail::readValues(ops[0], rois);
      poplar::detail::readValues(ops[1], batchIndex);
      poplar::detail::readValues(ops[2], top);
      p.forEach(rois, batchIndex, [&](std::size_t at, std::size_t out, double w) { gradient[at] += w * top[out]; });
      poplar::detail::writeValues(ops[3], gradient);
    };
  };
}
const poplar::detail::KernelKind gradientKind("popnn::ROIAlignGrad", gradientCompile);

RoiPooling checkedRoiAlign(const char *api, const Tensor &data, const Tensor &rois, const Tensor &batchIndex,
                const roiAlignParams &params) {
  auto fail = [&](const std::string &what) { throw poputil::poplibs_error(std::string(api) + ": " + what); };
  if (data.rank() != 4 || (data.elementType() != poplar::FLOAT && data.elementType() != poplar::HALF) ||
      data.dim(2) == 0 || data.dim(3) == 0)
    fail("bottomData " + data.getVarStr() + " must be FLOAT or HALF [N][C][H][W]");
  if (rois.rank() != 2 || rois.dim(1) != 4 || rois.elementType() != data.elementType())
    fail("bottomRois " + rois.getVarStr() + " must be [numRois][4] of bottomData's type");
  if (batchIndex.rank() != 1 || batchIndex.dim(0) != rois.dim(0) ||
      (batchIndex.elementType() != poplar::INT && batchIndex.elementType() != poplar::UNSIGNED_INT))
    fail("bottomBatchIndex " + batchIndex.getVarStr() +
         " must be INT or UNSIGNED_INT [numRois]");
  if (params.alignedHeight_ == 0 || params.alignedWidth_ == 0) fail("the pooled size must be at least 1 x 1");
  return {data.dim(0),         data.dim(1),          data.dim(2),           data.dim(3),
          rois.dim(0),         params.alignedHeight_, params.alignedWidth_, params.samplingRatio_,
          params.aligned_,     params.spatialScale_};
}

void runRoiAlign(poplar::Graph &graph, poplar::program::Sequence &prog, const char *kind, const RoiPooling &p,
         std::vector<Tensor> reads, const Tensor &out, const poplar::DebugContext &debugContext) {
  poplar::detail::ByteWriter params;
  p.write(params);
  auto kernel = poplar::detail::makeKernel(kind, std::move(reads), {out}, params.take());
  kernel.cyclesPerVector = unsigned(std::max<std::size_t>(1, 4 * p.samplingRatio * p.samplingRatio));
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
}

} // namespace

Tensor roiAlignFwd(poplar::Graph &graph, poplar::program::Sequence &prog, Tensor &bottomData, Tensor &bottomRois,
                   Tensor &bottomBatchIndex, const roiAlignParams &params, const poplar::DebugContext &debugContext) {
  const RoiPooling p = checkedRoiAlign("roiAlignFwd", bottomData, bottomRois, bottomBatchIndex, params);
  Tensor pooled = graph.addVariable(bottomData.elementType(), {p.rois, p.channels, p.pooledHeight, p.pooledWidth},
                                    {debugContext, "pooled"});
  poputil::mapTensorLinearly(graph, pooled);
  runRoiAlign(graph, prog, "popnn::ROIAlign", p, {bottomData, bottomRois, bottomBatchIndex}, pooled, debugContext);
  return pooled;
}

Tensor roiAlignInputGradient(poplar::Graph &graph, poplar::program::Sequence &prog, Tensor &bottomData,
                             Tensor &bottomRois, Tensor &bottomBatchIndex, Tensor &topDataGrad,
                             const roiAlignParams &params, const poplar::DebugContext &debugContext) {
  const RoiPooling p = checkedRoiAlign("roiAlignInputGradient", bottomData, bottomRois, bottomBatchIndex, params);
  if (topDataGrad.shape() != std::vector<std::size_t>{p.rois, p.channels, p.pooledHeight, p.pooledWidth} ||
      topDataGrad.elementType() != bottomData.elementType())
    throw poputil::poplibs_error("roiAlignInputGradient: topDataGrad " + topDataGrad.getVarStr() + " must have roiAlignFwd's output shape and type");
  Tensor gradient = graph.clone(bottomData, {debugContext, "inputGradient"});
  runRoiAlign(graph, prog, "popnn::ROIAlignGrad", p, {bottomRois, bottomBatchIndex, topDataGrad}, gradient,
              debugContext);
  return gradient;
}

} // namespace experimental
} // namespace popnn
