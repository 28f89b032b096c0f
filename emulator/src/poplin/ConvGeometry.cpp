#include "ConvGeometry.hpp"

#include <algorithm>

namespace poplin::detail {

namespace {

using Sizes = std::vector<std::size_t>;

std::size_t product(const Sizes &shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

// Where each transformed position of dimension `dim` comes from: the index of an
// original element, or -1 for a zero the transform inserted.
std::vector<long> transformedSources(std::size_t size, const ConvParams::InputTransform &t,
                                     unsigned dim) {
  const long truncatedBegin = t.truncationLower[dim];
  const long truncated = long(size) - truncatedBegin - long(t.truncationUpper[dim]);
  const long dilation = t.dilation[dim];
  std::vector<long> sources(t.paddingLower[dim], -1);
  for (long i = 0; i < truncated; ++i) {
    if (i) sources.insert(sources.end(), std::size_t(dilation - 1), -1);
    sources.push_back(truncatedBegin + i);
  }
  sources.insert(sources.end(), t.paddingUpper[dim], -1);
  if (t.flip[dim]) std::reverse(sources.begin(), sources.end());
  return sources;
}

// For each final output position of dimension `dim`: the untransformed output
// position it holds, or -1 for output padding.
std::vector<long> outputSources(const ConvParams &p, unsigned dim) {
  const ConvParams::OutputTransform &t = p.outputTransform;
  const long kept = long(p.getUntransformedOutputSize(dim)) - long(t.truncationLower[dim]) -
                    long(t.truncationUpper[dim]);
  std::vector<long> sources(t.paddingLower[dim], -1);
  for (long i = 0; i < kept; i += t.stride[dim]) sources.push_back(long(t.truncationLower[dim]) + i);
  sources.insert(sources.end(), t.paddingUpper[dim], -1);
  return sources;
}

// Row-major strides of `shape`.
Sizes stridesOf(const Sizes &shape) {
  Sizes strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// The points (flat index, position per dimension) whose every coordinate has a
// source >= 0, in row-major order: flat indexes count all positions.
struct Point {
  std::size_t flat;
  std::vector<long> position;
};
std::vector<Point> pointsWithSources(const std::vector<std::vector<long>> &sources) {
  std::vector<Point> points{{0, {}}};
  for (const std::vector<long> &dim : sources) {
    std::vector<Point> next;
    for (const Point &p : points)
      for (std::size_t i = 0; i < dim.size(); ++i) {
        if (dim[i] < 0) continue;
        Point q{p.flat * dim.size() + i, p.position};
        q.position.push_back(long(i));
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

} // namespace

ConvGeometry convGeometry(const ConvParams &p) {
  const unsigned dims = unsigned(p.getNumFieldDims());
  std::vector<std::vector<long>> inputSources, kernelSources, outputs;
  for (unsigned d = 0; d < dims; ++d) {
    inputSources.push_back(transformedSources(p.inputFieldShape[d], p.inputTransform, d));
    kernelSources.push_back(transformedSources(p.kernelShape[d], p.kernelTransform, d));
    outputs.push_back(outputSources(p, d));
  }
  ConvGeometry g;
  g.inputFieldElements = product(p.inputFieldShape);
  g.kernelElements = product(p.kernelShape);
  g.outputFieldElements = product(p.getOutputFieldShape());
  const Sizes inputStrides = stridesOf(p.inputFieldShape), kernelStrides = stridesOf(p.kernelShape);

  const std::vector<Point> taps = pointsWithSources(kernelSources);
  const std::vector<Point> computed = pointsWithSources(outputs);
  for (const Point &tap : taps) {
    std::size_t kernelIndex = 0;
    for (unsigned d = 0; d < dims; ++d)
      kernelIndex += std::size_t(kernelSources[d][tap.position[d]]) * kernelStrides[d];
    g.tapKernelIndex.push_back(kernelIndex);
  }
  for (const Point &out : computed) g.computedOutputIndex.push_back(out.flat);
  g.tapInputIndex.reserve(taps.size() * computed.size());
  for (const Point &tap : taps)
    for (const Point &out : computed) {
      long inputIndex = 0;
      for (unsigned d = 0; d < dims && inputIndex >= 0; ++d) {
        const long untransformed = outputs[d][out.position[d]];
        const long source = inputSources[d][untransformed + tap.position[d]];
        inputIndex = source < 0 ? -1 : inputIndex + source * long(inputStrides[d]);
      }
      g.tapInputIndex.push_back(inputIndex);
    }
  return g;
}

std::size_t reversedIndex(std::size_t flat, const Sizes &shape) {
  std::size_t reversed = 0, stride = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::size_t i = flat % shape[d];
    flat /= shape[d];
    reversed += (shape[d] - 1 - i) * stride;
    stride *= shape[d];
  }
  return reversed;
}

namespace {

void writeCounts(poplar::detail::ByteWriter &w, const std::vector<unsigned> &v) {
  w.sizes(Sizes(v.begin(), v.end()));
}
std::vector<unsigned> readCounts(poplar::detail::ByteReader &r) {
  const Sizes v = r.sizes();
  return std::vector<unsigned>(v.begin(), v.end());
}
void writeInputTransform(poplar::detail::ByteWriter &w, const ConvParams::InputTransform &t) {
  for (const auto *v : {&t.truncationLower, &t.truncationUpper, &t.dilation, &t.paddingLower,
                        &t.paddingUpper})
    writeCounts(w, *v);
  w.sizes(Sizes(t.flip.begin(), t.flip.end()));
}
ConvParams::InputTransform readInputTransform(poplar::detail::ByteReader &r) {
  ConvParams::InputTransform t;
  for (auto *v : {&t.truncationLower, &t.truncationUpper, &t.dilation, &t.paddingLower,
                  &t.paddingUpper})
    *v = readCounts(r);
  const Sizes flips = r.sizes();
  t.flip.assign(flips.begin(), flips.end());
  return t;
}

} // namespace

void writeConvParams(poplar::detail::ByteWriter &w, const ConvParams &p) {
  w.type(p.inputType).type(p.outputType).u64(p.batchSize).sizes(p.inputFieldShape)
      .sizes(p.kernelShape).u64(p.inputChannelsPerConvGroup).u64(p.outputChannelsPerConvGroup)
      .u64(p.numConvGroups);
  writeInputTransform(w, p.inputTransform);
  writeInputTransform(w, p.kernelTransform);
  const ConvParams::OutputTransform &o = p.outputTransform;
  for (const auto *v : {&o.truncationLower, &o.truncationUpper, &o.stride, &o.paddingLower,
                        &o.paddingUpper})
    writeCounts(w, *v);
}

ConvParams readConvParams(poplar::detail::ByteReader &r) {
  ConvParams p;
  p.inputType = r.type();
  p.outputType = r.type();
  p.batchSize = r.u64();
  p.inputFieldShape = r.sizes();
  p.kernelShape = r.sizes();
  p.inputChannelsPerConvGroup = r.u64();
  p.outputChannelsPerConvGroup = r.u64();
  p.numConvGroups = r.u64();
  p.inputTransform = readInputTransform(r);
  p.kernelTransform = readInputTransform(r);
  ConvParams::OutputTransform &o = p.outputTransform;
  for (auto *v : {&o.truncationLower, &o.truncationUpper, &o.stride, &o.paddingLower,
                  &o.paddingUpper})
    *v = readCounts(r);
  p.validate(); // a corrupted Executable fails here, not in the kernel
  return p;
}

} // namespace poplin::detail
