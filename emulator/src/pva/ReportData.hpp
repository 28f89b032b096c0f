#pragma once
// What a pva::Report holds, read from the emulator's report text (ProfileReport.cpp in
// libpoplar writes it; docs/profiling_pva.rst describes it).
#include <pva/pva.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pva::detail {

// A program step of the compiled engine; ExecutionSteps point at these.
struct StepData {
  std::shared_ptr<Program> program;
  std::uint64_t sync = 0, exchange = 0, compute = 0;
  std::vector<std::uint64_t> cyclesByTile; // empty: the step has no per-tile work
  std::vector<IpuExecution> ipus;
  std::vector<ComputeSetExecution> computeSets;
  bool blockMarker = false; // the start or end of a timed block: not an execution step
  std::uint64_t cycles() const { return sync + exchange + compute; }
};

// A not-always-live variable: live from report step `first` to `last`; its bytes by tile.
struct LiveRange {
  Variable variable;
  std::uint64_t first = 0, last = 0;
  std::vector<std::pair<unsigned, std::uint64_t>> bytesByTile;
};

struct ReportData {
  PoplarVersion poplarVersion;
  Compilation compilation;
  Execution execution;
  std::vector<StepData> steps;
  std::vector<LiveRange> liveRanges;

  // The not-always-live variables live in report step `step`: their parts on the tiles
  // [firstTile, endTile), those with any there.
  NotAlwaysLiveMemory notAlwaysLive(std::uint64_t step, unsigned firstTile, unsigned endTile) const;

  // The report in `text`, with its execution view unless `withExecution` is false;
  // errors name `source` (a file, or Engine::getReport).
  static Report fromText(const std::string &text, const std::string &source, bool withExecution = true);

  // Fills the views from the parsed report (Report.cpp's JSON values).
  template <class Json> void read(const Json &root, bool withExecution);
};

} // namespace pva::detail
