#pragma once
// What a CTC plan holds: the sizes and types plan() was given (a default plan holds zeros
// and fits no operation).
#include <popnn/CTCPlan.hpp>

#include <poplar/Type.hpp>

#include <tuple>

namespace popnn {
namespace ctc {

class Plan::Impl {
public:
  poplar::Type inType, outType, partialsType;
  unsigned batchSize = 0, maxTime = 0, maxLabelLength = 0, numClasses = 0;

  auto key() const {
    return std::make_tuple(inType, outType, partialsType, batchSize, maxTime, maxLabelLength, numClasses);
  }
};

} // namespace ctc
} // namespace popnn
