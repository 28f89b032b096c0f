#pragma once
// The liveness of an engine's variables, for libpva's report (ProfileReport.cpp): an
// estimate from the steps that read and write each variable, in the order the engine
// compiled them (libpva's livenessProgramSteps). The emulator itself gives every
// variable its own memory; this says which of them Poplar could overlap.
//
// A variable is always live when the host reads or writes it through a handle, when it
// has initial values, when steps of more than one engine program or of a function body
// (Call, function buffers) use it, or when the first step that uses it reads it (its
// value comes from before: the previous run, the host). Any other variable is live from
// the first step that uses it (writes it) to the last, widened to cover every loop body
// (Repeat, RepeatWhileTrue/False, Loop) its range partly overlaps, until none does.
#include <cstdint>
#include <vector>

namespace poplar::detail {

struct EngineState;

struct VariableLiveness {
  unsigned var = 0;
  bool alwaysLive = true;
  // Always live only because a host handle reads or writes it: without the handle it would
  // be live over [from, to] (pd.Session makes handles for every tensor it tracks).
  bool keptByHostHandles = false;
  std::uint32_t from = 0, to = 0; // not always live (or kept by handles): the first and last step live
};

// The variables (not constants) the engine uses, in id order.
std::vector<VariableLiveness> variableLiveness(const EngineState &s);

// Bytes per tile by liveness, for the profile's memory figures.
struct TileLiveness {
  std::vector<std::uint64_t> alwaysLive;         // variables live over the whole program
  std::vector<std::uint64_t> keptByHostHandles;  // of those, the ones only host handles keep
  std::vector<std::uint64_t> peakNotAlwaysLive;  // the most the other variables hold at one step
  std::vector<std::uint64_t> peakWithoutHandles; // the same were the handle-kept ones not kept
  // The first step (EngineState::steps) at each peak; -1 where the tile holds none.
  std::vector<std::int64_t> peakStep, peakStepWithoutHandles;
};
TileLiveness tileLiveness(const EngineState &s);

} // namespace poplar::detail
