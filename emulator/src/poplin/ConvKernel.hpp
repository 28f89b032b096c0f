#pragma once
// The compute sets of a convolution's passes: im2col of the input into a column
// matrix per group and batch element, then one BLAS product with the weights
// (forward) or with the output gradient (weight deltas). Operands are checked
// by the caller. With halfPartials (HALF operands only) the sums round as
// matmul's half partials do (Gemm.hpp).
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/ConvParams.hpp>

namespace poplin::detail {

// out = in * weights; weights swapped in channels and reversed in the kernel
// dimensions when transposeAndFlipWeights.
void addConvolution(poplar::Graph &graph, poplar::program::Sequence &prog,
                    const ConvParams &params, const poplar::Tensor &in,
                    const poplar::Tensor &weights, bool transposeAndFlipWeights,
                    const poplar::Tensor &out, bool halfPartials,
                    const poplar::DebugContext &debugContext);

// deltas = the gradient with respect to the weights.
void addWeightDeltas(poplar::Graph &graph, poplar::program::Sequence &prog,
                     const ConvParams &params, const poplar::Tensor &zDeltas,
                     const poplar::Tensor &activations, const poplar::Tensor &deltas,
                     bool halfPartials, const poplar::DebugContext &debugContext);

} // namespace poplin::detail
