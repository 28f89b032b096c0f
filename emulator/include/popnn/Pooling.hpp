#pragma once
// Pooling over the field dimensions of [batch][channels][field...] tensors, each
// channel on its own. Per field dimension: a kernel (window) size, a stride, and
// padding at each end; negative padding truncates the input instead. Padding
// never takes part: MAX takes the largest input element of the window, AVG the
// mean of the window's input elements. FLOAT and HALF (computed in float).
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <popnn/PoolingDef.hpp>

namespace popnn {
namespace pooling {

struct PoolParams {
  PoolingType poolingType;
  std::vector<std::size_t> inputFieldShape;
  std::vector<std::size_t> kernelShape;
  std::vector<unsigned> stride;
  std::vector<int> inputTruncationOrPaddingLower;
  std::vector<int> inputTruncationOrPaddingUpper;
  std::size_t numChannels;
  std::size_t batchSize;
  poplar::Type dType;

  PoolParams(PoolingType poolingType, std::vector<std::size_t> inputFieldShape,
             std::vector<std::size_t> kernelShape, std::vector<unsigned> stride,
             std::vector<int> inputTruncationOrPaddingLower,
             std::vector<int> inputTruncationOrPaddingUpper, std::size_t numChannels,
             std::size_t batchSize, poplar::Type dType)
      : poolingType(poolingType), inputFieldShape(std::move(inputFieldShape)),
        kernelShape(std::move(kernelShape)), stride(std::move(stride)),
        inputTruncationOrPaddingLower(std::move(inputTruncationOrPaddingLower)),
        inputTruncationOrPaddingUpper(std::move(inputTruncationOrPaddingUpper)),
        numChannels(numChannels), batchSize(batchSize), dType(dType) {}

  std::size_t getNumFieldDims() const { return inputFieldShape.size(); }
  std::vector<std::size_t> getOutputFieldShape() const;
};

std::ostream &operator<<(std::ostream &o, const PoolParams &params);

const char *asString(const PoolingType &method);

std::vector<std::size_t> getOutputFieldShape(const PoolParams &params);

// One operation per window element (MAX: a comparison; AVG: also the division).
uint64_t getFwdFlops(const PoolParams &params);
uint64_t getBwdFlops(const PoolParams &params);

// The FLOPs over the target's vector rate on every tile.
double getFwdPerfectCycleCount(const poplar::Graph &graph, const PoolParams &params);
double getBwdPerfectCycleCount(const poplar::Graph &graph, const PoolParams &params);

// The pooled [batch][channels][output field...] of `in` [batch][channels][field...].
// Options: poolUseIntrospectiveMapping ("true" or "false"; no effect on results).
poplar::Tensor pool(poplar::Graph &graph, const PoolParams &params, const poplar::Tensor &in,
                    poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext = {},
                    const poplar::OptionFlags &options = {});

// The gradient with respect to the input, for MAX, AVG or SUM. MAX sends each
// output's gradient to the window's elements equal to the pooled value (each
// gets all of it, or an equal share when useScaledGradient).
poplar::Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &params,
                                 const poplar::Tensor &in, const poplar::Tensor &pooled,
                                 const poplar::Tensor &pooledGradient, bool useScaledGradient,
                                 poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext = {},
                                 const poplar::OptionFlags &options = {});
// AVG and SUM only: the gradient needs no forward tensors. fwdChansPerGroup only
// guides the layout of the result.
poplar::Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &params,
                                 const unsigned fwdChansPerGroup,
                                 const poplar::Tensor &pooledGradient,
                                 poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext = {},
                                 const poplar::OptionFlags &options = {});

} // namespace pooling
} // namespace popnn
