// pva::openReport and the report's objects, from the emulator's report text (JSON).
#include "ReportData.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "poplar/JsonText.hpp"
#include <poplar/ProfileData.hpp>

namespace pva {

namespace detail {

namespace {

// A JSON value, as the report's reader needs it.
struct Json {
  enum class Kind { Literal, String, Array, Object };
  Kind kind = Kind::Literal;
  std::string text; // a string, or a literal as written (number, true, false, null)
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  const Json *find(const char *key) const {
    for (const auto &m : members)
      if (m.first == key) return &m.second;
    return nullptr;
  }
  const Json &at(const char *key) const {
    const Json *v = kind == Kind::Object ? find(key) : nullptr;
    if (!v) throw Exception(std::string("the field '") + key + "' is missing");
    return *v;
  }
  const std::vector<Json> &array() const {
    if (kind != Kind::Array) throw Exception("expected a list");
    return items;
  }
  const std::string &string() const {
    if (kind != Kind::String) throw Exception("expected a string");
    return text;
  }
  std::uint64_t u64() const {
    if (kind != Kind::Literal || text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
      throw Exception("expected a non-negative integer, not '" + text + "'");
    return std::stoull(text);
  }
  double number() const {
    if (kind != Kind::Literal) throw Exception("expected a number");
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size()) throw Exception("expected a number, not '" + text + "'");
    return v;
  }
  bool boolean() const {
    if (kind != Kind::Literal || (text != "true" && text != "false")) throw Exception("expected true or false");
    return text == "true";
  }
};

// The report nests a few levels; a deeper text is not a report (and must not exhaust the stack).
constexpr unsigned kMaxDepth = 32;

Json parse(poplar::detail::JsonCursor &c, unsigned depth) {
  if (depth > kMaxDepth) c.fail("nested too deeply");
  Json v;
  const char next = c.peek();
  if (next == '"') {
    v.kind = Json::Kind::String;
    v.text = c.readString();
  } else if (next == '[') {
    c.expect('[');
    v.kind = Json::Kind::Array;
    if (!c.consume(']')) {
      do v.items.push_back(parse(c, depth + 1));
      while (c.consume(','));
      c.expect(']');
    }
  } else if (next == '{') {
    c.expect('{');
    v.kind = Json::Kind::Object;
    if (!c.consume('}')) {
      do {
        std::string key = c.readString();
        c.expect(':');
        v.members.emplace_back(std::move(key), parse(c, depth + 1));
      } while (c.consume(','));
      c.expect('}');
    }
  } else {
    v.text = c.readLiteral();
  }
  return v;
}

Program::Type programType(const std::string &name) {
  static const std::pair<const char *, Program::Type> kTypes[] = {
      {"Sequence", Program::Type::Sequence},
      {"Block", Program::Type::Block},
      {"Repeat", Program::Type::Repeat},
      {"RepeatWhileTrue", Program::Type::RepeatWhileTrue},
      {"RepeatWhileFalse", Program::Type::RepeatWhileFalse},
      {"If", Program::Type::If},
      {"Switch", Program::Type::Switch},
      {"Call", Program::Type::Call},
      {"OnTileExecute", Program::Type::OnTileExecute},
      {"DoExchange", Program::Type::DoExchange},
      {"GlobalExchange", Program::Type::GlobalExchange},
      {"StreamCopyBegin", Program::Type::StreamCopyBegin},
      {"StreamCopyMid", Program::Type::StreamCopyMid},
      {"StreamCopyEnd", Program::Type::StreamCopyEnd},
      {"Sync", Program::Type::Sync},
      {"Unknown", Program::Type::Unknown},
  };
  for (const auto &t : kTypes)
    if (name == t.first) return t.second;
  throw Exception("unknown program type '" + name + "'");
}

std::vector<std::uint64_t> u64s(const Json &list) {
  std::vector<std::uint64_t> out;
  for (const Json &v : list.array()) out.push_back(v.u64());
  return out;
}

std::string fileText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Exception("pva::openReport: cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Exception("pva::openReport: cannot read '" + path + "'");
  return text.str();
}

// Why `text` is no report of the emulator's, before parsing it; "" when it may be one.
std::string notOurFormat(const std::string &text) {
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (text.empty()) return "the file is empty";
  const std::string sdkHint = " (a profile.pop from the Poplar SDK has the SDK's own format, which popdsl's libpva "
                              "does not read: open it with the SDK's libpva or the PopVision Graph Analyser)";
  if (text.compare(0, 16, std::string("SQLite format 3\0", 16)) == 0)
    return "it is an SQLite database, not a report written by the popdsl emulator" + sdkHint;
  if (start == std::string::npos || text[start] != '{')
    return "it is not a report written by the popdsl emulator (a JSON object)" + sdkHint;
  return "";
}

} // namespace

template <class J> void ReportData::read(const J &root, bool withExecution) {
  const J &version = root.at("poplarVersion");
  poplarVersion.major_ = static_cast<unsigned>(version.at("major").u64());
  poplarVersion.minor_ = static_cast<unsigned>(version.at("minor").u64());
  poplarVersion.point_ = static_cast<unsigned>(version.at("point").u64());
  poplarVersion.string_ = version.at("string").string();

  Compilation &c = compilation;
  const J &target = root.at("target");
  Target &t = c.target_;
  t.type_ = Target::Type::IPUModel;
  t.architecture_ = target.at("architecture").string();
  t.numIPUs_ = static_cast<unsigned>(target.at("numIPUs").u64());
  t.tilesPerIpu_ = static_cast<unsigned>(target.at("tilesPerIPU").u64());
  t.bytesPerTile_ = target.at("bytesPerTile").u64();
  t.clockFrequency_ = target.at("clockFrequency").number();
  t.numReplicas_ = static_cast<unsigned>(target.at("numReplicas").u64());
  t.numWorkerContexts_ = static_cast<unsigned>(target.at("numWorkerContexts").u64());
  const unsigned numTiles = t.numTiles();

  const J &graph = root.at("graph");
  c.graph_.numComputeSets_ = graph.at("numComputeSets").u64();
  c.graph_.numVertices_ = graph.at("numVertices").u64();
  c.graph_.numVariables_ = graph.at("numVariables").u64();

  for (const J &cs : root.at("computeSets").array()) {
    ComputeSet set;
    set.name_ = cs.at("name").string();
    for (const J &v : cs.at("vertices").array()) {
      Vertex vertex;
      vertex.type_.name_ = v.at("type").string();
      vertex.count_ = v.at("count").u64();
      set.vertices_.push_back(std::move(vertex));
    }
    set.estimatedCyclesByTile_ = u64s(cs.at("estimatedCyclesByTile"));
    c.computeSets_.push_back(std::move(set));
  }

  const auto &contexts = root.at("debugContexts").array();
  c.debugContexts_.resize(contexts.size());
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    const J &d = contexts[i];
    DebugContext &context = c.debugContexts_[i];
    context.name_ = d.at("name").string();
    context.path_ = d.at("path").string();
    if (const J *location = d.find("location")) {
      context.location_.fileName_ = location->at("fileName").string();
      context.location_.functionName_ = location->at("functionName").string();
      context.location_.lineNumber_ = static_cast<unsigned>(location->at("lineNumber").u64());
      context.location_.valid_ = true;
    }
    if (const J *parent = d.find("parent")) {
      const std::uint64_t p = parent->u64();
      if (p >= i) throw Exception("debug context " + std::to_string(i) + " has a parent that does not come before it");
      context.parent_ = &c.debugContexts_[p];
      c.debugContexts_[p].children_.push_back(&context);
    }
  }
  const auto contextsOf = [&](const J &d) {
    std::vector<const DebugContext *> out;
    if (const J *index = d.find("debugContext")) {
      if (index->u64() >= c.debugContexts_.size())
        throw Exception("debug context " + index->text + " is out of range");
      out.push_back(&c.debugContexts_[index->u64()]);
    }
    return out;
  };

  const auto &programs = root.at("programs").array();
  const auto programAt = [&](std::uint64_t index) -> const std::shared_ptr<Program> & {
    if (index >= c.programs_.size()) throw Exception("program index " + std::to_string(index) + " is out of range");
    return c.programs_[index];
  };
  for (const J &p : programs) {
    const Program::Type type = programType(p.at("type").string());
    std::shared_ptr<Program> program;
    if (type == Program::Type::OnTileExecute) {
      auto execute = std::make_shared<OnTileExecuteProgram>();
      const std::uint64_t cs = p.at("computeSet").u64();
      if (cs >= c.computeSets_.size()) throw Exception("compute set " + std::to_string(cs) + " is out of range");
      execute->computeSet_ = &c.computeSets_[cs];
      program = execute;
    } else if (type == Program::Type::DoExchange) {
      program = std::make_shared<DoExchangeProgram>();
    } else {
      program = std::make_shared<Program>();
    }
    program->type_ = type;
    program->name_ = p.at("name").string();
    program->debugContexts_ = contextsOf(p);
    program->id_ = c.programs_.size();
    c.programs_.push_back(std::move(program));
  }
  for (std::size_t i = 0; i < programs.size(); ++i)
    for (const J &child : programs[i].at("children").array())
      c.programs_[i]->children_.push_back(programAt(child.u64()));
  const std::vector<std::uint64_t> entries = u64s(root.at("entryPrograms"));
  for (std::uint64_t e : entries) programAt(e);

  for (const J &s : root.at("steps").array()) {
    StepData step;
    step.program = programAt(s.at("program").u64());
    const std::string &kind = s.at("kind").string();
    step.blockMarker = kind == "BlockBegin" || kind == "BlockEnd";
    step.sync = s.at("syncCycles").u64();
    step.exchange = s.at("exchangeCycles").u64();
    step.compute = s.at("computeCycles").u64();
    if (const J *byTile = s.find("computeCyclesByTile")) {
      step.cyclesByTile = u64s(*byTile);
      if (step.cyclesByTile.size() != numTiles)
        throw Exception("a step has cycles for " + std::to_string(step.cyclesByTile.size()) + " tiles, not " +
                        std::to_string(numTiles));
    }
    for (unsigned ipu = 0; ipu < t.numIPUs_; ++ipu) {
      IpuExecution e;
      e.ipu_ = ipu;
      e.cycles_ = step.cycles();
      if (!step.cyclesByTile.empty()) {
        const auto first = step.cyclesByTile.begin() + static_cast<std::ptrdiff_t>(ipu) * t.tilesPerIpu_;
        e.cyclesByTile_.assign(first, first + t.tilesPerIpu_);
      }
      for (std::uint64_t cycles : e.cyclesByTile_) {
        e.activeCycles_ = std::max(e.activeCycles_, cycles);
        e.activeTiles_ += cycles != 0;
      }
      step.ipus.push_back(std::move(e));
    }
    if (const J *cs = s.find("computeSet")) {
      const std::uint64_t index = cs->u64();
      if (index >= c.computeSets_.size()) throw Exception("compute set " + std::to_string(index) + " is out of range");
      ComputeSetExecution ran;
      ran.computeSet_ = &c.computeSets_[index];
      step.computeSets.push_back(ran);
    }
    if (!step.blockMarker) {
      LivenessProgramStep liveness;
      liveness.program_ = step.program;
      liveness.data_ = this;
      liveness.step_ = steps.size();
      c.livenessSteps_.push_back(std::move(liveness));
    }
    steps.push_back(std::move(step));
  }

  std::vector<std::uint64_t> notAlwaysLiveOnTile(numTiles, 0);
  for (const J &v : root.at("variables").array()) {
    Variable variable;
    variable.name_ = v.at("name").string();
    variable.bytes_ = v.at("bytes").u64();
    variable.alwaysLive_ = v.at("alwaysLive").boolean();
    variable.debugContexts_ = contextsOf(v);
    if (variable.alwaysLive_) {
      c.alwaysLive_.push_back(std::move(variable));
      continue;
    }
    LiveRange range;
    range.first = v.at("liveFrom").u64();
    range.last = v.at("liveTo").u64();
    if (range.first > range.last || range.last >= steps.size())
      throw Exception("variable '" + variable.name_ + "' is live over steps that are not in the report");
    std::uint64_t sum = 0;
    for (const J &part : v.at("bytesByTile").array()) {
      const std::vector<std::uint64_t> pair = u64s(part);
      if (pair.size() != 2 || pair[0] >= numTiles) throw Exception("bytesByTile holds [tile, bytes] pairs");
      range.bytesByTile.emplace_back(static_cast<unsigned>(pair[0]), pair[1]);
      notAlwaysLiveOnTile[pair[0]] += pair[1];
      sum += pair[1];
    }
    if (sum != variable.bytes_)
      throw Exception("the bytes by tile of variable '" + variable.name_ + "' do not add up to its size");
    range.variable = variable;
    c.notAlwaysLive_.push_back(std::move(variable));
    liveRanges.push_back(std::move(range));
  }

  // The categories the report gives per tile; the others are 0.
  static const std::pair<const char *, MemoryCategory MemoryCategories::*> kCategories[] = {
      {"variableBytesByTile", &MemoryCategories::variable_},
      {"constantBytesByTile", &MemoryCategories::constant_},
      {"vertexCodeBytesByTile", &MemoryCategories::vertexCode_},
      {"vertexInstanceStateBytesByTile", &MemoryCategories::vertexInstanceState_},
      {"controlCodeBytesByTile", &MemoryCategories::controlCode_},
      {"internalExchangeCodeBytesByTile", &MemoryCategories::internalExchangeCode_},
      {"hostExchangeCodeBytesByTile", &MemoryCategories::hostExchangeCode_},
      {"stackBytesByTile", &MemoryCategories::stack_},
  };
  const J &memory = root.at("memory");
  std::vector<std::vector<std::uint64_t>> byTile;
  for (const auto &category : kCategories) {
    byTile.push_back(u64s(memory.at(category.first)));
    if (byTile.back().size() != numTiles)
      throw Exception("the memory lists do not have one entry per tile (" + std::to_string(numTiles) + ")");
  }
  c.ipus_.resize(t.numIPUs_);
  for (unsigned n = 0; n < numTiles; ++n) {
    Tile tile;
    tile.number_ = n;
    tile.ipu_ = n / t.tilesPerIpu_;
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < byTile.size(); ++k) {
      tile.memory_.category_.*kCategories[k].second = MemoryCategory(byTile[k][n]);
      total += byTile[k][n];
    }
    tile.memory_.total_ = MemoryTotal(total, total);
    tile.memory_.notAlwaysLiveBytes_ = notAlwaysLiveOnTile[n];
    c.ipus_[tile.ipu_].tiles_.push_back(tile);
    c.tiles_.push_back(std::move(tile));
  }

  if (!withExecution) return;
  const J &run = root.at("execution");
  Execution &x = execution;
  x.truncated_ = run.at("truncated").boolean();
  std::uint64_t clock = 0;
  for (const J &r : run.at("runs").array()) {
    Run recorded;
    const std::uint64_t program = r.at("program").u64();
    if (program >= entries.size()) throw Exception("run of program " + std::to_string(program) + " is out of range");
    recorded.programIndex_ = static_cast<unsigned>(program);
    recorded.program_ = c.programs_[entries[program]];
    for (const J &s : r.at("steps").array()) {
      const std::uint64_t index = s.u64();
      if (index >= steps.size()) throw Exception("step " + std::to_string(index) + " is out of range");
      const StepData &step = steps[index];
      if (step.blockMarker) continue;
      ExecutionStep executed;
      executed.step_ = &step;
      executed.cyclesFrom_ = clock;
      clock += step.cycles();
      recorded.steps_.push_back(executed);
      x.steps_.push_back(executed);
    }
    x.runs_.push_back(std::move(recorded));
  }
  x.totalCycles_ = clock;
  for (const J &b : root.at("blocks").array()) {
    BlockExecution block;
    block.program_ = programAt(b.at("program").u64());
    block.tile_ = static_cast<unsigned>(b.at("tile").u64());
    block.cyclesFrom_ = b.at("cyclesFrom").u64();
    block.cyclesTo_ = b.at("cyclesTo").u64();
    x.blocks_.push_back(std::move(block));
  }
}

NotAlwaysLiveMemory ReportData::notAlwaysLive(std::uint64_t step, unsigned firstTile, unsigned endTile) const {
  NotAlwaysLiveMemory m;
  for (const LiveRange &r : liveRanges) {
    if (step < r.first || step > r.last) continue;
    Variable part = r.variable;
    part.bytes_ = 0;
    for (const auto &b : r.bytesByTile)
      if (b.first >= firstTile && b.first < endTile) part.bytes_ += b.second;
    if (!part.bytes_) continue;
    m.bytes_ += part.bytes_;
    m.variables_.push_back(std::move(part));
  }
  return m;
}

Report ReportData::fromText(const std::string &text, const std::string &source, bool withExecution) {
  const std::string problem = notOurFormat(text);
  if (!problem.empty()) throw Exception("pva::openReport: cannot read '" + source + "': " + problem);
  auto data = std::make_shared<ReportData>();
  try {
    poplar::detail::JsonCursor cursor(text, "JSON");
    const Json root = parse(cursor, 0);
    cursor.finish();
    const Json *format = root.kind == Json::Kind::Object ? root.find("format") : nullptr;
    if (!format || format->kind != Json::Kind::String || format->text != poplar::detail::kReportFormat)
      throw Exception("it is JSON but not a report written by the popdsl emulator (no \"format\": \"" +
                      std::string(poplar::detail::kReportFormat) + "\")");
    if (root.at("formatVersion").u64() != poplar::detail::kReportFormatVersion)
      throw Exception("its format version " + root.at("formatVersion").text + " is not " +
                      std::to_string(poplar::detail::kReportFormatVersion) + ", the one this libpva reads");
    data->read(root, withExecution);
  } catch (const Exception &e) {
    throw Exception("pva::openReport: cannot read '" + source + "': " + e.what());
  } catch (const std::exception &e) {
    throw Exception("pva::openReport: cannot read '" + source + "': not a valid report: " + e.what());
  }
  return Report(std::move(data));
}

} // namespace detail

void Program::accept(ProgramVisitor &v) const {
  switch (type_) {
  case Type::Sequence: v.visitSequence(*this); return;
  case Type::Block: v.visitBlock(*this); return;
  case Type::Repeat: v.visitRepeat(*this); return;
  case Type::RepeatWhileTrue: v.visitRepeatWhileTrue(*this); return;
  case Type::RepeatWhileFalse: v.visitRepeatWhileFalse(*this); return;
  case Type::If: v.visitIf(*this); return;
  case Type::Switch: v.visitSwitch(*this); return;
  case Type::Call: v.visitCall(*this); return;
  case Type::OnTileExecute: v.visitOnTileExecute(static_cast<const OnTileExecuteProgram &>(*this)); return;
  case Type::DoExchange: v.visitDoExchange(static_cast<const DoExchangeProgram &>(*this)); return;
  case Type::GlobalExchange: v.visitGlobalExchange(*this); return;
  case Type::StreamCopyBegin: v.visitStreamCopyBegin(*this); return;
  case Type::StreamCopyMid: v.visitStreamCopyMid(*this); return;
  case Type::StreamCopyEnd: v.visitStreamCopyEnd(*this); return;
  case Type::Sync: v.visitSync(*this); return;
  case Type::Unknown: v.visitUnknown(*this); return;
  }
}

const std::shared_ptr<Program> &ExecutionStep::program() const { return step_->program; }
std::uint64_t ExecutionStep::cycles() const { return step_->cycles(); }
std::uint64_t ExecutionStep::syncCycles() const { return step_->sync; }
std::uint64_t ExecutionStep::exchangeCycles() const { return step_->exchange; }
std::uint64_t ExecutionStep::computeCycles() const { return step_->compute; }
const std::vector<std::uint64_t> &ExecutionStep::cyclesByTile() const { return step_->cyclesByTile; }
const std::vector<IpuExecution> &ExecutionStep::ipus() const { return step_->ipus; }
const std::vector<ComputeSetExecution> &ExecutionStep::computeSets() const { return step_->computeSets; }

NotAlwaysLiveMemory LivenessProgramStep::notAlwaysLiveMemory() const {
  return data_->notAlwaysLive(step_, 0, data_->compilation.target().numTiles());
}
NotAlwaysLiveMemory LivenessProgramStep::notAlwaysLiveMemoryForTile(unsigned tile) const {
  return data_->notAlwaysLive(step_, tile, tile + 1);
}
NotAlwaysLiveMemory LivenessProgramStep::notAlwaysLiveMemoryForIpu(unsigned ipu) const {
  const unsigned n = data_->compilation.target().tilesPerIpu();
  return data_->notAlwaysLive(step_, ipu * n, (ipu + 1) * n);
}

std::vector<BlockExecution> Execution::blocks(unsigned tile) const {
  std::vector<BlockExecution> out;
  std::copy_if(blocks_.begin(), blocks_.end(), std::back_inserter(out),
               [tile](const BlockExecution &b) { return b.tile() == tile; });
  return out;
}

const PoplarVersion &Report::poplarVersion() const { return data_->poplarVersion; }
const Compilation &Report::compilation() const { return data_->compilation; }
const Execution &Report::execution() const { return data_->execution; }

Report openReport(const std::string &path) { return detail::ReportData::fromText(detail::fileText(path), path); }

Report openReport(const std::string &path, const std::string &) { return openReport(path); }

} // namespace pva
