#pragma once
// The shape of a convolution: batch, field and kernel shapes, channels and groups,
// and the transforms applied to the input, the kernel and the output.
//
// In each spatial dimension the input and the kernel are transformed in this
// order: truncated (elements dropped at either end), dilated (dilation - 1 zeros
// between elements), padded with zeros, then flipped. The untransformed output
// size is transformed input size - transformed kernel size + 1; the output is
// then truncated, strided (every stride-th element kept) and padded with zeros.
#include <tuple>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <vector>

#include <poplar/Type.hpp>

namespace poplin {

struct ConvParams {
  struct InputTransform {
    // Elements dropped at the start and end of each dimension, before dilation.
    std::vector<unsigned> truncationLower;
    std::vector<unsigned> truncationUpper;
    // Dilation after truncation: dilation - 1 zeros between elements.
    std::vector<unsigned> dilation;
    // Zeros added at the start and end of each dimension after dilation.
    std::vector<unsigned> paddingLower;
    std::vector<unsigned> paddingUpper;
    // Whether each dimension is reversed, after padding.
    std::vector<bool> flip;

    InputTransform() = default;
    // No truncation or padding, dilation 1, no flips, in `size` dimensions.
    InputTransform(const std::size_t size);
    InputTransform(std::vector<unsigned> truncationLower, std::vector<unsigned> truncationUpper,
                   std::vector<unsigned> dilation, std::vector<unsigned> paddingLower,
                   std::vector<unsigned> paddingUpper, std::vector<bool> flip);

    friend bool operator<(const InputTransform &a, const InputTransform &b);
    friend bool operator==(const InputTransform &a, const InputTransform &b);
    friend bool operator!=(const InputTransform &a, const InputTransform &b);
  };

  struct OutputTransform {
    // Elements dropped at the start and end of each dimension, before striding.
    std::vector<unsigned> truncationLower;
    std::vector<unsigned> truncationUpper;
    // Every stride-th element is kept, after truncation.
    std::vector<unsigned> stride;
    // Zeros added at the start and end of each dimension after striding.
    std::vector<unsigned> paddingLower;
    std::vector<unsigned> paddingUpper;

    OutputTransform() = default;
    // No truncation or padding, stride 1, in `size` dimensions.
    OutputTransform(const std::size_t size);
    OutputTransform(std::vector<unsigned> truncationLower, std::vector<unsigned> truncationUpper,
                    std::vector<unsigned> striding, std::vector<unsigned> paddingLower,
                    std::vector<unsigned> paddingUpper);

    friend bool operator<(const OutputTransform &a, const OutputTransform &b);
    friend bool operator==(const OutputTransform &a, const OutputTransform &b);
    friend bool operator!=(const OutputTransform &a, const OutputTransform &b);
  };

  poplar::Type inputType;
  poplar::Type outputType;
  std::size_t batchSize = 0;
  std::vector<std::size_t> inputFieldShape;
  std::vector<std::size_t> kernelShape;
  std::size_t inputChannelsPerConvGroup = 0;
  std::size_t outputChannelsPerConvGroup = 0;
  // Channels are split into this many independent groups.
  std::size_t numConvGroups = 1;
  InputTransform inputTransform;
  InputTransform kernelTransform;
  OutputTransform outputTransform;

  ConvParams() = default;
  ConvParams(poplar::Type dataType, std::size_t batchSize,
             std::vector<std::size_t> inputFieldShape, std::vector<std::size_t> kernelShape,
             std::size_t inputChannelsPerConvGroup, std::size_t outputChannelsPerConvGroup,
             std::size_t numConvGroups);
  ConvParams(poplar::Type inputType, poplar::Type outputType, std::size_t batchSize,
             std::vector<std::size_t> inputFieldShape, std::vector<std::size_t> kernelShape,
             std::size_t inputChannelsPerConvGroup, std::size_t outputChannelsPerConvGroup,
             std::size_t numConvGroups);
  ConvParams(poplar::Type inputType, poplar::Type outputType, std::size_t batchSize,
             std::vector<std::size_t> inputFieldShape, std::vector<std::size_t> kernelShape,
             std::size_t inputChannelsPerConvGroup, std::size_t outputChannelsPerConvGroup,
             std::size_t numConvGroups, InputTransform inputTransform,
             InputTransform kernelTransform, OutputTransform outputTransform);

  // The output size in dimension `dim` before the output transform.
  std::size_t getUntransformedOutputSize(unsigned dim) const;
  std::size_t getOutputSize(unsigned dim) const;
  std::size_t getNumOutputChansPerConvGroup() const { return outputChannelsPerConvGroup; }
  std::size_t getNumOutputChans() const { return outputChannelsPerConvGroup * numConvGroups; }
  std::size_t getInputSize(unsigned dim) const { return inputFieldShape[dim]; }
  std::size_t getNumInputChansPerConvGroup() const { return inputChannelsPerConvGroup; }
  std::size_t getNumInputChans() const { return inputChannelsPerConvGroup * numConvGroups; }
  std::size_t getNumConvGroups() const { return numConvGroups; }
  std::size_t getNumFieldDims() const { return inputFieldShape.size(); }
  std::vector<std::size_t> getInputFieldShape() const { return inputFieldShape; }
  std::vector<std::size_t> getKernelShape() const { return kernelShape; }
  std::size_t getBatchSize() const { return batchSize; }

  unsigned getTruncatedInputSize(unsigned dim) const;
  unsigned getTruncatedKernelSize(unsigned dim) const;
  unsigned getTransformedInputSize(unsigned dim) const;
  unsigned getTransformedKernelSize(unsigned dim) const;
  std::vector<std::size_t> getOutputFieldShape() const;

  // Throws poputil::poplibs_error naming the first inconsistency.
  void validate() const;
  // The same convolution with redundant transforms removed: truncation and
  // padding that cancel, and dilation or stride in dimensions of size 1.
  ConvParams canonicalize() const;

  friend bool operator<(const ConvParams &a, const ConvParams &b);
  friend bool operator==(const ConvParams &a, const ConvParams &b);
  friend bool operator!=(const ConvParams &a, const ConvParams &b);
};

std::ostream &operator<<(std::ostream &os, const ConvParams &p);

std::size_t hash_value(const ConvParams::InputTransform &it);
std::size_t hash_value(const ConvParams::OutputTransform &ot);

} // namespace poplin

namespace std {

template <> struct hash<poplin::ConvParams::InputTransform> {
  std::size_t operator()(const poplin::ConvParams::InputTransform &it) const;
};

template <> struct hash<poplin::ConvParams::OutputTransform> {
  std::size_t operator()(const poplin::ConvParams::OutputTransform &ot) const;
};

template <> struct hash<poplin::ConvParams> {
  std::size_t operator()(const poplin::ConvParams &params) const;
};

} // namespace std
