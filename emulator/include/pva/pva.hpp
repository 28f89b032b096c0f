#ifndef PVA_PVA_HPP
#define PVA_PVA_HPP
// libpva, the PopVision analysis library: reads a profile report (profile.pop) of a
// compiled and run engine, as the SDK's libpva does, for the reports the emulator
// writes (autoReport.*, Engine::getReport). Link with -lpva. Every cycle figure is an
// estimate of the emulator's cost model; memory figures are the tile mapping's bytes.
// docs/profiling_pva.rst lists what is covered and what is not.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
// Not used here: the SDK's lightweight-profiling examples print with std::cout and
// std::setw after including only Poplar headers and this one.
#include <iomanip>
#include <iostream>

namespace pva {

namespace detail {
struct ReportData;
struct StepData;
} // namespace detail

// What openReport throws for a file it cannot read: the message names the file and says why.
class Exception : public std::runtime_error {
public:
  explicit Exception(const std::string &what) : std::runtime_error(what) {}
};

class PoplarVersion {
public:
  unsigned major() const { return major_; }
  unsigned minor() const { return minor_; }
  unsigned point() const { return point_; }
  // "3.3.0 (popdsl emulator)"
  const std::string &string() const { return string_; }

private:
  friend struct detail::ReportData;
  unsigned major_ = 0, minor_ = 0, point_ = 0;
  std::string string_;
};

class Target {
public:
  enum class Type { IPU, IPUModel, CPU };
  Type type() const { return type_; }
  const std::string &architecture() const { return architecture_; }
  unsigned numIPUs() const { return numIPUs_; }
  unsigned tilesPerIpu() const { return tilesPerIpu_; }
  unsigned numTiles() const { return numIPUs_ * tilesPerIpu_; }
  std::uint64_t bytesPerTile() const { return bytesPerTile_; }
  std::uint64_t bytesPerIPU() const { return bytesPerTile_ * tilesPerIpu_; }
  double clockFrequency() const { return clockFrequency_; }
  unsigned numReplicas() const { return numReplicas_; }
  unsigned numWorkerContexts() const { return numWorkerContexts_; }

private:
  friend struct detail::ReportData;
  Type type_ = Type::IPUModel;
  std::string architecture_;
  unsigned numIPUs_ = 0, tilesPerIpu_ = 0, numReplicas_ = 1, numWorkerContexts_ = 0;
  std::uint64_t bytesPerTile_ = 0;
  double clockFrequency_ = 0;
};

class Graph {
public:
  std::uint64_t numComputeSets() const { return numComputeSets_; }
  std::uint64_t numVertices() const { return numVertices_; }
  std::uint64_t numVariables() const { return numVariables_; }

private:
  friend struct detail::ReportData;
  std::uint64_t numComputeSets_ = 0, numVertices_ = 0, numVariables_ = 0;
};

class VertexType {
public:
  const std::string &name() const { return name_; }

private:
  friend struct detail::ReportData;
  std::string name_;
};

// The vertices of one type in a compute set.
class Vertex {
public:
  const VertexType &type() const { return type_; }
  std::uint64_t count() const { return count_; }

private:
  friend struct detail::ReportData;
  VertexType type_;
  std::uint64_t count_ = 0;
};

class ComputeSet {
public:
  const std::string &name() const { return name_; }
  const std::vector<Vertex> &vertices() const { return vertices_; }
  // Each tile's estimated compute cycles for one execution (empty if no program runs it).
  const std::vector<std::uint64_t> &estimatedCyclesByTile() const { return estimatedCyclesByTile_; }

private:
  friend struct detail::ReportData;
  std::string name_;
  std::vector<Vertex> vertices_;
  std::vector<std::uint64_t> estimatedCyclesByTile_;
};

// A compute set that an execution step ran, with its tiles' cycles in that step (on the
// emulator, the estimate: both lists are the same).
class ComputeSetExecution {
public:
  const std::string &name() const { return computeSet_->name(); }
  const ComputeSet &computeSet() const { return *computeSet_; }
  const std::vector<std::uint64_t> &cyclesByTile() const { return computeSet_->estimatedCyclesByTile(); }
  const std::vector<std::uint64_t> &estimatedCyclesByTile() const { return computeSet_->estimatedCyclesByTile(); }

private:
  friend struct detail::ReportData;
  const ComputeSet *computeSet_ = nullptr;
};

// Where a DebugContext was made: given by C++ callers (SourceLocation::Current()); not
// valid for graphs built from Python, whose popdsl names carry the user's file and line.
class SourceLocation {
public:
  const std::string &fileName() const { return fileName_; }
  const std::string &functionName() const { return functionName_; }
  unsigned lineNumber() const { return lineNumber_; }
  unsigned columnNumber() const { return 0; }
  bool isValid() const { return valid_; }

private:
  friend struct detail::ReportData;
  std::string fileName_, functionName_;
  unsigned lineNumber_ = 0;
  bool valid_ = false;
};

// A DebugContext that programs and variables were made with: its own name, its path
// ("parent/.../name"), parent (null at the top), children and source location.
class DebugContext {
public:
  const std::string &name() const { return name_; }
  const std::string &path() const { return path_; }
  const SourceLocation &location() const { return location_; }
  const DebugContext *parent() const { return parent_; }
  const std::vector<const DebugContext *> &children() const { return children_; }

private:
  friend struct detail::ReportData;
  std::string name_, path_;
  SourceLocation location_;
  const DebugContext *parent_ = nullptr;
  std::vector<const DebugContext *> children_;
};

// A variable of the graph: its bytes (on one tile, in a liveness view of a tile), and
// whether it is live through every program step (the emulator's estimate).
class Variable {
public:
  const std::string &name() const { return name_; }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t size() const { return bytes_; }
  bool alwaysLive() const { return alwaysLive_; }
  const std::vector<const DebugContext *> &debugContexts() const { return debugContexts_; }

private:
  friend struct detail::ReportData;
  std::string name_;
  std::uint64_t bytes_ = 0;
  bool alwaysLive_ = true;
  std::vector<const DebugContext *> debugContexts_;
};

class ProgramVisitor;

class Program {
public:
  enum class Type {
    Unknown,
    Sequence,
    Block,
    Repeat,
    RepeatWhileTrue,
    RepeatWhileFalse,
    If,
    Switch,
    Call,
    OnTileExecute,
    DoExchange,
    GlobalExchange,
    StreamCopyBegin,
    StreamCopyMid,
    StreamCopyEnd,
    Sync,
  };
  virtual ~Program() = default;
  Type type() const { return type_; }
  const std::string &name() const { return name_; }
  const std::vector<std::shared_ptr<Program>> &children() const { return children_; }
  // The program's index in Compilation::programs().
  std::size_t _id() const { return id_; }
  // Calls the visitor's visit function for this program's type.
  void accept(ProgramVisitor &visitor) const;
  // The DebugContext it was made with (none when it had no name).
  const std::vector<const DebugContext *> &debugContexts() const { return debugContexts_; }

private:
  friend struct detail::ReportData;
  Type type_ = Type::Unknown;
  std::string name_;
  std::vector<const DebugContext *> debugContexts_;
  std::size_t id_ = 0;
  std::vector<std::shared_ptr<Program>> children_;
};

class OnTileExecuteProgram : public Program {
public:
  const ComputeSet &computeSet() const { return *computeSet_; }
  // The variables its vertices read and write are not recorded: empty.
  std::vector<Variable> vars() const { return {}; }

private:
  friend struct detail::ReportData;
  const ComputeSet *computeSet_ = nullptr;
};

class DoExchangeProgram : public Program {
public:
  // The variables it moves are not recorded: empty.
  std::vector<Variable> vars() const { return {}; }
};

// The visit function of each program type does nothing unless overridden.
class ProgramVisitor {
public:
  virtual ~ProgramVisitor() = default;
  virtual void visitProgram(const Program &) {}
  virtual void visitSequence(const Program &p) { visitProgram(p); }
  virtual void visitBlock(const Program &p) { visitProgram(p); }
  virtual void visitRepeat(const Program &p) { visitProgram(p); }
  virtual void visitRepeatWhileTrue(const Program &p) { visitProgram(p); }
  virtual void visitRepeatWhileFalse(const Program &p) { visitProgram(p); }
  virtual void visitIf(const Program &p) { visitProgram(p); }
  virtual void visitSwitch(const Program &p) { visitProgram(p); }
  virtual void visitCall(const Program &p) { visitProgram(p); }
  virtual void visitOnTileExecute(const OnTileExecuteProgram &p) { visitProgram(p); }
  virtual void visitDoExchange(const DoExchangeProgram &p) { visitProgram(p); }
  virtual void visitGlobalExchange(const Program &p) { visitProgram(p); }
  virtual void visitStreamCopyBegin(const Program &p) { visitProgram(p); }
  virtual void visitStreamCopyMid(const Program &p) { visitProgram(p); }
  virtual void visitStreamCopyEnd(const Program &p) { visitProgram(p); }
  virtual void visitSync(const Program &p) { visitProgram(p); }
  virtual void visitUnknown(const Program &p) { visitProgram(p); }
};

class MemoryTotal {
public:
  MemoryTotal() = default;
  MemoryTotal(std::uint64_t includingGaps, std::uint64_t excludingGaps)
      : includingGaps_(includingGaps), excludingGaps_(excludingGaps) {}
  std::uint64_t includingGaps() const { return includingGaps_; }
  std::uint64_t excludingGaps() const { return excludingGaps_; }

private:
  std::uint64_t includingGaps_ = 0, excludingGaps_ = 0;
};

// A category's bytes on a tile (no gaps: both totals are the bytes).
class MemoryCategory {
public:
  MemoryCategory() = default;
  explicit MemoryCategory(std::uint64_t bytes) : total_(bytes, bytes) {}
  const MemoryTotal &total() const { return total_; }

private:
  MemoryTotal total_;
};

// A tile's bytes by what they hold: variables and constants as mapped; code, vertex
// state and stacks as the emulator estimates them (docs/profiling_pva.rst); the
// categories it has none of (vertexFieldData, vectorListDescriptor) are 0.
class MemoryCategories {
public:
  const MemoryCategory &variable() const { return variable_; }
  const MemoryCategory &constant() const { return constant_; }
  const MemoryCategory &vertexCode() const { return vertexCode_; }
  const MemoryCategory &vertexInstanceState() const { return vertexInstanceState_; }
  const MemoryCategory &vertexFieldData() const { return none_; }
  const MemoryCategory &vectorListDescriptor() const { return none_; }
  const MemoryCategory &controlCode() const { return controlCode_; }
  const MemoryCategory &internalExchangeCode() const { return internalExchangeCode_; }
  const MemoryCategory &hostExchangeCode() const { return hostExchangeCode_; }
  const MemoryCategory &stack() const { return stack_; }

private:
  friend struct detail::ReportData;
  MemoryCategory variable_, constant_, vertexCode_, vertexInstanceState_, controlCode_, internalExchangeCode_,
      hostExchangeCode_, stack_, none_;
};

// A tile's memory: its categories add up to the total; the bytes of its not-always-live
// variables are the part not always live (the emulator overlaps none of them).
class TileMemory {
public:
  const MemoryTotal &total() const { return total_; }
  const MemoryCategories &category() const { return category_; }
  std::uint64_t alwaysLiveBytes() const { return total_.excludingGaps() - notAlwaysLiveBytes_; }
  std::uint64_t notAlwaysLiveBytes() const { return notAlwaysLiveBytes_; }

private:
  friend struct detail::ReportData;
  MemoryTotal total_;
  MemoryCategories category_;
  std::uint64_t notAlwaysLiveBytes_ = 0;
};

class Tile {
public:
  unsigned number() const { return number_; }
  unsigned ipu() const { return ipu_; }
  const TileMemory &memory() const { return memory_; }

private:
  friend struct detail::ReportData;
  unsigned number_ = 0, ipu_ = 0;
  TileMemory memory_;
};

class Ipu {
public:
  const std::vector<Tile> &tiles() const { return tiles_; }

private:
  friend struct detail::ReportData;
  std::vector<Tile> tiles_;
};

// The not-always-live variables live in a step (their parts on a tile or an IPU, when
// asked for one) and their bytes.
class NotAlwaysLiveMemory {
public:
  std::uint64_t bytes() const { return bytes_; }
  const std::vector<Variable> &variables() const { return variables_; }

private:
  friend struct detail::ReportData;
  std::uint64_t bytes_ = 0;
  std::vector<Variable> variables_;
};

// A program step of the compiled engine, in compiled order, with the variables live in it.
class LivenessProgramStep {
public:
  const std::shared_ptr<Program> &program() const { return program_; }
  NotAlwaysLiveMemory notAlwaysLiveMemory() const;
  NotAlwaysLiveMemory notAlwaysLiveMemoryForTile(unsigned tile) const;
  NotAlwaysLiveMemory notAlwaysLiveMemoryForIpu(unsigned ipu) const;

private:
  friend struct detail::ReportData;
  std::shared_ptr<Program> program_;
  const detail::ReportData *data_ = nullptr;
  std::size_t step_ = 0; // the report's step
};

class Compilation {
public:
  const Target &target() const { return target_; }
  const Graph &graph() const { return graph_; }
  const std::vector<std::shared_ptr<Program>> &programs() const { return programs_; }
  const std::vector<ComputeSet> &computeSets() const { return computeSets_; }
  const std::vector<Tile> &tiles() const { return tiles_; }
  const std::vector<Ipu> &ipus() const { return ipus_; }
  const std::vector<Variable> &alwaysLiveVariables() const { return alwaysLive_; }
  const std::vector<Variable> &notAlwaysLiveVariables() const { return notAlwaysLive_; }
  const std::vector<LivenessProgramStep> &livenessProgramSteps() const { return livenessSteps_; }
  const std::vector<DebugContext> &debugContexts() const { return debugContexts_; }

private:
  friend struct detail::ReportData;
  Target target_;
  Graph graph_;
  std::vector<std::shared_ptr<Program>> programs_;
  std::vector<ComputeSet> computeSets_;
  std::vector<Tile> tiles_;
  std::vector<Ipu> ipus_;
  std::vector<Variable> alwaysLive_, notAlwaysLive_;
  std::vector<LivenessProgramStep> livenessSteps_;
  std::vector<DebugContext> debugContexts_;
};

// One IPU's part of an execution step: all IPUs take the step's cycles (they run in
// lockstep); cyclesByTile are its tiles' compute cycles, activeCycles the most of them
// (its busiest tile's) and activeTiles the number of its tiles that compute.
class IpuExecution {
public:
  unsigned ipu() const { return ipu_; }
  std::uint64_t cycles() const { return cycles_; }
  const std::vector<std::uint64_t> &cyclesByTile() const { return cyclesByTile_; }
  std::uint64_t activeCycles() const { return activeCycles_; }
  unsigned activeTiles() const { return activeTiles_; }

private:
  friend struct detail::ReportData;
  unsigned ipu_ = 0, activeTiles_ = 0;
  std::uint64_t cycles_ = 0, activeCycles_ = 0;
  std::vector<std::uint64_t> cyclesByTile_;
};

// One execution of a program step, in the order the steps ran. Its cycles are sync,
// exchange and the busiest tile's compute; cyclesByTile() each tile's compute cycles
// (empty for steps without per-tile work: syncs, stream copies, control programs). A
// stream copy runs as three steps: StreamCopyBegin (the host sync), StreamCopyMid (the
// data) and StreamCopyEnd (no cycles).
class ExecutionStep {
public:
  const std::shared_ptr<Program> &program() const;
  std::uint64_t cyclesFrom() const { return cyclesFrom_; }
  std::uint64_t cyclesTo() const { return cyclesFrom_ + cycles(); }
  std::uint64_t cycles() const;
  std::uint64_t syncCycles() const;
  std::uint64_t exchangeCycles() const;
  std::uint64_t computeCycles() const;
  const std::vector<std::uint64_t> &cyclesByTile() const;
  const std::vector<IpuExecution> &ipus() const;
  // The compute sets it ran: the one of an OnTileExecute, none for other programs.
  const std::vector<ComputeSetExecution> &computeSets() const;

private:
  friend struct detail::ReportData;
  const detail::StepData *step_ = nullptr;
  std::uint64_t cyclesFrom_ = 0;
};

class Run {
public:
  // The engine program this run ran (its index in Engine::run).
  unsigned programIndex() const { return programIndex_; }
  const std::shared_ptr<Program> &program() const { return program_; }
  const std::vector<ExecutionStep> &steps() const { return steps_; }

private:
  friend struct detail::ReportData;
  unsigned programIndex_ = 0;
  std::shared_ptr<Program> program_;
  std::vector<ExecutionStep> steps_;
};

// One execution of a Block program that lightweight profiling times
// (profiler.blocks.filter, profiler.programs.filter), seen from one tile.
class BlockExecution {
public:
  const std::shared_ptr<Program> &program() const { return program_; }
  unsigned tile() const { return tile_; }
  std::uint64_t cyclesFrom() const { return cyclesFrom_; }
  std::uint64_t cyclesTo() const { return cyclesTo_; }
  // Every block the emulator times is a Block program's execution ("common"): stream copies
  // are not timed as blocks, and its block buffer never overflows or flushes.
  bool isCommon() const { return true; }
  bool isStreamCopy() const { return false; }
  bool isOverflow() const { return false; }
  bool isBlockFlush() const { return false; }

private:
  friend struct detail::ReportData;
  std::shared_ptr<Program> program_;
  unsigned tile_ = 0;
  std::uint64_t cyclesFrom_ = 0, cyclesTo_ = 0;
};

// The runs recorded (an execution profile: autoReport.all, autoReport.outputExecutionProfile,
// debug.instrument; the first autoReport.executionProfileProgramRunCount runs, default 2).
class Execution {
public:
  const std::vector<Run> &runs() const { return runs_; }
  // The steps of every recorded run, in order.
  const std::vector<ExecutionStep> &steps() const { return steps_; }
  std::uint64_t totalCycles() const { return totalCycles_; }
  // The timed blocks seen from `tile` (the instrumented tile of its IPU), in order.
  std::vector<BlockExecution> blocks(unsigned tile) const;
  const std::vector<BlockExecution> &blocks() const { return blocks_; }
  // The recording stopped at its limit of steps before the runs ended.
  bool truncated() const { return truncated_; }

private:
  friend struct detail::ReportData;
  std::vector<Run> runs_;
  std::vector<ExecutionStep> steps_;
  std::vector<BlockExecution> blocks_;
  std::uint64_t totalCycles_ = 0;
  bool truncated_ = false;
};

class Report {
public:
  const PoplarVersion &poplarVersion() const;
  const Compilation &compilation() const;
  const Execution &execution() const;

private:
  friend struct detail::ReportData;
  explicit Report(std::shared_ptr<const detail::ReportData> data) : data_(std::move(data)) {}
  std::shared_ptr<const detail::ReportData> data_;
};

// Opens the report at `path` (a profile.pop the emulator wrote). Throws pva::Exception
// naming the file when it is missing, unreadable, not a report, or a report of the real
// SDK's format, which libpva of popdsl does not read.
Report openReport(const std::string &path);
// The same; the debug information file is accepted and not read.
Report openReport(const std::string &path, const std::string &debugPath);

} // namespace pva

#endif // PVA_PVA_HPP
