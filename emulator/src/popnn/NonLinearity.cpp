#include <popnn/NonLinearity.hpp>
#include <popnn/codelets.hpp>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

#include "poplar/CostModel.hpp"
#include "poplar/KernelOperands.hpp"
#include "poplar/ThreadPool.hpp"
#include "poplin/FloatStaging.hpp"
#include "popops/ExprEval.hpp"
#include "popops/MapKernel.hpp"

namespace popnn {

namespace {

using namespace popops::expr;
using poplar::Tensor;
using poputil::poplibs_error;
using ExprPtr = std::unique_ptr<Expr>;

// SOFTMAX_SCALED multiplies its output by this factor so half-precision results
// keep their small values; it is reported through nonLinearityScaling.
constexpr float kScaledSoftmaxFactor = 32768.0f;

const char *name(NonLinearityType type) {
  using T = NonLinearityType;
  switch (type) {
  case T::SIGMOID: return "SIGMOID";
  case T::HARD_SIGMOID: return "HARD_SIGMOID";
  case T::RELU: return "RELU";
  case T::TANH: return "TANH";
  case T::GELU: return "GELU";
  case T::GELU_ERF: return "GELU_ERF";
  case T::SWISH: return "SWISH";
  case T::SOFTMAX: return "SOFTMAX";
  case T::SOFTMAX_STABLE: return "SOFTMAX_STABLE";
  case T::SOFTMAX_SCALED: return "SOFTMAX_SCALED";
  }
  return "an unknown non-linearity";
}

bool isSoftmax(NonLinearityType type) {
  return type == NonLinearityType::SOFTMAX || type == NonLinearityType::SOFTMAX_STABLE ||
         type == NonLinearityType::SOFTMAX_SCALED;
}

float scalingOf(NonLinearityType type) {
  return type == NonLinearityType::SOFTMAX_SCALED ? kScaledSoftmaxFactor : 1.0f;
}

void checkType(const Tensor &t, NonLinearityType type) {
  if (t.elementType() != poplar::FLOAT && t.elementType() != poplar::HALF)
    throw poplibs_error(std::string("Non-linearity ") + name(type) + " needs a FLOAT or HALF tensor, not " +
                        t.getVarStr());
}

// tanh approximation of x * Phi(x), as popnn's GELU.
constexpr double kGeluScale = 0.7978845608028654; // sqrt(2 / pi)
constexpr double kGeluCubic = 0.044715;

// The function of x = _1.
ExprPtr forward(NonLinearityType type) {
  switch (type) {
  case NonLinearityType::SIGMOID: return Sigmoid(_1).clone();
  case NonLinearityType::HARD_SIGMOID: return Clamp(_1 * 0.2 + 0.5, Const(0.0), Const(1.0)).clone();
  case NonLinearityType::RELU: return UnaryOp(UnaryOpType::RELU, _1).clone();
  case NonLinearityType::TANH: return Tanh(_1).clone();
  case NonLinearityType::GELU:
    return (0.5 * _1 * (1.0 + Tanh(kGeluScale * (_1 + kGeluCubic * _1 * _1 * _1)))).clone();
  case NonLinearityType::GELU_ERF: return GeluErf(_1).clone();
  case NonLinearityType::SWISH: return (_1 * Sigmoid(_1)).clone();
  default: break;
  }
  throw poplibs_error(std::string("No element-wise form for ") + name(type));
}

// The input gradient from act = _1 and the output gradient = _2.
ExprPtr gradient(NonLinearityType type) {
  switch (type) {
  case NonLinearityType::SIGMOID: return (_2 * _1 * (1.0 - _1)).clone();
  case NonLinearityType::HARD_SIGMOID: return Select(_2 * 0.2, Const(0.0), And(_1 > 0.0, _1 < 1.0)).clone();
  case NonLinearityType::RELU: return Select(_2, Const(0.0), _1 > 0.0).clone();
  case NonLinearityType::TANH: return (_2 * (1.0 - _1 * _1)).clone();
  case NonLinearityType::GELU: {
    const Tanh t(kGeluScale * (_1 + kGeluCubic * _1 * _1 * _1));
    const auto slope = kGeluScale * (1.0 + 3 * kGeluCubic * _1 * _1);
    return (_2 * (0.5 * (1.0 + t) + 0.5 * _1 * (1.0 - t * t) * slope)).clone();
  }
  case NonLinearityType::GELU_ERF:
    return (_2 * (0.5 * (1.0 + Erf(_1 * 0.7071067811865476)) +
                  _1 * Exp(-0.5 * _1 * _1) * 0.3989422804014327)).clone();
  case NonLinearityType::SWISH: return (_2 * Sigmoid(_1) * (1.0 + _1 * (1.0 - Sigmoid(_1)))).clone();
  default: break;
  }
  throw poplibs_error(std::string("No element-wise gradient for ") + name(type));
}

Tensor outputLike(poplar::Graph &graph, const Tensor &t, const poplar::DebugContext &dc) {
  bool complete = false;
  graph.getTileMapping(t, &complete);
  if (complete && !t.containsAliases()) return graph.clone(t, dc);
  Tensor out = graph.addVariable(t.elementType(), t.shape(), dc);
  poputil::mapTensorLinearly(graph, out);
  return out;
}

std::size_t innermost(const Tensor &t) { return t.rank() ? t.dim(t.rank() - 1) : 1; }

// Rows a block of a softmax kernel takes on the thread pool: about 8K elements (rows are
// independent, so the blocks change no value).
std::size_t rowsPerBlock(std::size_t row) { return std::max<std::size_t>(1, 8192 / std::max<std::size_t>(row, 1)); }

// Every operand of a softmax kernel holds the same whole rows of `row` FLOAT or HALF elements.
void checkRows(const poplar::detail::KernelOperands &ops, std::size_t row) {
  for (std::size_t i = 0; i < ops.size(); ++i)
    ops.elements(i, ops[0].numElements).typeIn(i, {poplar::FLOAT, poplar::HALF})
        .require(row ? ops[0].numElements % row == 0 : ops[0].numElements == 0, "rows do not divide the operands");
}

// Softmax over rows of the innermost dimension; stable forms subtract the row max.
poplar::detail::KernelCompile softmaxCompile(poplar::detail::ByteReader &params) {
  const std::size_t row = params.u64();
  const bool stable = params.boolean();
  const float scale = static_cast<float>(params.f64());
  return [row, stable, scale](const std::vector<poplar::detail::Access> &ops) -> std::function<void()> {
    checkRows(poplar::detail::KernelOperands("popnn::Softmax", ops, 2), row);
    auto x = std::make_shared<std::vector<float>>();
    return [ops, x, row, stable, scale] {
      poplin::detail::loadAsFloat(ops[0], *x);
      const std::size_t rows = row ? x->size() / row : 0;
      poplar::detail::parallelBlocks(rows, rowsPerBlock(row), [&](std::size_t begin, std::size_t end, unsigned) {
        thread_local std::vector<float> shifted;
        shifted.resize(row);
        for (std::size_t r = begin; r < end; ++r) {
          float *values = x->data() + r * row;
          float shift = 0;
          if (stable) {
            shift = values[0];
            for (std::size_t i = 1; i < row; ++i) shift = std::max(shift, values[i]);
          }
          for (std::size_t i = 0; i < row; ++i) shifted[i] = values[i] - shift;
          popops::detail::expFloats(shifted.data(), values, row); // a map's vector exp
          double sum = 0;
          for (std::size_t i = 0; i < row; ++i) sum += values[i];
          const float factor = static_cast<float>(scale / sum);
          for (std::size_t i = 0; i < row; ++i) values[i] *= factor;
        }
      });
      poplin::detail::storeFromFloat(ops[1], *x);
    };
  };
}
const poplar::detail::KernelKind softmaxKind("popnn::Softmax", softmaxCompile);

poplar::detail::Kernel softmaxKernel(NonLinearityType type, const Tensor &in, const Tensor &out) {
  poplar::detail::ByteWriter params;
  params.u64(innermost(in)).boolean(type != NonLinearityType::SOFTMAX).f64(scalingOf(type));
  auto k = poplar::detail::makeKernel("popnn::Softmax", {in}, {out}, params.take(),
                                      std::string("popnn::") + name(type));
  k.cyclesPerVector = poplar::detail::kTranscendentalCycles + 3; // max, subtract, exp, scale
  return k;
}

// For o = scale * softmax(x): dx = o * (g - sum(g * o) / scale), per row.
poplar::detail::KernelCompile softmaxGradientCompile(poplar::detail::ByteReader &params) {
  const std::size_t row = params.u64();
  const float scale = static_cast<float>(params.f64());
  return [row, scale](const std::vector<poplar::detail::Access> &ops) -> std::function<void()> {
    checkRows(poplar::detail::KernelOperands("popnn::SoftmaxGradient", ops, 3), row);
    struct State { std::vector<float> o, g; };
    auto s = std::make_shared<State>();
    return [ops, s, row, scale] {
      poplin::detail::loadAsFloat(ops[0], s->o);
      poplin::detail::loadAsFloat(ops[1], s->g);
      const std::size_t rows = row ? s->o.size() / row : 0;
      poplar::detail::parallelBlocks(rows, rowsPerBlock(row), [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t r = begin * row; r < end * row; r += row) {
          double dot = 0;
          for (std::size_t i = r; i < r + row; ++i) dot += double(s->g[i]) * s->o[i];
          const float mean = static_cast<float>(dot / scale);
          for (std::size_t i = r; i < r + row; ++i) s->g[i] = s->o[i] * (s->g[i] - mean);
        }
      });
      poplin::detail::storeFromFloat(ops[2], s->g);
    };
  };
}
const poplar::detail::KernelKind softmaxGradientKind("popnn::SoftmaxGradient", softmaxGradientCompile);

poplar::detail::Kernel softmaxGradientKernel(NonLinearityType type, const Tensor &act, const Tensor &grad,
                                             const Tensor &out) {
  poplar::detail::ByteWriter params;
  params.u64(innermost(act)).f64(scalingOf(type));
  auto k = poplar::detail::makeKernel("popnn::SoftmaxGradient", {act, grad}, {out}, params.take(),
                                      std::string("popnn::") + name(type) + "Gradient");
  k.cyclesPerVector = 4; // multiply-accumulate, subtract, multiply
  return k;
}

poplar::detail::Kernel forwardKernel(NonLinearityType type, const Tensor &in, const Tensor &out) {
  checkType(in, type);
  if (isSoftmax(type)) return softmaxKernel(type, in, out);
  const ExprPtr e = forward(type);
  return popops::detail::mapKernel(popops::detail::planMap(*e, {in}, out), {in}, out);
}

} // namespace

void addCodelets(poplar::Graph &) {}

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType type, Tensor t, float &scaling,
                         poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  scaling = scalingOf(type);
  poplar::detail::executeKernel(graph, prog, forwardKernel(type, t, t), dc);
}

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType type, Tensor t,
                         poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  float scaling;
  nonLinearityInPlace(graph, type, t, scaling, prog, dc);
}

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType type, Tensor t, float &scaling,
                         poplar::ComputeSet &cs, const poplar::DebugContext &) {
  if (isSoftmax(type))
    throw poplibs_error(std::string("The ComputeSet form of nonLinearityInPlace does not support ") + name(type));
  scaling = scalingOf(type);
  poplar::detail::addKernel(graph, cs, forwardKernel(type, t, t));
}

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType type, Tensor t, poplar::ComputeSet &cs,
                         const poplar::DebugContext &dc) {
  float scaling;
  nonLinearityInPlace(graph, type, t, scaling, cs, dc);
}

Tensor nonLinearity(poplar::Graph &graph, NonLinearityType type, Tensor t, float &scaling,
                    poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  checkType(t, type);
  Tensor out = outputLike(graph, t, poplar::DebugContext(dc, name(type)));
  scaling = scalingOf(type);
  poplar::detail::executeKernel(graph, prog, forwardKernel(type, t, out), dc);
  return out;
}

Tensor nonLinearity(poplar::Graph &graph, NonLinearityType type, Tensor t, poplar::program::Sequence &prog,
                    const poplar::DebugContext &dc) {
  float scaling;
  return nonLinearity(graph, type, t, scaling, prog, dc);
}

namespace {
poplar::detail::Kernel gradientKernel(NonLinearityType type, const Tensor &act, const Tensor &grad,
                                      const Tensor &out) {
  checkType(act, type);
  if (act.shape() != grad.shape() || act.elementType() != grad.elementType())
    throw poplibs_error("nonLinearityInputGradient: the activations " + act.getVarStr() +
                        " and the output gradient " + grad.getVarStr() + " must match in shape and type");
  if (isSoftmax(type)) return softmaxGradientKernel(type, act, grad, out);
  const ExprPtr e = gradient(type);
  return popops::detail::mapKernel(popops::detail::planMap(*e, {act, grad}, out), {act, grad}, out);
}
} // namespace

Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType type, Tensor act, Tensor outGradient,
                                 poplar::ComputeSet &cs, const poplar::DebugContext &dc) {
  if (isSoftmax(type))
    throw poplibs_error(std::string("The ComputeSet form of nonLinearityInputGradient does not support ") + name(type));
  Tensor out = outputLike(graph, outGradient, poplar::DebugContext(dc, "inputGradient"));
  poplar::detail::addKernel(graph, cs, gradientKernel(type, act, outGradient, out));
  return out;
}

Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType type, Tensor act, Tensor outGradient,
                                 poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  Tensor out = outputLike(graph, outGradient, poplar::DebugContext(dc, "inputGradient"));
  poplar::detail::executeKernel(graph, prog, gradientKernel(type, act, outGradient, out), dc);
  return out;
}

} // namespace popnn
