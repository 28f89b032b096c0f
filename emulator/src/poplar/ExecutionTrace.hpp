#pragma once
// What an engine keeps for libpva's report (ProfileReport.cpp) beyond its step counts:
// the program tree it compiled, and the order in which its steps ran when the options
// ask for an execution profile or lightweight profiling (Block programs).
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <regex.h>

#include <poplar/OptionFlags.hpp>

#include "DebugRecord.hpp"
#include "ProgramNode.hpp"

namespace poplar::detail {

// One program of the compiled tree, as libpva lists it (compilation.programs). A
// program used in several places is listed once.
struct ReportProgram {
  ProgramNode::Kind kind = ProgramNode::Kind::Sequence;
  std::string name;
  DebugRecord debug;
  bool block = false;      // a program::Block
  unsigned computeSet = 0; // Execute: its compute set
  std::vector<std::uint32_t> children;
};

// The kinds of the marker steps around a profiled Block (no work, no cycles): the
// report pairs them into the block's executions.
extern const char *const kBlockBeginKind;
extern const char *const kBlockEndKind;

struct ExecutionTrace {
  // At most this many steps are recorded (16 MiB); the report says when it stopped.
  static constexpr std::size_t kMaxSteps = std::size_t(1) << 22;
  struct Run {
    unsigned program;      // the engine program run
    std::size_t firstStep; // its first entry in `steps`
  };
  // Reads the options: an execution profile (autoReport.all or .outputExecutionProfile,
  // debug.instrument, debug.instrumentCompute) records the first
  // autoReport.executionProfileProgramRunCount runs (default 2); lightweight profiling
  // (profiler.blocks.filter, profiler.programs.filter) records every run.
  void configure(const OptionFlags &options);
  // Called by Engine::run: starts recording the run when it is one to record.
  void beginRun(unsigned program);
  void record(std::uint32_t step) {
    if (steps.size() == kMaxSteps) {
      truncated = true;
      recording = false;
      return;
    }
    steps.push_back(step);
  }

  bool recording = false; // the current run's steps are being recorded
  bool enabled = false;   // the options ask for a trace
  std::uint64_t runsToRecord = 0;
  bool truncated = false;
  std::vector<std::uint32_t> steps; // the steps in the order they ran
  std::vector<Run> runs;
};

// Builds the report's program list while the engine's compiler walks the program trees.
class ProgramRecorder {
public:
  // `computeSetNames`: an Execute program without a name of its own goes by its compute
  // set's (as the SDK's profile and its profiler filters name it).
  ProgramRecorder(std::vector<ReportProgram> &programs, const OptionFlags &options,
                  std::vector<std::string> computeSetNames);
  ~ProgramRecorder();
  ProgramRecorder(const ProgramRecorder &) = delete;
  ProgramRecorder &operator=(const ProgramRecorder &) = delete;

  // Enters `n`, a child of the program entered last and not yet left (or a root):
  // returns its index in the list.
  std::uint32_t enter(const ProgramNode &n);
  void leave();
  // The program entered last and not yet left.
  std::uint32_t current() const { return open_.back().id; }
  std::uint32_t idOf(const ProgramNode &n) const { return ids_.at(&n); }
  // Whether lightweight profiling times `n`: a Block whose name profiler.blocks.filter
  // matches, or any program whose name profiler.programs.filter matches (whole names,
  // POSIX extended regular expressions).
  bool profiledBlock(const ProgramNode &n) const;

private:
  const std::string &nameOf(const ProgramNode &n) const;

  struct Open {
    std::uint32_t id;
    bool firstVisit; // its children are being listed (not a second use of the program)
  };
  std::vector<ReportProgram> &programs_;
  std::vector<std::string> computeSetNames_;
  std::vector<Open> open_;
  std::unordered_map<const ProgramNode *, std::uint32_t> ids_;
  regex_t blocksFilter_, programsFilter_;
  bool hasBlocksFilter_ = false, hasProgramsFilter_ = false;
};

} // namespace poplar::detail
