// Image normalisation: 3 channels scaled and offset into 4, the fourth zero.
#include <popops/NormaliseImage.hpp>

#include <poputil/exceptions.hpp>

#include "KernelSupport.hpp"
#include "poplar/AccessValues.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popops {

using poplar::Tensor;
using poplar::detail::Access;
using poplar::detail::ByteReader;
using poplar::detail::ByteWriter;
using poplar::detail::KernelCompile;

namespace {

constexpr std::size_t kInChannels = 3, kOutChannels = 4;

bool isImageType(const poplar::Type &t) {
  return t == poplar::UNSIGNED_CHAR || t == poplar::HALF || t == poplar::FLOAT;
}

void checkImageShape(const char *fn, const std::vector<std::size_t> &shape, const std::string &what) {
  if (shape.empty() || shape.back() != kInChannels)
    throw poputil::poplibs_error(std::string(fn) + ": " + what + " must have an innermost dimension of 3 channels");
}

// Reads: tIn [pixels][3], offsets [3], scales [3]; writes: out [pixels][4].
KernelCompile normaliseImageCompile(ByteReader &params) {
  const double inScale = params.f64();
  return [=](const std::vector<Access> &ops) -> std::function<void()> {
    poplar::detail::KernelOperands check("popops::NormaliseImage", ops, 4);
    check.require(ops[0].numElements % kInChannels == 0, "the input is not whole pixels")
        .elements(1, kInChannels).elements(2, kInChannels)
        .elements(3, check.product({ops[0].numElements / kInChannels, kOutChannels}));
    return [=] {
      std::vector<double> in, offsets, scales;
      poplar::detail::readValues(ops[0], in);
      poplar::detail::readValues(ops[1], offsets);
      poplar::detail::readValues(ops[2], scales);
      const std::size_t pixels = in.size() / kInChannels;
      std::vector<double> out(pixels * kOutChannels, 0.0);
      for (std::size_t p = 0; p < pixels; ++p)
        for (std::size_t c = 0; c < kInChannels; ++c)
          out[p * kOutChannels + c] = (in[p * kInChannels + c] * inScale - offsets[c]) * scales[c];
      poplar::detail::writeValues(ops[3], out);
    };
  };
}
const poplar::detail::KernelKind normaliseImageKind("popops::NormaliseImage", normaliseImageCompile);

} // namespace

Tensor createNormaliseImageInput(poplar::Graph &graph, const poplar::Type &type,
                                 const poplar::ArrayRef<std::size_t> shape, const poplar::DebugContext &debugContext) {
  const std::vector<std::size_t> dims(shape.begin(), shape.end());
  if (!isImageType(type))
    throw poputil::poplibs_error("createNormaliseImageInput: type " + type.toString().str() +
                                 " must be UNSIGNED_CHAR, HALF or FLOAT");
  checkImageShape("createNormaliseImageInput", dims, "shape " + detail::bracketed(dims));
  return detail::createLinearOutput(graph, type, dims, debugContext);
}

Tensor normaliseImage(poplar::Graph &graph, poplar::program::Sequence &seq, Tensor tIn, float inScale,
                      Tensor offsets, Tensor scales, const poplar::DebugContext &debugContext) {
  if (!isImageType(tIn.elementType()))
    throw poputil::poplibs_error("normaliseImage: tIn " + detail::describe(tIn) +
                                 " must be UNSIGNED_CHAR, HALF or FLOAT");
  checkImageShape("normaliseImage", tIn.shape(), "tIn " + detail::describe(tIn));
  const poplar::Type outType = tIn.elementType() == poplar::UNSIGNED_CHAR ? poplar::HALF : tIn.elementType();
  for (const Tensor *t : {&offsets, &scales})
    if (t->shape() != std::vector<std::size_t>{kInChannels} || t->elementType() != outType)
      throw poputil::poplibs_error("normaliseImage: offsets and scales must be [3] of " + outType.toString().str() +
                                   "; " + detail::describe(*t) + " is not");
  std::vector<std::size_t> outShape = tIn.shape();
  outShape.back() = kOutChannels;
  const Tensor out = detail::createLinearOutput(graph, outType, outShape, {debugContext, "normalised"});
  ByteWriter params;
  params.f64(inScale);
  auto kernel = poplar::detail::makeKernel("popops::NormaliseImage", {tIn, offsets, scales}, {out}, params.take());
  kernel.cyclesPerVector = 2; // a multiply-subtract and a multiply per channel
  poplar::detail::executeKernel(graph, seq, std::move(kernel), debugContext);
  return out;
}

} // namespace popops
