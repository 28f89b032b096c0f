#pragma once
// What a CTC plan holds: the sizes and types plan() was given (a default plan holds zeros
// and fits no operation).
#include <popnn/CTCPlan.hpp>

#include <poplar/OptionFlags.hpp>
#include <poplar/Type.hpp>

#include <memory>
#include <tuple>

namespace popnn {
namespace ctc {

class Plan::Impl {
public:
  poplar::Type inType, outType, partialsType;
  unsigned batchSize = 0, maxTime = 0, maxLabelLength = 0, numClasses = 0;
  unsigned beamwidth = 0; // the decoder's; 0 in a loss plan

  // A plan holding the options' partialsType ("float", the default, or "half"), with
  // availableMemoryProportion checked to be in [0, 1].
  static std::unique_ptr<Impl> fromOptions(const poplar::OptionFlags &options);

  auto key() const {
    return std::make_tuple(inType, outType, partialsType, batchSize, maxTime, maxLabelLength, numClasses,
                           beamwidth);
  }
};

} // namespace ctc
} // namespace popnn
