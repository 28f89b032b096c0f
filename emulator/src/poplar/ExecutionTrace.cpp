#include "ExecutionTrace.hpp"

#include <poplar/exceptions.hpp>

#include <string>
#include <utility>

namespace poplar::detail {

const char *const kBlockBeginKind = "BlockBegin";
const char *const kBlockEndKind = "BlockEnd";

namespace {

bool isTrue(const OptionFlags &options, const char *key) {
  const auto it = options.find(key);
  return it != options.end() && it->second == "true";
}

const std::string *option(const OptionFlags &options, const char *key) {
  const auto it = options.find(key);
  return it == options.end() ? nullptr : &it->second;
}

// `pattern` matching whole names (the option checks already accepted it as a regex).
bool compileWholeName(regex_t &compiled, const std::string *pattern, const char *key) {
  if (!pattern) return false;
  if (regcomp(&compiled, ("^(" + *pattern + ")$").c_str(), REG_EXTENDED | REG_NOSUB) != 0)
    throw invalid_option(std::string("Invalid value '") + *pattern + "' for option '" + key +
                         "': expected a regular expression");
  return true;
}

} // namespace

void ExecutionTrace::configure(const OptionFlags &options) {
  const std::string *executionProfile = option(options, "autoReport.outputExecutionProfile");
  const bool profile = (executionProfile ? *executionProfile == "true" : isTrue(options, "autoReport.all")) ||
                       isTrue(options, "debug.instrument") || isTrue(options, "debug.instrumentCompute");
  const bool lightweight = option(options, "profiler.blocks.filter") || option(options, "profiler.programs.filter");
  enabled = profile || lightweight;
  runsToRecord = 0;
  if (lightweight) runsToRecord = ~std::uint64_t(0);
  else if (profile) {
    const std::string *count = option(options, "autoReport.executionProfileProgramRunCount");
    runsToRecord = count ? std::stoull(*count, nullptr, 0) : 2;
  }
  steps.clear();
  runs.clear();
  truncated = false;
  recording = false;
}

void ExecutionTrace::beginRun(unsigned program) {
  recording = enabled && runsToRecord > 0 && !truncated;
  if (!recording) return;
  --runsToRecord;
  runs.push_back({program, steps.size()});
}

ProgramRecorder::ProgramRecorder(std::vector<ReportProgram> &programs, const OptionFlags &options,
                                 std::vector<std::string> computeSetNames)
    : programs_(programs), computeSetNames_(std::move(computeSetNames)) {
  hasBlocksFilter_ = compileWholeName(blocksFilter_, option(options, "profiler.blocks.filter"), "profiler.blocks.filter");
  hasProgramsFilter_ =
      compileWholeName(programsFilter_, option(options, "profiler.programs.filter"), "profiler.programs.filter");
}

ProgramRecorder::~ProgramRecorder() {
  if (hasBlocksFilter_) regfree(&blocksFilter_);
  if (hasProgramsFilter_) regfree(&programsFilter_);
}

std::uint32_t ProgramRecorder::enter(const ProgramNode &n) {
  const auto found = ids_.emplace(&n, static_cast<std::uint32_t>(programs_.size()));
  const std::uint32_t id = found.first->second;
  if (found.second) {
    ReportProgram p;
    p.kind = n.kind;
    p.name = nameOf(n);
    p.debug = n.debug;
    p.block = n.block;
    p.computeSet = n.kind == ProgramNode::Kind::Execute ? n.id : 0;
    programs_.push_back(std::move(p));
  }
  if (!open_.empty() && open_.back().firstVisit) programs_[open_.back().id].children.push_back(id);
  open_.push_back({id, found.second});
  return id;
}

void ProgramRecorder::leave() { open_.pop_back(); }

const std::string &ProgramRecorder::nameOf(const ProgramNode &n) const {
  if (n.kind == ProgramNode::Kind::Execute && n.name.empty() && n.id < computeSetNames_.size())
    return computeSetNames_[n.id];
  return n.name;
}

bool ProgramRecorder::profiledBlock(const ProgramNode &n) const {
  const std::string &name = nameOf(n);
  const auto matches = [&](const regex_t &filter) { return regexec(&filter, name.c_str(), 0, nullptr, 0) == 0; };
  return (n.block && hasBlocksFilter_ && matches(blocksFilter_)) || (hasProgramsFilter_ && matches(programsFilter_));
}

} // namespace poplar::detail
