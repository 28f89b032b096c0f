#include <poplin/ConvParams.hpp>

#include <limits>
#include <ostream>
#include <string>
#include <tuple>

#include <poputil/exceptions.hpp>

namespace poplin {

namespace {

using Sizes = std::vector<std::size_t>;
using Counts = std::vector<unsigned>;

// The size of one dimension after truncation, dilation, padding (flips keep it).
// Saturates at SIZE_MAX, so that validate() refuses a transform past the SDK's unsigned
// sizes instead of seeing a wrapped, small one.
std::size_t transformedSize(std::size_t size, const ConvParams::InputTransform &t, unsigned dim) {
  const std::size_t truncation = std::size_t(t.truncationLower[dim]) + t.truncationUpper[dim];
  const std::size_t truncated = size > truncation ? size - truncation : 0;
  std::size_t dilated = 0, padded = 0;
  if (truncated && (__builtin_mul_overflow(truncated - 1, std::size_t(t.dilation[dim]), &dilated) ||
                    __builtin_add_overflow(dilated, std::size_t(1), &dilated)))
    return SIZE_MAX;
  if (__builtin_add_overflow(dilated, std::size_t(t.paddingLower[dim]) + t.paddingUpper[dim], &padded))
    return SIZE_MAX;
  return padded;
}

std::size_t combine(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2));
}

template <class Values> std::size_t hashAll(std::size_t seed, const Values &values) {
  for (const auto &v : values) seed = combine(seed, std::size_t(v));
  return seed;
}

template <class Values>
void checkLength(const std::string &what, const Values &values, std::size_t dims) {
  if (values.size() != dims)
    throw poputil::poplibs_error("ConvParams: " + what + " has " + std::to_string(values.size()) +
                                 " entries; the field has " + std::to_string(dims) +
                                 " dimensions");
}

void checkTransform(const std::string &name, const ConvParams::InputTransform &t,
                    std::size_t dims) {
  checkLength(name + ".truncationLower", t.truncationLower, dims);
  checkLength(name + ".truncationUpper", t.truncationUpper, dims);
  checkLength(name + ".dilation", t.dilation, dims);
  checkLength(name + ".paddingLower", t.paddingLower, dims);
  checkLength(name + ".paddingUpper", t.paddingUpper, dims);
  checkLength(name + ".flip", t.flip, dims);
  for (std::size_t d = 0; d < dims; ++d)
    if (t.dilation[d] == 0)
      throw poputil::poplibs_error("ConvParams: " + name + ".dilation[" + std::to_string(d) +
                                   "] is 0; dilations are at least 1");
}

template <class Values> std::ostream &printList(std::ostream &os, const Values &values) {
  os << "{";
  for (std::size_t i = 0; i < values.size(); ++i) os << (i ? "," : "") << values[i];
  return os << "}";
}

std::ostream &operator<<(std::ostream &os, const ConvParams::InputTransform &t) {
  os << "truncation lower ";
  printList(os, t.truncationLower) << " upper ";
  printList(os, t.truncationUpper) << ", dilation ";
  printList(os, t.dilation) << ", padding lower ";
  printList(os, t.paddingLower) << " upper ";
  printList(os, t.paddingUpper) << ", flip ";
  return printList(os, t.flip);
}

} // namespace

ConvParams::InputTransform::InputTransform(const std::size_t size)
    : truncationLower(size, 0), truncationUpper(size, 0), dilation(size, 1),
      paddingLower(size, 0), paddingUpper(size, 0), flip(size, false) {}

ConvParams::InputTransform::InputTransform(Counts truncationLower, Counts truncationUpper,
                                           Counts dilation, Counts paddingLower,
                                           Counts paddingUpper, std::vector<bool> flip)
    : truncationLower(std::move(truncationLower)), truncationUpper(std::move(truncationUpper)),
      dilation(std::move(dilation)), paddingLower(std::move(paddingLower)),
      paddingUpper(std::move(paddingUpper)), flip(std::move(flip)) {}

static auto fields(const ConvParams::InputTransform &t) {
  return std::tie(t.truncationLower, t.truncationUpper, t.dilation, t.paddingLower,
                  t.paddingUpper, t.flip);
}
bool operator<(const ConvParams::InputTransform &a, const ConvParams::InputTransform &b) {
  return fields(a) < fields(b);
}
bool operator==(const ConvParams::InputTransform &a, const ConvParams::InputTransform &b) {
  return fields(a) == fields(b);
}
bool operator!=(const ConvParams::InputTransform &a, const ConvParams::InputTransform &b) {
  return !(a == b);
}

ConvParams::OutputTransform::OutputTransform(const std::size_t size)
    : truncationLower(size, 0), truncationUpper(size, 0), stride(size, 1), paddingLower(size, 0),
      paddingUpper(size, 0) {}

ConvParams::OutputTransform::OutputTransform(Counts truncationLower, Counts truncationUpper,
                                             Counts striding, Counts paddingLower,
                                             Counts paddingUpper)
    : truncationLower(std::move(truncationLower)), truncationUpper(std::move(truncationUpper)),
      stride(std::move(striding)), paddingLower(std::move(paddingLower)),
      paddingUpper(std::move(paddingUpper)) {}

static auto fields(const ConvParams::OutputTransform &t) {
  return std::tie(t.truncationLower, t.truncationUpper, t.stride, t.paddingLower, t.paddingUpper);
}
bool operator<(const ConvParams::OutputTransform &a, const ConvParams::OutputTransform &b) {
  return fields(a) < fields(b);
}
bool operator==(const ConvParams::OutputTransform &a, const ConvParams::OutputTransform &b) {
  return fields(a) == fields(b);
}
bool operator!=(const ConvParams::OutputTransform &a, const ConvParams::OutputTransform &b) {
  return !(a == b);
}

ConvParams::ConvParams(poplar::Type dataType, std::size_t batchSize, Sizes inputFieldShape,
                       Sizes kernelShape, std::size_t inputChannelsPerConvGroup,
                       std::size_t outputChannelsPerConvGroup, std::size_t numConvGroups)
    : ConvParams(dataType, dataType, batchSize, std::move(inputFieldShape),
                 std::move(kernelShape), inputChannelsPerConvGroup, outputChannelsPerConvGroup,
                 numConvGroups) {}

ConvParams::ConvParams(poplar::Type inputType, poplar::Type outputType, std::size_t batchSize,
                       Sizes inputFieldShape, Sizes kernelShape,
                       std::size_t inputChannelsPerConvGroup,
                       std::size_t outputChannelsPerConvGroup, std::size_t numConvGroups)
    : ConvParams(inputType, outputType, batchSize, inputFieldShape, kernelShape,
                 inputChannelsPerConvGroup, outputChannelsPerConvGroup, numConvGroups,
                 InputTransform(inputFieldShape.size()), InputTransform(inputFieldShape.size()),
                 OutputTransform(inputFieldShape.size())) {}

ConvParams::ConvParams(poplar::Type inputType, poplar::Type outputType, std::size_t batchSize,
                       Sizes inputFieldShape, Sizes kernelShape,
                       std::size_t inputChannelsPerConvGroup,
                       std::size_t outputChannelsPerConvGroup, std::size_t numConvGroups,
                       InputTransform inputTransform, InputTransform kernelTransform,
                       OutputTransform outputTransform)
    : inputType(inputType), outputType(outputType), batchSize(batchSize),
      inputFieldShape(std::move(inputFieldShape)), kernelShape(std::move(kernelShape)),
      inputChannelsPerConvGroup(inputChannelsPerConvGroup),
      outputChannelsPerConvGroup(outputChannelsPerConvGroup), numConvGroups(numConvGroups),
      inputTransform(std::move(inputTransform)), kernelTransform(std::move(kernelTransform)),
      outputTransform(std::move(outputTransform)) {}

unsigned ConvParams::getTruncatedInputSize(unsigned dim) const {
  const std::size_t truncation =
      std::size_t(inputTransform.truncationLower[dim]) + inputTransform.truncationUpper[dim];
  return unsigned(inputFieldShape[dim] > truncation ? inputFieldShape[dim] - truncation : 0);
}

unsigned ConvParams::getTruncatedKernelSize(unsigned dim) const {
  const std::size_t truncation =
      std::size_t(kernelTransform.truncationLower[dim]) + kernelTransform.truncationUpper[dim];
  return unsigned(kernelShape[dim] > truncation ? kernelShape[dim] - truncation : 0);
}

unsigned ConvParams::getTransformedInputSize(unsigned dim) const {
  return unsigned(transformedSize(inputFieldShape[dim], inputTransform, dim));
}

unsigned ConvParams::getTransformedKernelSize(unsigned dim) const {
  return unsigned(transformedSize(kernelShape[dim], kernelTransform, dim));
}

std::size_t ConvParams::getUntransformedOutputSize(unsigned dim) const {
  const std::size_t input = getTransformedInputSize(dim), kernel = getTransformedKernelSize(dim);
  return input >= kernel ? input - kernel + 1 : 0;
}

std::size_t ConvParams::getOutputSize(unsigned dim) const {
  const std::size_t untransformed = getUntransformedOutputSize(dim);
  const std::size_t truncation =
      std::size_t(outputTransform.truncationLower[dim]) + outputTransform.truncationUpper[dim];
  const std::size_t truncated = untransformed > truncation ? untransformed - truncation : 0;
  const std::size_t stride = outputTransform.stride[dim];
  return (truncated + stride - 1) / stride + outputTransform.paddingLower[dim] +
         outputTransform.paddingUpper[dim];
}

std::vector<std::size_t> ConvParams::getOutputFieldShape() const {
  std::vector<std::size_t> shape;
  for (unsigned d = 0; d < getNumFieldDims(); ++d) shape.push_back(getOutputSize(d));
  return shape;
}

void ConvParams::validate() const {
  const std::size_t dims = getNumFieldDims();
  checkLength("kernelShape", kernelShape, dims);
  checkTransform("inputTransform", inputTransform, dims);
  checkTransform("kernelTransform", kernelTransform, dims);
  checkLength("outputTransform.truncationLower", outputTransform.truncationLower, dims);
  checkLength("outputTransform.truncationUpper", outputTransform.truncationUpper, dims);
  checkLength("outputTransform.stride", outputTransform.stride, dims);
  checkLength("outputTransform.paddingLower", outputTransform.paddingLower, dims);
  checkLength("outputTransform.paddingUpper", outputTransform.paddingUpper, dims);
  for (unsigned d = 0; d < dims; ++d) {
    const std::string at = "[" + std::to_string(d) + "]";
    if (outputTransform.stride[d] == 0)
      throw poputil::poplibs_error("ConvParams: outputTransform.stride" + at +
                                   " is 0; strides are at least 1");
    if (std::size_t(inputTransform.truncationLower[d]) + inputTransform.truncationUpper[d] >
        inputFieldShape[d])
      throw poputil::poplibs_error("ConvParams: the input truncation in dimension " +
                                   std::to_string(d) + " exceeds the input size " +
                                   std::to_string(inputFieldShape[d]));
    if (std::size_t(kernelTransform.truncationLower[d]) + kernelTransform.truncationUpper[d] >
        kernelShape[d])
      throw poputil::poplibs_error("ConvParams: the kernel truncation in dimension " +
                                   std::to_string(d) + " exceeds the kernel size " +
                                   std::to_string(kernelShape[d]));
    const std::size_t largestSize = std::numeric_limits<unsigned>::max();
    if (transformedSize(inputFieldShape[d], inputTransform, d) > largestSize ||
        transformedSize(kernelShape[d], kernelTransform, d) > largestSize)
      throw poputil::poplibs_error("ConvParams: in dimension " + std::to_string(d) +
                                   " the transformed input or kernel has more than " +
                                   std::to_string(largestSize) + " elements");
    if (getTransformedKernelSize(d) > getTransformedInputSize(d))
      throw poputil::poplibs_error(
          "ConvParams: in dimension " + std::to_string(d) + " the transformed kernel (size " +
          std::to_string(getTransformedKernelSize(d)) + ") is larger than the transformed input (size " +
          std::to_string(getTransformedInputSize(d)) + ")");
    if (std::size_t(outputTransform.truncationLower[d]) + outputTransform.truncationUpper[d] >
        getUntransformedOutputSize(d))
      throw poputil::poplibs_error("ConvParams: the output truncation in dimension " +
                                   std::to_string(d) + " exceeds the output size " +
                                   std::to_string(getUntransformedOutputSize(d)));
  }
  if (numConvGroups == 0)
    throw poputil::poplibs_error("ConvParams: numConvGroups is 0; there is at least one group");
  for (const poplar::Type *type : {&inputType, &outputType})
    if (*type != poplar::FLOAT && *type != poplar::HALF)
      throw poputil::poplibs_error("ConvParams: element types must be FLOAT or HALF, got " +
                                   type->toString().str());
}

ConvParams ConvParams::canonicalize() const {
  validate();
  ConvParams p = *this;
  for (unsigned d = 0; d < getNumFieldDims(); ++d) {
    // Dilating a single element adds no zeros; flipping a single element moves nothing.
    if (getTruncatedInputSize(d) <= 1) p.inputTransform.dilation[d] = 1;
    if (getTruncatedKernelSize(d) <= 1) p.kernelTransform.dilation[d] = 1;
    if (getTransformedInputSize(d) <= 1) p.inputTransform.flip[d] = false;
    if (getTransformedKernelSize(d) <= 1) p.kernelTransform.flip[d] = false;
    const std::size_t truncatedOutput = getUntransformedOutputSize(d) -
                                        outputTransform.truncationLower[d] -
                                        outputTransform.truncationUpper[d];
    if (truncatedOutput <= 1) p.outputTransform.stride[d] = 1;
  }
  return p;
}

static auto fields(const ConvParams &p) {
  return std::tie(p.inputType, p.outputType, p.batchSize, p.inputFieldShape, p.kernelShape,
                  p.inputChannelsPerConvGroup, p.outputChannelsPerConvGroup, p.numConvGroups,
                  p.inputTransform, p.kernelTransform, p.outputTransform);
}
bool operator<(const ConvParams &a, const ConvParams &b) { return fields(a) < fields(b); }
bool operator==(const ConvParams &a, const ConvParams &b) { return fields(a) == fields(b); }
bool operator!=(const ConvParams &a, const ConvParams &b) { return !(a == b); }

std::ostream &operator<<(std::ostream &os, const ConvParams &p) {
  os << "Params: inputType " << p.inputType << ", outputType " << p.outputType << ", batchSize "
     << p.batchSize << ", numConvGroups " << p.numConvGroups << ", inputFieldShape ";
  printList(os, p.inputFieldShape) << ", kernelShape ";
  printList(os, p.kernelShape) << ", inputChannelsPerConvGroup " << p.inputChannelsPerConvGroup
                               << ", outputChannelsPerConvGroup "
                               << p.outputChannelsPerConvGroup << "\n  inputTransform: "
                               << p.inputTransform << "\n  kernelTransform: " << p.kernelTransform
                               << "\n  outputTransform: truncation lower ";
  const ConvParams::OutputTransform &o = p.outputTransform;
  printList(os, o.truncationLower) << " upper ";
  printList(os, o.truncationUpper) << ", stride ";
  printList(os, o.stride) << ", padding lower ";
  printList(os, o.paddingLower) << " upper ";
  return printList(os, o.paddingUpper) << "\n";
}

std::size_t hash_value(const ConvParams::InputTransform &it) {
  std::size_t seed = 0;
  for (const Counts *values : {&it.truncationLower, &it.truncationUpper, &it.dilation,
                               &it.paddingLower, &it.paddingUpper})
    seed = hashAll(seed, *values);
  return hashAll(seed, it.flip);
}

std::size_t hash_value(const ConvParams::OutputTransform &ot) {
  std::size_t seed = 0;
  for (const Counts *values : {&ot.truncationLower, &ot.truncationUpper, &ot.stride,
                               &ot.paddingLower, &ot.paddingUpper})
    seed = hashAll(seed, *values);
  return seed;
}

} // namespace poplin

std::size_t
std::hash<poplin::ConvParams::InputTransform>::operator()(const poplin::ConvParams::InputTransform &it) const {
  return poplin::hash_value(it);
}

std::size_t std::hash<poplin::ConvParams::OutputTransform>::operator()(
    const poplin::ConvParams::OutputTransform &ot) const {
  return poplin::hash_value(ot);
}

std::size_t std::hash<poplin::ConvParams>::operator()(const poplin::ConvParams &p) const {
  std::size_t seed = poplin::hashAll(poplin::hash_value(p.inputTransform), p.inputFieldShape);
  seed = poplin::hashAll(seed, p.kernelShape);
  return poplin::hashAll(seed, std::vector<std::size_t>{
                                   p.inputType.hash(), p.outputType.hash(), p.batchSize,
                                   p.inputChannelsPerConvGroup, p.outputChannelsPerConvGroup,
                                   p.numConvGroups, poplin::hash_value(p.kernelTransform),
                                   poplin::hash_value(p.outputTransform)});
}
