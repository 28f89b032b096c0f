// popnn/CTCPlan.hpp: a plan is a value holding its Impl.
#include <popnn/CTCPlan.hpp>

#include "CTCPlanImpl.hpp"

namespace popnn {
namespace ctc {

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
           << ", numClasses " << i.numClasses;
}

} // namespace ctc
} // namespace popnn
