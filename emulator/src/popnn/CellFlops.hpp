#pragma once
// The flop counts of the gated cells (LSTM, GRU): the multiply-adds of their matrix
// products, two flops each. Each pass multiplies the gates' pre-activations
// [steps * batch][gates * output] with the recurrent weights [output][gates * output],
// and with the input weights [input][gates * output] when `withInputProduct`.
#include <cstdint>

#include <popnn/Rnn.hpp>
#include <poputil/exceptions.hpp>

namespace popnn {

inline uint64_t gatedCellFlops(const rnn::RnnParams &rnn, uint64_t gates, bool withInputProduct) {
  if (rnn.layerSizes.size() != 2)
    throw poputil::poplibs_error("the flops of a cell need layerSizes {inputSize, outputSize}");
  const uint64_t rows = uint64_t(rnn.maxTimeSteps) * rnn.batchSize, input = rnn.layerSizes[0],
                 output = rnn.layerSizes[1];
  return 2 * rows * gates * output * ((withInputProduct ? input : 0) + output);
}

} // namespace popnn
