#pragma once
// Emulator only (the SDK reports through libpva): what an Engine recorded about
// its programs and memory. Every cycle figure is an ESTIMATE from the cost model
// documented in src/poplar/CostModel.hpp; executions and host times are exact.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <poplar/Target.hpp>

namespace poplar {

class Engine;

struct ProfileStep {
  std::string kind; // Execute, Copy, StreamCopy(...), Repeat, If, Switch, RepeatWhileTrue, Call, ...
  std::string name; // the program's debug name (popdsl: the user's source line)
  std::uint64_t executions = 0;
  double hostSeconds = 0; // measured only with debug.instrument or autoReport.all
  // Estimated cycles of one execution, by BSP phase, and the bytes it exchanges.
  std::uint64_t syncCycles = 0, exchangeCycles = 0, computeCycles = 0;
  std::uint64_t exchangeBytes = 0;
  std::uint64_t ipuLinkBytes = 0; // the part of exchangeBytes between IPUs (or replicas)
  std::uint64_t cyclesPerExecution() const { return syncCycles + exchangeCycles + computeCycles; }
  std::uint64_t totalCycles() const { return executions * cyclesPerExecution(); }
};

struct ProfileData {
  Target target;
  unsigned numVariables = 0, numConstants = 0; // those the programs or host handles use
  unsigned numComputeSets = 0, numPrograms = 0;
  std::vector<std::size_t> variableBytesPerTile, constantBytesPerTile;
  // Variable bytes per tile by liveness (Liveness.hpp): always live, the part of those only
  // host handles keep live, the peak of the rest over the program, and that peak were the
  // handle-kept variables freed when unused.
  std::vector<std::uint64_t> alwaysLiveBytesPerTile, keptByHostHandlesBytesPerTile, peakNotAlwaysLiveBytesPerTile,
      peakWithoutHandlesBytesPerTile;
  // The step (an index of `steps`) of each of those two peaks; -1 where a tile holds none.
  std::vector<std::int64_t> peakStepPerTile, peakStepWithoutHandlesPerTile;
  // (debug name, bytes) of the variables (not constants) the programs or host handles use, one entry
  // per name (variables sharing a name add up), in creation order
  std::vector<std::pair<std::string, std::size_t>> variableBytes;
  std::vector<ProfileStep> steps; // in program order
  std::uint64_t runs = 0;
  // Estimated cycles from the first profiled run's start to the last one's end with the
  // IPUs of a replica running in parallel (replica 0's; src/poplar/IpuTimeline.hpp); on
  // one IPU, totalCycles().
  std::uint64_t elapsedCycles = 0;
  bool hostTimed = false;
  // The replicas the engine ran, [firstReplica, firstReplica + numReplicas) of the graph's
  // totalReplicas, as instance `instance` of `instances` (0 of 1 in a one-process run).
  unsigned firstReplica = 0, numReplicas = 1, totalReplicas = 1, instance = 0, instances = 1;
  std::uint64_t totalCycles() const;
};

// Writes the engine's autoReport files into `directory` now: profile_summary.txt
// (printProfileSummary), profile.json (this data; the schema of popdsl's
// Profile.to_json) and profile.pop (libpva's report, detail::profileReportText). The engine then does not write them again when it is destroyed,
// which it otherwise does when autoReport.all (or autoReport.outputGraphProfile /
// outputExecutionProfile) is set. Returns the paths written.
std::vector<std::string> writeProfileReport(const Engine &engine, const std::string &directory);

namespace detail {
// The "format" tag of the emulator's profile.pop, which libpva checks.
extern const char *const kReportFormat;
// Its "formatVersion": libpva reads this version only.
extern const unsigned kReportFormatVersion;
// libpva's report of the engine, as profile.pop holds it (ProfileReport.cpp).
std::string profileReportText(const Engine &engine);
} // namespace detail

} // namespace poplar
