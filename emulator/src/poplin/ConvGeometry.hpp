#pragma once
// A convolution's index arithmetic, flattened over its field dimensions: which
// input element each kernel tap meets at each output position. The convolution
// kernels (im2col) and pooling (popnn) both walk it.
#include <cstddef>
#include <vector>

#include <poplin/ConvParams.hpp>

#include "poplar/Bytes.hpp"

namespace poplin::detail {

// A tap is a kernel element that survives the kernel transform; a computed
// output is an output position that is not output padding.
struct ConvGeometry {
  std::size_t inputFieldElements = 0, kernelElements = 0, outputFieldElements = 0;
  // Per tap: the flat index of its kernel element in the (untransformed) kernel.
  std::vector<std::size_t> tapKernelIndex;
  // Per computed output: its flat index in the output field.
  std::vector<std::size_t> computedOutputIndex;
  // [tap][computed output]: the flat index of the input element the tap meets,
  // or -1 where it meets a zero of the input transform (dilation or padding).
  std::vector<long> tapInputIndex;

  std::size_t numTaps() const { return tapKernelIndex.size(); }
  std::size_t numComputed() const { return computedOutputIndex.size(); }
};

// `params` must be valid (ConvParams::validate).
ConvGeometry convGeometry(const ConvParams &params);

// The index of `flat` in a row-major `shape` once every dimension is reversed.
std::size_t reversedIndex(std::size_t flat, const std::vector<std::size_t> &shape);

// The portable form of ConvParams in kernel parameters.
void writeConvParams(poplar::detail::ByteWriter &w, const ConvParams &params);
ConvParams readConvParams(poplar::detail::ByteReader &r);

} // namespace poplin::detail
