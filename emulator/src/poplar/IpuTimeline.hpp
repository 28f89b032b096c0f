#pragma once
// Elapsed cycles on a several-IPU target: one clock per IPU of a replica.
//
// The profile's total cycles add up every step's estimate, as if the IPUs took turns.
// On the hardware each IPU runs its own control program and the IPUs wait for each
// other only in a step that involves several of them (an exchange between IPUs, a
// host transfer, a sync), so work on different IPUs overlaps. The timeline follows
// that rule, step by step in program order:
//
//  * a step on one IPU advances that IPU's clock by the step's cycles;
//  * a step on several IPUs first brings their clocks to the latest of them (they
//    wait for each other), then advances them all;
//  * a step on every IPU independently (a loop counter) advances each clock;
//  * a step the model gives no cycles leaves the clocks alone;
//  * a run starts with every IPU together (the host starts them).
//
// The elapsed cycles are the latest clock. CycleEstimate::span says which IPUs a step
// involves (CostModel.hpp); a one-IPU target's elapsed cycles are its total cycles.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "CostModel.hpp"

namespace poplar::detail {

class IpuTimeline {
public:
  // Keeps one clock per IPU when there are several (none for one IPU).
  void configure(unsigned ipus) { clocks_.assign(ipus > 1 ? ipus : 0, 0); }
  bool active() const { return !clocks_.empty(); }
  void reset() { std::fill(clocks_.begin(), clocks_.end(), 0); }
  void startRun() { bringTogether(); }

  void advance(const CycleEstimate &cost, std::uint64_t cycles) {
    if (cycles == 0) return;
    switch (cost.span) {
    case CycleEstimate::Span::EachIpu:
      for (std::uint64_t &c : clocks_) c += cycles;
      return;
    case CycleEstimate::Span::AllIpus:
      bringTogether();
      for (std::uint64_t &c : clocks_) c += cycles;
      return;
    case CycleEstimate::Span::Ipus:
      if (cost.ipus.size() == 1) {
        clocks_[cost.ipus[0]] += cycles;
        return;
      }
      std::uint64_t latest = 0;
      for (unsigned ipu : cost.ipus) latest = std::max(latest, clocks_[ipu]);
      for (unsigned ipu : cost.ipus) clocks_[ipu] = latest + cycles;
      return;
    }
  }

  std::uint64_t elapsed() const { return clocks_.empty() ? 0 : *std::max_element(clocks_.begin(), clocks_.end()); }

private:
  void bringTogether() {
    const std::uint64_t latest = elapsed();
    std::fill(clocks_.begin(), clocks_.end(), latest);
  }

  std::vector<std::uint64_t> clocks_;
};

} // namespace poplar::detail
