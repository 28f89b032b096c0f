// popnn/CTCPlan.hpp: a plan is a value holding its Impl.
#include <popnn/CTCPlan.hpp>

#include <poplar/exceptions.hpp>

#include <cstdlib>
#include <string>

#include "CTCPlanImpl.hpp"

namespace popnn {
namespace ctc {

std::unique_ptr<Plan::Impl> Plan::Impl::fromOptions(const poplar::OptionFlags &options) {
  auto impl = std::make_unique<Impl>();
  impl->partialsType = poplar::FLOAT;
  for (const auto &option : options) {
    if (option.first == "partialsType") {
      if (option.second != "float" && option.second != "half")
        throw poplar::invalid_option("Invalid value '" + option.second +
                                     "' for option 'partialsType': expected float or half");
      impl->partialsType = option.second == "half" ? poplar::HALF : poplar::FLOAT;
    } else if (option.first == "availableMemoryProportion") {
      char *end = nullptr;
      const double proportion = std::strtod(option.second.c_str(), &end);
      if (option.second.empty() || *end != '\0' || !(proportion >= 0.0 && proportion <= 1.0))
        throw poplar::invalid_option("Invalid value '" + option.second +
                                     "' for option 'availableMemoryProportion': expected a number in [0, 1]");
    } else {
      throw poplar::invalid_option("Unrecognised option '" + option.first + "'");
    }
  }
  return impl;
}

Plan::Plan() : impl(std::make_unique<Impl>()) {}
Plan::~Plan() = default;
Plan::Plan(const Plan &other) : impl(std::make_unique<Impl>(*other.impl)) {}
Plan::Plan(Plan &&other) : impl(std::make_unique<Impl>(*other.impl)) {}
Plan &Plan::operator=(const Plan &other) {
  *impl = *other.impl;
  return *this;
}
Plan &Plan::operator=(Plan &&other) {
  *impl = *other.impl;
  return *this;
}
Plan::Plan(std::unique_ptr<Impl> impl) : impl(impl ? std::move(impl) : std::make_unique<Impl>()) {}

bool operator<(const Plan &a, const Plan &b) { return a.impl->key() < b.impl->key(); }
bool operator==(const Plan &a, const Plan &b) { return a.impl->key() == b.impl->key(); }
bool operator!=(const Plan &a, const Plan &b) { return !(a == b); }

std::ostream &operator<<(std::ostream &o, const Plan &p) {
  const Plan::Impl &i = *p.impl;
  return o << "CTC plan: inType " << i.inType << ", outType " << i.outType << ", partialsType " << i.partialsType
           << ", batchSize " << i.batchSize << ", maxTime " << i.maxTime << ", maxLabelLength " << i.maxLabelLength
           << ", numClasses " << i.numClasses
           << (i.beamwidth ? ", beamwidth " + std::to_string(i.beamwidth) : std::string());
}

} // namespace ctc
} // namespace popnn
