#pragma once
// Index arithmetic of a convolution along one field dimension `dim` of its ConvParams: which
// input element meets which kernel element in which output, after the input's and kernel's
// truncation, dilation, padding and flip and the output's truncation, stride and padding.
// An index with no partner is ~0U; a range is [begin, end), the smallest holding every
// index that qualifies, and {0, 0} when none does.
#include <utility>

#include <poplin/ConvParams.hpp>

namespace poplin {

// 1 + (size - 1) * dilation, and 0 for size 0.
unsigned getDilatedSize(unsigned size, unsigned dilation);

// The input index that kernel index kernelIndex multiplies into output outputIndex.
unsigned getInputIndex(unsigned dim, unsigned outputIndex, unsigned kernelIndex, const ConvParams &params);
// The kernel index that multiplies input inputIndex into output outputIndex.
unsigned getKernelIndex(unsigned dim, unsigned outputIndex, unsigned inputIndex, const ConvParams &params);

// The outputs of outputRange whose calculation uses the kernel index, the input index, or
// an index of the kernel or input range.
std::pair<unsigned, unsigned> getOutputRangeForKernelIndex(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                                           unsigned kernelIndex, const ConvParams &params);
std::pair<unsigned, unsigned> getOutputRangeForInputIndex(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                                          unsigned inputIndex, const ConvParams &params);
std::pair<unsigned, unsigned> getOutputRangeForKernelRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                                           std::pair<unsigned, unsigned> kernelIndexRange,
                                                           const ConvParams &params);
std::pair<unsigned, unsigned> getOutputRangeForInputRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                                          std::pair<unsigned, unsigned> inputRange,
                                                          const ConvParams &params);

// The inputs the kernel index (range) meets over outputRange, and the kernel indices the
// input index (range) meets.
std::pair<unsigned, unsigned> getInputRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                            unsigned kernelIndex, const ConvParams &params);
std::pair<unsigned, unsigned> getKernelRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                             unsigned inputIndex, const ConvParams &params);
std::pair<unsigned, unsigned> getInputRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                            std::pair<unsigned, unsigned> kernelIndexRange,
                                            const ConvParams &params);
std::pair<unsigned, unsigned> getKernelRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                             std::pair<unsigned, unsigned> inputRange, const ConvParams &params);

inline std::pair<unsigned, unsigned> getInputRange(unsigned dim, unsigned outputIndex,
                                                   std::pair<unsigned, unsigned> kernelIndexRange,
                                                   const ConvParams &params) {
  return getInputRange(dim, {outputIndex, outputIndex + 1}, kernelIndexRange, params);
}
inline std::pair<unsigned, unsigned> getInputRange(unsigned dim, unsigned outputIndex, const ConvParams &params) {
  return getInputRange(dim, outputIndex, {0u, static_cast<unsigned>(params.kernelShape[dim])}, params);
}
inline std::pair<unsigned, unsigned> getInputRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                                   const ConvParams &params) {
  return getInputRange(dim, outputRange, {0u, static_cast<unsigned>(params.kernelShape[dim])}, params);
}

} // namespace poplin
