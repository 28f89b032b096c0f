// poplin/ConvUtil.hpp: each relation is worked out index by index along the dimension, and
// ranges are the hulls of what qualifies (the sizes are those of one field dimension).
#include <poplin/ConvUtil.hpp>

#include <poputil/exceptions.hpp>

#include <algorithm>
#include <string>

namespace poplin {

namespace {

constexpr unsigned kNone = ~0U;

// One operand's transform along the dimension.
struct Side {
  unsigned size, truncLower, truncUpper, dilation, padLower, padUpper;
  bool flip;

  Side(const ConvParams::InputTransform &t, std::size_t size, unsigned dim)
      : size(static_cast<unsigned>(size)), truncLower(t.truncationLower[dim]), truncUpper(t.truncationUpper[dim]),
        dilation(t.dilation[dim]), padLower(t.paddingLower[dim]), padUpper(t.paddingUpper[dim]), flip(t.flip[dim]) {}

  unsigned kept() const { return size > truncLower + truncUpper ? size - truncLower - truncUpper : 0; }
  unsigned transformedSize() const { return padLower + getDilatedSize(kept(), dilation) + padUpper; }
  // Where original index i sits after the transform, or kNone when truncated away.
  unsigned position(unsigned i) const {
    if (i < truncLower || i >= truncLower + kept()) return kNone;
    const unsigned p = padLower + (i - truncLower) * dilation;
    return flip ? transformedSize() - 1 - p : p;
  }
  // The original index at transformed position p, or kNone (padding or a dilation gap).
  unsigned index(unsigned p) const {
    if (p >= transformedSize()) return kNone;
    if (flip) p = transformedSize() - 1 - p;
    if (p < padLower) return kNone;
    const unsigned d = p - padLower;
    if (d % dilation != 0 || d / dilation >= kept()) return kNone;
    return truncLower + d / dilation;
  }
};

Side inputSide(unsigned dim, const ConvParams &params) {
  if (dim >= params.getNumFieldDims())
    throw poputil::poplibs_error("poplin ConvUtil: dimension " + std::to_string(dim) + " of a " +
                                 std::to_string(params.getNumFieldDims()) + "-dimensional convolution");
  return Side(params.inputTransform, params.inputFieldShape[dim], dim);
}
Side kernelSide(unsigned dim, const ConvParams &params) {
  return Side(params.kernelTransform, params.kernelShape[dim], dim);
}

// The position in the untransformed output of final output o, or kNone (padding).
unsigned convOutput(unsigned dim, unsigned o, const ConvParams &params) {
  const ConvParams::OutputTransform &t = params.outputTransform;
  const unsigned in = inputSide(dim, params).transformedSize(), kernel = kernelSide(dim, params).transformedSize();
  const unsigned full = in >= kernel ? in - kernel + 1 : 0;
  const unsigned kept = full > t.truncationLower[dim] + t.truncationUpper[dim]
                            ? full - t.truncationLower[dim] - t.truncationUpper[dim] : 0;
  const unsigned strided = (kept + t.stride[dim] - 1) / t.stride[dim];
  if (o < t.paddingLower[dim] || o >= t.paddingLower[dim] + strided) return kNone;
  return t.truncationLower[dim] + (o - t.paddingLower[dim]) * t.stride[dim];
}

// The hull of {f(i) : i in range, f(i) != kNone}, or of the i themselves when `own`.
template <class F> std::pair<unsigned, unsigned> hull(std::pair<unsigned, unsigned> range, F f, bool own) {
  unsigned lo = kNone, hi = 0;
  for (unsigned i = range.first; i < range.second; ++i) {
    const unsigned v = f(i);
    if (v == kNone) continue;
    lo = std::min(lo, own ? i : v);
    hi = std::max(hi, (own ? i : v) + 1);
  }
  return lo == kNone ? std::make_pair(0u, 0u) : std::make_pair(lo, hi);
}

// The hull of the non-empty ranges g(i) for i in range.
template <class G> std::pair<unsigned, unsigned> unite(std::pair<unsigned, unsigned> range, G g) {
  unsigned lo = kNone, hi = 0;
  for (unsigned i = range.first; i < range.second; ++i) {
    const std::pair<unsigned, unsigned> r = g(i);
    if (r.first == r.second) continue;
    lo = std::min(lo, r.first);
    hi = std::max(hi, r.second);
  }
  return lo == kNone ? std::make_pair(0u, 0u) : std::make_pair(lo, hi);
}

} // namespace

unsigned getDilatedSize(unsigned size, unsigned dilation) { return size == 0 ? 0 : 1 + (size - 1) * dilation; }

unsigned getInputIndex(unsigned dim, unsigned outputIndex, unsigned kernelIndex, const ConvParams &params) {
  const unsigned o = convOutput(dim, outputIndex, params);
  const unsigned k = kernelSide(dim, params).position(kernelIndex);
  if (o == kNone || k == kNone) return kNone;
  return inputSide(dim, params).index(o + k);
}

unsigned getKernelIndex(unsigned dim, unsigned outputIndex, unsigned inputIndex, const ConvParams &params) {
  const unsigned o = convOutput(dim, outputIndex, params);
  const unsigned i = inputSide(dim, params).position(inputIndex);
  if (o == kNone || i == kNone || i < o) return kNone;
  return kernelSide(dim, params).index(i - o);
}

std::pair<unsigned, unsigned> getOutputRangeForKernelIndex(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                                           unsigned kernelIndex, const ConvParams &params) {
  return hull(outputRange, [&](unsigned o) { return getInputIndex(dim, o, kernelIndex, params); }, true);
}

std::pair<unsigned, unsigned> getOutputRangeForInputIndex(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                                          unsigned inputIndex, const ConvParams &params) {
  return hull(outputRange, [&](unsigned o) { return getKernelIndex(dim, o, inputIndex, params); }, true);
}

std::pair<unsigned, unsigned> getOutputRangeForKernelRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                                           std::pair<unsigned, unsigned> kernelIndexRange,
                                                           const ConvParams &params) {
  return unite(kernelIndexRange,
               [&](unsigned k) { return getOutputRangeForKernelIndex(dim, outputRange, k, params); });
}

std::pair<unsigned, unsigned> getOutputRangeForInputRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                                          std::pair<unsigned, unsigned> inputRange,
                                                          const ConvParams &params) {
  return unite(inputRange, [&](unsigned i) { return getOutputRangeForInputIndex(dim, outputRange, i, params); });
}

std::pair<unsigned, unsigned> getInputRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                            unsigned kernelIndex, const ConvParams &params) {
  return hull(outputRange, [&](unsigned o) { return getInputIndex(dim, o, kernelIndex, params); }, false);
}

std::pair<unsigned, unsigned> getKernelRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                             unsigned inputIndex, const ConvParams &params) {
  return hull(outputRange, [&](unsigned o) { return getKernelIndex(dim, o, inputIndex, params); }, false);
}

std::pair<unsigned, unsigned> getInputRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                            std::pair<unsigned, unsigned> kernelIndexRange,
                                            const ConvParams &params) {
  return unite(kernelIndexRange, [&](unsigned k) { return getInputRange(dim, outputRange, k, params); });
}

std::pair<unsigned, unsigned> getKernelRange(unsigned dim, std::pair<unsigned, unsigned> outputRange,
                                             std::pair<unsigned, unsigned> inputRange, const ConvParams &params) {
  return unite(inputRange, [&](unsigned i) { return getKernelRange(dim, outputRange, i, params); });
}

} // namespace poplin
