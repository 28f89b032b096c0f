#include "ConvKernel.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <cblas.h>

#include "ConvGeometry.hpp"
#include "FewRowsGemm.hpp"
#include "FloatStaging.hpp"
#include "Gemm.hpp"
#include "PooledBlas.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"
#include "poplar/TypeInfo.hpp"

namespace poplin::detail {

namespace {

using poplar::detail::Access;


// What the passes share: the geometry and the column matrix of one group for the
// whole batch, [inputChannelsPerConvGroup * taps][batch * computed outputs], so each
// pass is one BLAS product per group.
class Im2Col {
public:
  explicit Im2Col(const ConvParams &params)
      : params_(params), geometry_(convGeometry(params)) {
    columns_.resize(rows() * cols());
  }

  const ConvParams &params() const { return params_; }
  const ConvGeometry &geometry() const { return geometry_; }
  std::size_t rows() const { return params_.inputChannelsPerConvGroup * geometry_.numTaps(); }
  // Batch element n's outputs are columns [n * computed outputs, (n + 1) * computed outputs).
  std::size_t cols() const { return params_.batchSize * geometry_.numComputed(); }
  const float *columns() const { return columns_.data(); }

  // Fills the columns from group `group` of `input` [batch][channels][input field].
  void build(const float *input, std::size_t group) {
    const std::size_t taps = geometry_.numTaps(), computed = geometry_.numComputed();
    const std::size_t field = geometry_.inputFieldElements, chans = params_.inputChannelsPerConvGroup;
    for (std::size_t n = 0; n < params_.batchSize; ++n)
      for (std::size_t c = 0; c < chans; ++c) {
        const float *channel = input + ((n * params_.numConvGroups + group) * chans + c) * field;
        const long *index = geometry_.tapInputIndex.data();
        for (std::size_t t = 0; t < taps; ++t, index += computed) {
          float *row = columns_.data() + (c * taps + t) * cols() + n * computed;
          for (std::size_t j = 0; j < computed; ++j) row[j] = index[j] < 0 ? 0.0f : channel[index[j]];
        }
      }
  }

private:
  ConvParams params_;
  ConvGeometry geometry_;
  std::vector<float> columns_;
};

// A row-major matrix at `data` whose rows are `ld` elements apart.
struct MatrixView {
  const float *data;
  std::size_t ld;
};

// C = A x B (or A x B^T) + beta * C for A [m,k] and C [m,n], all row-major.
void product(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b, bool transposeB,
             float beta, float *c, std::size_t ldc) {
  if (!m || !n) return;
  if (!k) {
    if (beta == 0.0f)
      for (std::size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  // The few-rows kernel where it takes the product, as matmul's products do (on a CPU with
  // AVX-512 it beat OpenBLAS's AVX2 kernels at every size), and the product is as wide as its
  // blocks of columns (the weight deltas of 16 channels a group took 3.7 ms there against
  // BLAS's 3.2); else BLAS.
  constexpr std::size_t kLeastColumns = 64;
  if (n >= kLeastColumns && (transposeB ? fewRowsTakesTransposedB(m, k) : fewRowsTake(m))) {
    float *bData = const_cast<float *>(b.data); // read only: StridedFloats also serves outputs
    const StridedFloats bFloats = transposeB ? StridedFloats{bData, 1, std::ptrdiff_t(b.ld)}
                                             : StridedFloats{bData, std::ptrdiff_t(b.ld), 1};
    return fewRowsGemm(m, n, k, 1.0f, {const_cast<float *>(a.data), std::ptrdiff_t(a.ld), 1}, {{0, n, bFloats}},
                       beta, {c, std::ptrdiff_t(ldc), 1}, true);
  }
  pooledSgemm(CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans, int(m), int(n), int(k), 1.0f, a.data,
              int(a.ld), b.data, int(b.ld), beta, c, int(ldc));
}

// C = A x B (or A x B^T), summed in float or, with half partials, as matmul's are:
// kHalfPartialsChunk products at a time, the running sum rounded to half after each.
void partialSums(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                 bool transposeB, bool halfPartials, float *c, std::size_t ldc) {
  if (!halfPartials) return product(m, n, k, a, b, transposeB, 0.0f, c, ldc);
  for (std::size_t begin = 0; begin == 0 || begin < k; begin += kHalfPartialsChunk) {
    // A's columns and B's rows (B^T's columns) from `begin` on.
    const MatrixView aPart{a.data + begin, a.ld};
    const MatrixView bPart{b.data + (transposeB ? begin : begin * b.ld), b.ld};
    product(m, n, std::min(kHalfPartialsChunk, k - begin), aPart, bPart, transposeB,
            begin == 0 ? 0.0f : 1.0f, c, ldc);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        c[i * ldc + j] = poplar::detail::halfToFloat(poplar::detail::floatToHalf(c[i * ldc + j]));
  }
}

class ForwardKernel {
public:
  ForwardKernel(const ConvParams &params, bool transposeAndFlipWeights, bool halfPartials)
      : im2col_(params), transposeAndFlip_(transposeAndFlipWeights), halfPartials_(halfPartials) {}

  void run(const Access &in, const Access &weights, const Access &out) {
    const ConvParams &p = im2col_.params();
    const ConvGeometry &g = im2col_.geometry();
    const std::size_t groups = p.numConvGroups, inChans = p.inputChannelsPerConvGroup,
                      outChans = p.outputChannelsPerConvGroup, taps = g.numTaps(),
                      kernel = g.kernelElements, computed = g.numComputed(),
                      outField = g.outputFieldElements, rows = im2col_.rows(),
                      cols = im2col_.cols();
    loadAsFloat(in, input_);
    loadAsFloat(weights, rawWeights_);
    // The weights as [group][out channel][in channel * taps], the columns' rows.
    weights_.resize(groups * outChans * rows);
    for (std::size_t grp = 0; grp < groups; ++grp)
      for (std::size_t co = 0; co < outChans; ++co)
        for (std::size_t ci = 0; ci < inChans; ++ci)
          for (std::size_t t = 0; t < taps; ++t) {
            const std::size_t source =
                transposeAndFlip_
                    ? ((grp * inChans + ci) * outChans + co) * kernel +
                          reversedIndex(g.tapKernelIndex[t], p.kernelShape)
                    : ((grp * outChans + co) * inChans + ci) * kernel + g.tapKernelIndex[t];
            weights_[(grp * outChans + co) * rows + ci * taps + t] = rawWeights_[source];
          }
    output_.assign(out.numElements, 0.0f);
    product_.resize(outChans * cols);
    for (std::size_t grp = 0; grp < groups; ++grp) {
      im2col_.build(input_.data(), grp);
      partialSums(outChans, cols, rows, {weights_.data() + grp * outChans * rows, rows},
                  {im2col_.columns(), cols}, false, halfPartials_, product_.data(), cols);
      for (std::size_t n = 0; n < p.batchSize; ++n) {
        float *result = output_.data() + (n * groups + grp) * outChans * outField;
        for (std::size_t co = 0; co < outChans; ++co) {
          const float *sums = product_.data() + co * cols + n * computed;
          for (std::size_t j = 0; j < computed; ++j)
            result[co * outField + g.computedOutputIndex[j]] = sums[j];
        }
      }
    }
    storeFromFloat(out, output_);
  }

private:
  Im2Col im2col_;
  bool transposeAndFlip_, halfPartials_;
  std::vector<float> input_, rawWeights_, weights_, product_, output_;
};

class WeightDeltasKernel {
public:
  WeightDeltasKernel(const ConvParams &params, bool halfPartials)
      : im2col_(params), halfPartials_(halfPartials) {}

  void run(const Access &zDeltas, const Access &activations, const Access &deltas) {
    const ConvParams &p = im2col_.params();
    const ConvGeometry &g = im2col_.geometry();
    const std::size_t groups = p.numConvGroups, inChans = p.inputChannelsPerConvGroup,
                      outChans = p.outputChannelsPerConvGroup, taps = g.numTaps(),
                      computed = g.numComputed(), outField = g.outputFieldElements,
                      rows = im2col_.rows(), cols = im2col_.cols();
    loadAsFloat(zDeltas, gradients_);
    loadAsFloat(activations, input_);
    groupGradients_.resize(outChans * cols);
    sums_.resize(rows * outChans);
    // Kernel elements no tap uses (truncated away) have no gradient.
    result_.assign(deltas.numElements, 0.0f);
    for (std::size_t grp = 0; grp < groups; ++grp) {
      im2col_.build(input_.data(), grp);
      // The group's output gradient at the computed outputs, [out channel][batch * computed].
      for (std::size_t n = 0; n < p.batchSize; ++n) {
        const float *gradient = gradients_.data() + (n * groups + grp) * outChans * outField;
        for (std::size_t co = 0; co < outChans; ++co)
          for (std::size_t j = 0; j < computed; ++j)
            groupGradients_[co * cols + n * computed + j] =
                gradient[co * outField + g.computedOutputIndex[j]];
      }
      // The deltas transposed, [in channel * taps][out channel]: the columns are the
      // untransposed operand, which OpenBLAS handles far faster than the other way round.
      partialSums(rows, outChans, cols, {im2col_.columns(), cols}, {groupGradients_.data(), cols},
                  true, halfPartials_, sums_.data(), outChans);
      for (std::size_t co = 0; co < outChans; ++co)
        for (std::size_t ci = 0; ci < inChans; ++ci)
          for (std::size_t t = 0; t < taps; ++t)
            result_[((grp * outChans + co) * inChans + ci) * g.kernelElements +
                    g.tapKernelIndex[t]] = sums_[(ci * taps + t) * outChans + co];
    }
    storeFromFloat(deltas, result_);
  }

private:
  Im2Col im2col_;
  bool halfPartials_;
  std::vector<float> gradients_, input_, groupGradients_, sums_, result_;
};

// The operands' element counts are the convolution's: `order` gives the operand
// positions of its input (activations), weights and output (gradients of the output).
void checkConvOperands(const char *kind, const std::vector<Access> &operands, const ConvParams &p,
                       std::array<std::size_t, 3> order) {
  // From the shapes alone: the geometry's tables are only built for parameters the
  // operands confirm (a damaged executable could otherwise ask for huge tables).
  const poplar::detail::KernelOperands checked(kind, operands, 3);
  for (std::size_t i = 0; i < 3; ++i) checked.typeIn(i, {poplar::FLOAT, poplar::HALF});
  checked.elements(order[0], checked.product({p.batchSize, p.numConvGroups, p.inputChannelsPerConvGroup,
                                              checked.product(p.inputFieldShape)}))
      .elements(order[1], checked.product({p.numConvGroups, p.outputChannelsPerConvGroup,
                                           p.inputChannelsPerConvGroup, checked.product(p.kernelShape)}))
      .elements(order[2], checked.product({p.batchSize, p.numConvGroups, p.outputChannelsPerConvGroup,
                                           checked.product(p.getOutputFieldShape())}));
}

poplar::detail::KernelCompile forwardCompile(poplar::detail::ByteReader &params) {
  const ConvParams conv = readConvParams(params);
  const bool transposeAndFlip = params.boolean(), halfPartials = params.boolean();
  return [conv, transposeAndFlip, halfPartials](const std::vector<Access> &operands) -> std::function<void()> {
    checkConvOperands("poplin::Convolution", operands, conv, {0, 1, 2});
    auto kernel = std::make_shared<ForwardKernel>(conv, transposeAndFlip, halfPartials);
    return [kernel, operands] { kernel->run(operands[0], operands[1], operands[2]); };
  };
}
const poplar::detail::KernelKind forwardKind("poplin::Convolution", forwardCompile);

poplar::detail::KernelCompile weightDeltasCompile(poplar::detail::ByteReader &params) {
  const ConvParams conv = readConvParams(params);
  const bool halfPartials = params.boolean();
  return [conv, halfPartials](const std::vector<Access> &operands) -> std::function<void()> {
    checkConvOperands("poplin::ConvolutionWeightDeltas", operands, conv, {1, 2, 0});
    auto kernel = std::make_shared<WeightDeltasKernel>(conv, halfPartials);
    return [kernel, operands] { kernel->run(operands[0], operands[1], operands[2]); };
  };
}
const poplar::detail::KernelKind weightDeltasKind("poplin::ConvolutionWeightDeltas",
                                                  weightDeltasCompile);

// Multiply-adds over the output elements, the cost model's unit for the AMP.
std::uint64_t multiplyAddsPerOutput(const ConvParams &params, const poplar::Tensor &result) {
  const ConvGeometry g = convGeometry(params);
  const std::uint64_t total = std::uint64_t(params.batchSize) * params.numConvGroups *
                              params.outputChannelsPerConvGroup * params.inputChannelsPerConvGroup *
                              g.numTaps() * g.numComputed();
  const std::uint64_t outputs = std::max<std::uint64_t>(result.numElements(), 1);
  return (total + outputs - 1) / outputs;
}

// `params` holds the ConvParams (writeConvParams) and then what the kind adds.
void execute(poplar::Graph &graph, poplar::program::Sequence &prog, const char *kind,
             const ConvParams &conv, std::vector<poplar::Tensor> reads, const poplar::Tensor &result,
             poplar::detail::ByteWriter &params, const poplar::DebugContext &debugContext) {
  auto kernel = poplar::detail::makeKernel(kind, std::move(reads), {result}, params.take());
  kernel.costShape = poplar::detail::CostShape::Convolution;
  kernel.multiplyAddsPerOutput = multiplyAddsPerOutput(conv, result);
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
}

} // namespace

void addConvolution(poplar::Graph &graph, poplar::program::Sequence &prog,
                    const ConvParams &params, const poplar::Tensor &in,
                    const poplar::Tensor &weights, bool transposeAndFlipWeights,
                    const poplar::Tensor &out, bool halfPartials,
                    const poplar::DebugContext &debugContext) {
  poplar::detail::ByteWriter bytes;
  writeConvParams(bytes, params);
  bytes.boolean(transposeAndFlipWeights).boolean(halfPartials);
  execute(graph, prog, "poplin::Convolution", params, {in, weights}, out, bytes, debugContext);
}

void addWeightDeltas(poplar::Graph &graph, poplar::program::Sequence &prog,
                     const ConvParams &params, const poplar::Tensor &zDeltas,
                     const poplar::Tensor &activations, const poplar::Tensor &deltas,
                     bool halfPartials, const poplar::DebugContext &debugContext) {
  poplar::detail::ByteWriter bytes;
  writeConvParams(bytes, params);
  bytes.boolean(halfPartials);
  execute(graph, prog, "poplin::ConvolutionWeightDeltas", params, {zDeltas, activations}, deltas,
          bytes, debugContext);
}

} // namespace poplin::detail
