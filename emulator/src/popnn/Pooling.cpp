#include <popnn/Pooling.hpp>

#include <algorithm>
#include <limits>
#include <memory>
#include <ostream>
#include <set>
#include <string>

#include <poplar/exceptions.hpp>
#include <poplin/ConvParams.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"
#include "poplar/TensorImpl.hpp"
#include "poplin/ConvGeometry.hpp"
#include "poplin/FloatStaging.hpp"

namespace popnn {
namespace pooling {

namespace {

using poplar::Graph;
using poplar::Tensor;
using poplar::detail::Access;
using poplin::detail::loadAsFloat;
using poplin::detail::storeFromFloat;
using poplar::program::Sequence;
using Shape = std::vector<std::size_t>;

template <class Values>
void checkLength(const std::string &api, const std::string &what, const Values &values,
                 std::size_t dims) {
  if (values.size() != dims)
    throw poputil::poplibs_error(api + ": PoolParams." + what + " has " +
                                 std::to_string(values.size()) + " entries; inputFieldShape has " +
                                 std::to_string(dims) + " dimensions");
}

// Pooling as a convolution with one channel per group: its geometry gives each
// window's input elements.
poplin::ConvParams asConvParams(const std::string &api, const PoolParams &p) {
  const std::size_t dims = p.getNumFieldDims();
  checkLength(api, "kernelShape", p.kernelShape, dims);
  checkLength(api, "stride", p.stride, dims);
  checkLength(api, "inputTruncationOrPaddingLower", p.inputTruncationOrPaddingLower, dims);
  checkLength(api, "inputTruncationOrPaddingUpper", p.inputTruncationOrPaddingUpper, dims);
  if (p.dType != poplar::FLOAT && p.dType != poplar::HALF)
    throw poputil::poplibs_error(api + ": PoolParams.dType must be FLOAT or HALF, got " +
                                 p.dType.toString().str());
  poplin::ConvParams conv(p.dType, p.batchSize, p.inputFieldShape, p.kernelShape, 1, 1,
                          p.numChannels);
  for (std::size_t d = 0; d < dims; ++d) {
    const int lower = p.inputTruncationOrPaddingLower[d], upper = p.inputTruncationOrPaddingUpper[d];
    conv.inputTransform.paddingLower[d] = unsigned(std::max(lower, 0));
    conv.inputTransform.truncationLower[d] = unsigned(std::max(-lower, 0));
    conv.inputTransform.paddingUpper[d] = unsigned(std::max(upper, 0));
    conv.inputTransform.truncationUpper[d] = unsigned(std::max(-upper, 0));
    conv.outputTransform.stride[d] = p.stride[d];
  }
  try {
    conv.validate();
  } catch (const poputil::poplibs_error &e) {
    const std::string message = e.what();
    throw poputil::poplibs_error(api + ": " + message.substr(message.find(':') + 2) +
                                 " (pooling window and padding)");
  }
  return conv;
}

Shape withField(Shape leading, const Shape &field) {
  leading.insert(leading.end(), field.begin(), field.end());
  return leading;
}

void checkTensor(const std::string &api, const std::string &role, const Tensor &t,
                 const Shape &expected, const poplar::Type &type) {
  if (t.shape() != expected || t.elementType() != type)
    throw poputil::poplibs_error(api + ": " + role + " must have shape " +
                                 poplar::detail::shapeString(expected) + " and type " +
                                 type.toString().str() + " for these PoolParams, got " +
                                 t.getVarStr());
}

void checkOptions(const poplar::OptionFlags &options) {
  for (const auto &[key, value] : options) {
    if (key != "poolUseIntrospectiveMapping")
      throw poplar::invalid_option("Unrecognised option '" + key + "'");
    if (value != "true" && value != "false")
      throw poplar::invalid_option("Invalid value '" + value + "' for option '" + key +
                                   "': expected true or false");
  }
}


// The windows of one plane (a batch element's channel) and how many input
// elements each holds.
struct Windows {
  explicit Windows(const poplin::ConvParams &conv)
      : geometry(poplin::detail::convGeometry(conv)),
        planes(conv.batchSize * conv.numConvGroups), sizes(geometry.numComputed(), 0) {
    for (std::size_t t = 0; t < geometry.numTaps(); ++t)
      for (std::size_t j = 0; j < sizes.size(); ++j) sizes[j] += tapInput(t)[j] >= 0;
  }
  const long *tapInput(std::size_t tap) const {
    return geometry.tapInputIndex.data() + tap * geometry.numComputed();
  }
  poplin::detail::ConvGeometry geometry;
  std::size_t planes;
  std::vector<std::size_t> sizes;
};

void forward(const Windows &w, PoolingType type, const std::vector<float> &in,
             std::vector<float> &out) {
  const std::size_t computed = w.geometry.numComputed(), field = w.geometry.inputFieldElements;
  out.assign(w.planes * computed, type == PoolingType::MAX ? -std::numeric_limits<float>::infinity() : 0.0f);
  for (std::size_t plane = 0; plane < w.planes; ++plane) {
    const float *input = in.data() + plane * field;
    float *result = out.data() + plane * computed;
    for (std::size_t t = 0; t < w.geometry.numTaps(); ++t) {
      const long *index = w.tapInput(t);
      for (std::size_t j = 0; j < computed; ++j) {
        if (index[j] < 0) continue;
        const float x = input[index[j]];
        result[j] = type == PoolingType::MAX ? std::max(result[j], x) : result[j] + x;
      }
    }
    for (std::size_t j = 0; j < computed; ++j) {
      if (!w.sizes[j]) result[j] = 0.0f; // a window of padding only
      else if (type == PoolingType::AVG) result[j] /= float(w.sizes[j]);
    }
  }
}

// `in` and `pooled` are needed for MAX only.
void backward(const Windows &w, PoolingType type, bool scaled, const std::vector<float> &in,
              const std::vector<float> &pooled, const std::vector<float> &gradient,
              std::vector<float> &result) {
  const std::size_t computed = w.geometry.numComputed(), field = w.geometry.inputFieldElements;
  const std::size_t taps = w.geometry.numTaps();
  result.assign(w.planes * field, 0.0f);
  std::vector<float> share(computed);
  for (std::size_t plane = 0; plane < w.planes; ++plane) {
    const float *input = type == PoolingType::MAX ? in.data() + plane * field : nullptr;
    const float *maxima = type == PoolingType::MAX ? pooled.data() + plane * computed : nullptr;
    const float *g = gradient.data() + plane * computed;
    float *r = result.data() + plane * field;
    // What each window element receives.
    for (std::size_t j = 0; j < computed; ++j)
      share[j] = type == PoolingType::AVG && w.sizes[j] ? g[j] / float(w.sizes[j]) : g[j];
    if (type == PoolingType::MAX && scaled) {
      std::vector<std::size_t> matches(computed, 0);
      for (std::size_t t = 0; t < taps; ++t)
        for (std::size_t j = 0; j < computed; ++j)
          matches[j] += w.tapInput(t)[j] >= 0 && input[w.tapInput(t)[j]] == maxima[j];
      for (std::size_t j = 0; j < computed; ++j)
        if (matches[j]) share[j] /= float(matches[j]);
    }
    for (std::size_t t = 0; t < taps; ++t) {
      const long *index = w.tapInput(t);
      for (std::size_t j = 0; j < computed; ++j)
        if (index[j] >= 0 && (type != PoolingType::MAX || input[index[j]] == maxima[j]))
          r[index[j]] += share[j];
    }
  }
}

PoolingType readPoolingType(poplar::detail::ByteReader &r) {
  const std::uint64_t type = r.u64();
  if (type > std::uint64_t(PoolingType::SUM)) r.corrupt();
  return PoolingType(type);
}

poplar::detail::KernelCompile poolCompile(poplar::detail::ByteReader &params) {
  auto windows = std::make_shared<const Windows>(poplin::detail::readConvParams(params));
  const PoolingType type = readPoolingType(params);
  return [windows, type](const std::vector<Access> &operands) -> std::function<void()> {
    const poplar::detail::KernelOperands checked("popnn::Pool", operands, 2);
    checked.elements(0, checked.product({windows->planes, windows->geometry.inputFieldElements}))
        .elements(1, checked.product({windows->planes, windows->geometry.numComputed()}));
    auto buffers = std::make_shared<std::pair<std::vector<float>, std::vector<float>>>();
    return [windows, type, operands, buffers] {
      loadAsFloat(operands[0], buffers->first);
      forward(*windows, type, buffers->first, buffers->second);
      storeFromFloat(operands[1], buffers->second);
    };
  };
}
const poplar::detail::KernelKind poolKind("popnn::Pool", poolCompile);

struct GradientBuffers {
  std::vector<float> in, pooled, gradient, result;
};

poplar::detail::KernelCompile poolGradientCompile(poplar::detail::ByteReader &params) {
  auto windows = std::make_shared<const Windows>(poplin::detail::readConvParams(params));
  const PoolingType type = readPoolingType(params);
  const bool scaled = params.boolean();
  return [windows, type, scaled](const std::vector<Access> &operands) -> std::function<void()> {
    // Operands: [in, pooled,] pooledGradient, result.
    const bool max = type == PoolingType::MAX;
    const poplar::detail::KernelOperands checked("popnn::PoolGradient", operands, max ? 4 : 2);
    const std::size_t inputs = checked.product({windows->planes, windows->geometry.inputFieldElements}),
                      pooled = checked.product({windows->planes, windows->geometry.numComputed()});
    checked.elements(operands.size() - 2, pooled).elements(operands.size() - 1, inputs);
    if (max) checked.elements(0, inputs).elements(1, pooled);
    auto buffers = std::make_shared<GradientBuffers>();
    return [windows, type, scaled, operands, buffers] {
      if (type == PoolingType::MAX) {
        loadAsFloat(operands[0], buffers->in);
        loadAsFloat(operands[1], buffers->pooled);
      }
      loadAsFloat(operands[operands.size() - 2], buffers->gradient);
      backward(*windows, type, scaled, buffers->in, buffers->pooled, buffers->gradient,
               buffers->result);
      storeFromFloat(operands.back(), buffers->result);
    };
  };
}
const poplar::detail::KernelKind poolGradientKind("popnn::PoolGradient", poolGradientCompile);

Tensor addMappedVariable(Graph &graph, const poplar::Type &type, const Shape &shape,
                         const poplar::DebugContext &debugContext) {
  Tensor t = graph.addVariable(type, shape, debugContext);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

// The kernel's parameters: the ConvParams, the pooling type, then `useScaledGradient`
// for gradients.
void execute(Graph &graph, Sequence &prog, const char *kind, const poplin::ConvParams &conv,
             PoolingType type, std::vector<Tensor> reads, const Tensor &result,
             const bool *useScaledGradient, const poplar::DebugContext &debugContext) {
  poplar::detail::ByteWriter bytes;
  poplin::detail::writeConvParams(bytes, conv);
  bytes.u64(std::uint64_t(type));
  if (useScaledGradient) bytes.boolean(*useScaledGradient);
  auto kernel = poplar::detail::makeKernel(kind, std::move(reads), {result}, bytes.take());
  // Each output element of the forward pass takes one operation per window element.
  const std::size_t taps = std::max<std::size_t>(poplin::detail::convGeometry(conv).numTaps(), 1);
  kernel.cyclesPerVector = unsigned(taps);
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
}

uint64_t windowOperations(const PoolParams &params) {
  const Windows w(asConvParams("popnn::pooling::getFwdFlops", params));
  uint64_t total = 0;
  for (std::size_t size : w.sizes) total += size;
  return total * w.planes;
}

double perfectCycles(const Graph &graph, const PoolParams &params) {
  const poplar::Target &target = graph.getTarget();
  return double(getFwdFlops(params)) /
         double(target.getVectorWidth(params.dType) * target.getNumTiles());
}

} // namespace

std::vector<std::size_t> PoolParams::getOutputFieldShape() const {
  return asConvParams("popnn::pooling::PoolParams::getOutputFieldShape", *this)
      .getOutputFieldShape();
}

std::ostream &operator<<(std::ostream &o, const PoolParams &params) {
  const auto list = [&o](const auto &values) {
    o << "{";
    for (std::size_t i = 0; i < values.size(); ++i) o << (i ? "," : "") << values[i];
    o << "}";
  };
  o << "Pool params: type " << asString(params.poolingType) << ", batchSize " << params.batchSize
    << ", numChannels " << params.numChannels << ", dType " << params.dType
    << ", inputFieldShape ";
  list(params.inputFieldShape);
  o << ", kernelShape ";
  list(params.kernelShape);
  o << ", stride ";
  list(params.stride);
  o << ", inputTruncationOrPaddingLower ";
  list(params.inputTruncationOrPaddingLower);
  o << ", inputTruncationOrPaddingUpper ";
  list(params.inputTruncationOrPaddingUpper);
  return o;
}

const char *asString(const PoolingType &method) {
  switch (method) {
  case PoolingType::MAX: return "max";
  case PoolingType::AVG: return "avg";
  case PoolingType::SUM: return "sum";
  }
  throw poputil::poplibs_error("popnn::pooling::asString: unknown PoolingType " +
                               std::to_string(int(method)));
}

std::vector<std::size_t> getOutputFieldShape(const PoolParams &params) {
  return params.getOutputFieldShape();
}

uint64_t getFwdFlops(const PoolParams &params) { return windowOperations(params); }
// Each window element receives (MAX: compares for) one share of the gradient.
uint64_t getBwdFlops(const PoolParams &params) { return windowOperations(params); }

double getFwdPerfectCycleCount(const Graph &graph, const PoolParams &params) {
  return perfectCycles(graph, params);
}
double getBwdPerfectCycleCount(const Graph &graph, const PoolParams &params) {
  return perfectCycles(graph, params);
}

Tensor pool(Graph &graph, const PoolParams &params, const Tensor &in, Sequence &prog,
            const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  const std::string api = "popnn::pooling::pool";
  checkOptions(options);
  const poplin::ConvParams conv = asConvParams(api, params);
  checkTensor(api, "in", in, withField({params.batchSize, params.numChannels}, params.inputFieldShape),
              params.dType);
  const Tensor out = addMappedVariable(
      graph, params.dType,
      withField({params.batchSize, params.numChannels}, conv.getOutputFieldShape()),
      {debugContext, "pooled"});
  execute(graph, prog, "popnn::Pool", conv, params.poolingType, {in}, out, nullptr, debugContext);
  return out;
}

namespace {

Tensor inputGradient(const std::string &api, Graph &graph, const PoolParams &params,
                     std::vector<Tensor> forwardTensors, const Tensor &pooledGradient,
                     bool useScaledGradient, Sequence &prog,
                     const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  checkOptions(options);
  const poplin::ConvParams conv = asConvParams(api, params);
  const Shape inShape = withField({params.batchSize, params.numChannels}, params.inputFieldShape);
  const Shape outShape = withField({params.batchSize, params.numChannels}, conv.getOutputFieldShape());
  if (!forwardTensors.empty()) {
    checkTensor(api, "in", forwardTensors[0], inShape, params.dType);
    checkTensor(api, "pooled", forwardTensors[1], outShape, params.dType);
  }
  checkTensor(api, "pooledGradient", pooledGradient, outShape, params.dType);
  const Tensor result = addMappedVariable(graph, params.dType, inShape, {debugContext, "inputGradient"});
  forwardTensors.push_back(pooledGradient);
  execute(graph, prog, "popnn::PoolGradient", conv, params.poolingType, std::move(forwardTensors),
          result, &useScaledGradient, debugContext);
  return result;
}

} // namespace

Tensor poolInputGradient(Graph &graph, const PoolParams &params, const Tensor &in,
                         const Tensor &pooled, const Tensor &pooledGradient,
                         bool useScaledGradient, Sequence &prog,
                         const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options) {
  const std::string api = "popnn::pooling::poolInputGradient";
  std::vector<Tensor> forwardTensors;
  if (params.poolingType == PoolingType::MAX) forwardTensors = {in, pooled};
  return inputGradient(api, graph, params, forwardTensors, pooledGradient, useScaledGradient,
                       prog, debugContext, options);
}

Tensor poolInputGradient(Graph &graph, const PoolParams &params, const unsigned,
                         const Tensor &pooledGradient, Sequence &prog,
                         const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options) {
  const std::string api = "popnn::pooling::poolInputGradient";
  if (params.poolingType == PoolingType::MAX)
    throw poputil::poplibs_error(api + ": MAX pooling's gradient needs the forward input and "
                                 "output; use the overload that takes them");
  return inputGradient(api, graph, params, {}, pooledGradient, false, prog, debugContext,
                       options);
}

} // namespace pooling
} // namespace popnn
