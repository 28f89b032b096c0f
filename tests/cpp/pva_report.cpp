// libpva over the emulator's report: a tiny program whose figures are derived by hand
// (one compute set of three vertices with set perf estimates, a copy, a profiled Block)
// is run twice; the report from Engine::getReport and the profile.pop the engine writes
// when destroyed are checked against those figures and against the engine's own profile
// (printProfileSummary). Prints "check failed: ..." for each failure, then "checks: N
// failed"; test_pva.py runs it. Usage: pva_report <report directory>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <pva/pva.hpp>

#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

static const char *const kCodelets =
    "#include <poplar/Vertex.hpp>\n"
    "using namespace poplar;\n"
    "class AddOne : public Vertex {\n"
    "public:\n"
    "  Input<Vector<float>> in;\n"
    "  Output<Vector<float>> out;\n"
    "  bool compute() { for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] + 1; return true; }\n"
    "};\n"
    "class Double : public Vertex {\n"
    "public:\n"
    "  Input<Vector<float>> in;\n"
    "  Output<Vector<float>> out;\n"
    "  bool compute() { for (unsigned i = 0; i < in.size(); ++i) out[i] = 2 * in[i]; return true; }\n"
    "};\n";

static unsigned failures = 0;

#define CHECK(condition)                                                                                              \
  do {                                                                                                                \
    if (!(condition)) {                                                                                               \
      ++failures;                                                                                                     \
      std::cout << "check failed: " #condition " (line " << __LINE__ << ")\n";                                      \
    }                                                                                                                 \
  } while (0)

// "  Total cycles (estimated):   1,234" -> 1234
static std::uint64_t summaryTotalCycles(const Engine &engine) {
  std::ostringstream summary;
  engine.printProfileSummary(summary);
  std::istringstream lines(summary.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.find("Total cycles (estimated):") == std::string::npos) continue;
    std::string digits;
    for (char c : line.substr(line.find(':')))
      if (c >= '0' && c <= '9') digits += c;
    return std::stoull(digits);
  }
  return 0;
}

struct CountExecutes : pva::ProgramVisitor {
  unsigned executes = 0, exchanges = 0;
  void visitOnTileExecute(const pva::OnTileExecuteProgram &) override { ++executes; }
  void visitDoExchange(const pva::DoExchangeProgram &) override { ++exchanges; }
};

// Where the test's graph made its Block "loop" and its variable "x" (their debug contexts' locations).
static unsigned loopLine = 0, xLine = 0;

static void checkReport(const pva::Report &report, const Target &target, std::uint64_t engineTotalCycles) {
  const pva::Compilation &c = report.compilation();
  CHECK(report.poplarVersion().major() == 3);
  CHECK(c.target().numTiles() == 4 && c.target().tilesPerIpu() == 4 && c.target().numIPUs() == 1);
  CHECK(c.target().clockFrequency() == target.getTileClockFrequency());
  CHECK(c.target().bytesPerTile() == target.getBytesPerTile());
  CHECK(c.graph().numComputeSets() == 1 && c.graph().numVertices() == 3);

  // The program tree: Sequence{Block "loop"{Repeat{Execute}}, Copy}.
  std::shared_ptr<pva::Program> execute, block;
  for (const auto &p : c.programs()) {
    if (p->type() == pva::Program::Type::OnTileExecute) execute = p;
    if (p->type() == pva::Program::Type::Block) block = p;
  }
  CHECK(execute && block);
  if (!execute || !block) return;
  CHECK(block->name() == "loop" && block->children().size() == 1);
  CHECK(block->children()[0]->type() == pva::Program::Type::Repeat);
  CHECK(block->children()[0]->children().size() == 1 && block->children()[0]->children()[0] == execute);
  const pva::ComputeSet &cs = static_cast<const pva::OnTileExecuteProgram &>(*execute).computeSet();
  CHECK(cs.name() == "addOne" && cs.vertices().size() == 2 && execute->name() == "addOne");
  CHECK(cs.vertices()[0].type().name() == "AddOne" && cs.vertices()[0].count() == 2);
  CHECK(cs.vertices()[1].type().name() == "Double" && cs.vertices()[1].count() == 1);
  CHECK((cs.estimatedCyclesByTile() == std::vector<std::uint64_t>{20, 35, 0, 0}));
  CountExecutes visitor;
  for (const auto &p : c.programs()) p->accept(visitor);
  CHECK(visitor.executes == 1 && visitor.exchanges == 1);

  // Memory: x, y: 4 floats on tile 0 and 4 on tile 1; z: 2 floats and the constant c: 2
  // floats on tile 1; w: 4 floats on tile 2 and 4 on tile 3. The estimates (CodeMemory.hpp):
  // AddOne on tiles 0 and 1, Double on tile 1 (256 B of code per type, 2 fields of 8 B per
  // instance); 8 control instructions of 64 B everywhere; the copy's exchange code (64 B) on
  // the tiles of y and w; a stack of 7 contexts of 128 B everywhere.
  const std::uint64_t variables[] = {32, 40, 16, 16}, constants[] = {0, 8, 0, 0};
  const std::uint64_t vertexCode[] = {256, 512, 0, 0}, vertexState[] = {16, 32, 0, 0};
  const std::uint64_t notAlwaysLive[] = {16, 24, 16, 16}; // y, z and w
  CHECK(c.tiles().size() == 4);
  for (unsigned t = 0; t < c.tiles().size() && t < 4; ++t) {
    const pva::TileMemory &m = c.tiles()[t].memory();
    const pva::MemoryCategories &k = m.category();
    CHECK(k.variable().total().excludingGaps() == variables[t]);
    CHECK(k.constant().total().excludingGaps() == constants[t]);
    CHECK(k.vertexCode().total().excludingGaps() == vertexCode[t]);
    CHECK(k.vertexInstanceState().total().excludingGaps() == vertexState[t]);
    CHECK(k.controlCode().total().excludingGaps() == 8 * 64);
    CHECK(k.internalExchangeCode().total().excludingGaps() == 64);
    CHECK(k.hostExchangeCode().total().excludingGaps() == 0 && k.vertexFieldData().total().excludingGaps() == 0);
    CHECK(k.stack().total().excludingGaps() == 7 * 128);
    const std::uint64_t total = variables[t] + constants[t] + vertexCode[t] + vertexState[t] + 512 + 64 + 896;
    CHECK(m.total().includingGaps() == total && m.total().excludingGaps() == total);
    CHECK(m.notAlwaysLiveBytes() == notAlwaysLive[t] && m.alwaysLiveBytes() == total - notAlwaysLive[t]);
  }
  CHECK(c.ipus().size() == 1 && c.ipus()[0].tiles().size() == 4);

  // Liveness: x is read first (always live); y lives from the compute set to the copy, z in
  // the compute set, w in the copy. Steps: the Repeat, the compute set, the copy.
  CHECK(c.alwaysLiveVariables().size() == 1 && c.alwaysLiveVariables()[0].name() == "x");
  CHECK(c.alwaysLiveVariables()[0].bytes() == 32 && c.alwaysLiveVariables()[0].alwaysLive());
  std::string names;
  for (const pva::Variable &v : c.notAlwaysLiveVariables()) names += v.name() + std::to_string(v.bytes()) + " ";
  CHECK(names == "y32 z8 w32 ");
  const auto &live = c.livenessProgramSteps();
  CHECK(live.size() == 3);
  if (live.size() == 3) {
    CHECK(live[1].program() == execute && live[0].program()->type() == pva::Program::Type::Repeat);
    CHECK(live[0].notAlwaysLiveMemory().bytes() == 0 && live[0].notAlwaysLiveMemory().variables().empty());
    CHECK(live[1].notAlwaysLiveMemory().bytes() == 40 && live[2].notAlwaysLiveMemory().bytes() == 64);
    const std::uint64_t atExecute[] = {16, 24, 0, 0}, atCopy[] = {16, 16, 16, 16};
    for (unsigned t = 0; t < 4; ++t) {
      CHECK(live[1].notAlwaysLiveMemoryForTile(t).bytes() == atExecute[t]);
      CHECK(live[2].notAlwaysLiveMemoryForTile(t).bytes() == atCopy[t]);
    }
    const pva::NotAlwaysLiveMemory tile1 = live[1].notAlwaysLiveMemoryForTile(1);
    CHECK(tile1.variables().size() == 2 && tile1.variables()[0].name() == "y" && tile1.variables()[0].bytes() == 16);
    CHECK(live[2].notAlwaysLiveMemoryForIpu(0).bytes() == 64);
  }

  // Debug contexts: the Block's and the variables', where this file made them.
  CHECK(block->debugContexts().size() == 1 && execute->debugContexts().empty());
  if (block->debugContexts().size() == 1) {
    const pva::DebugContext &loop = *block->debugContexts()[0];
    CHECK(loop.name() == "loop" && loop.path() == "loop" && loop.parent() == nullptr);
    CHECK(loop.location().isValid() && loop.location().lineNumber() == loopLine);
    CHECK(loop.location().functionName() == "main");
    CHECK(loop.location().fileName() == __FILE__);
  }
  const pva::Variable &variableX = c.alwaysLiveVariables()[0];
  CHECK(variableX.debugContexts().size() == 1 && variableX.debugContexts()[0]->name() == "x");
  CHECK(variableX.debugContexts().size() == 1 && variableX.debugContexts()[0]->location().lineNumber() == xLine);
  CHECK(c.debugContexts().size() == 5); // loop, x, y, z, w

  // Execution: per run the Repeat, three executions of the compute set, the copy.
  const pva::Execution &x = report.execution();
  CHECK(x.runs().size() == 2);
  const std::uint64_t sync = 100 + target.getMinIPUSyncDelay(); // CostModel.hpp's kSyncCycles + the target's
  std::uint64_t clock = 0, executes = 0;
  for (const pva::Run &run : x.runs()) {
    CHECK(run.steps().size() == 5);
    CHECK(run.programIndex() == 0 && run.program()->type() == pva::Program::Type::Sequence);
    for (const pva::ExecutionStep &step : run.steps()) {
      CHECK(step.cyclesFrom() == clock);
      clock = step.cyclesTo();
      if (step.program() != execute) continue;
      ++executes;
      // Tile 0: one AddOne (20 cycles); tile 1: AddOne (30) and Double (5); operands local.
      CHECK((step.cyclesByTile() == std::vector<std::uint64_t>{20, 35, 0, 0}));
      CHECK(step.computeCycles() == 35 && step.exchangeCycles() == 0 && step.syncCycles() == sync);
      CHECK(step.cycles() == sync + 35);
      CHECK(step.ipus().size() == 1 && step.ipus()[0].cycles() == sync + 35);
      CHECK(step.ipus()[0].activeCycles() == 35 && step.ipus()[0].activeTiles() == 2);
      CHECK(step.computeSets().size() == 1 && step.computeSets()[0].name() == "addOne");
      if (step.computeSets().size() == 1) {
        CHECK((step.computeSets()[0].cyclesByTile() == std::vector<std::uint64_t>{20, 35, 0, 0}));
        CHECK((step.computeSets()[0].estimatedCyclesByTile() == std::vector<std::uint64_t>{20, 35, 0, 0}));
      }
    }
    CHECK(run.steps()[0].program()->type() == pva::Program::Type::Repeat && run.steps()[0].computeSets().empty());
    CHECK(run.steps()[4].program()->type() == pva::Program::Type::DoExchange);
  }
  CHECK(executes == 6);
  CHECK(x.steps().size() == 10 && x.totalCycles() == clock);
  CHECK(x.totalCycles() == engineTotalCycles);

  // The Block "loop", timed on tile 0 (profiler.blocks.filter): the Repeat and its three executions.
  const std::vector<pva::BlockExecution> blocks = x.blocks(0);
  CHECK(blocks.size() == 2 && x.blocks(1).empty());
  for (std::size_t r = 0; r < blocks.size() && r < x.runs().size(); ++r) {
    const pva::Run &run = x.runs()[r];
    CHECK(blocks[r].program() == block && blocks[r].tile() == 0 && !blocks[r].isStreamCopy());
    CHECK(blocks[r].isCommon() && !blocks[r].isOverflow() && !blocks[r].isBlockFlush());
    CHECK(blocks[r].cyclesFrom() == run.steps()[0].cyclesFrom());
    CHECK(blocks[r].cyclesTo() == run.steps()[3].cyclesTo());
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: pva_report <report directory>\n";
    return 2;
  }
  const std::string directory = argv[1];
  IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  const Target target = device.getTarget();
  std::uint64_t engineTotalCycles = 0;
  {
    Graph graph(target);
    std::stringstream source(kCodelets);
    graph.addCodelets(source, "-O1", CodeletFileType::CppSource);
    Tensor x = graph.addVariable(FLOAT, {8}, "x"), y = graph.addVariable(FLOAT, {8}, "y"); xLine = __LINE__;
    Tensor z = graph.addVariable(FLOAT, {2}, "z"), w = graph.addVariable(FLOAT, {8}, "w");
    const float two[] = {1, 2};
    Tensor c = graph.addConstant<float>(FLOAT, {2}, two, "c");
    for (unsigned half = 0; half < 2; ++half) {
      graph.setTileMapping(x.slice(4 * half, 4 * half + 4), half);
      graph.setTileMapping(y.slice(4 * half, 4 * half + 4), half);
      graph.setTileMapping(w.slice(4 * half, 4 * half + 4), 2 + half);
    }
    graph.setTileMapping(z, 1);
    graph.setTileMapping(c, 1);
    ComputeSet cs = graph.addComputeSet("addOne");
    for (unsigned half = 0; half < 2; ++half) {
      VertexRef v = graph.addVertex(cs, "AddOne",
                                    {{"in", x.slice(4 * half, 4 * half + 4)}, {"out", y.slice(4 * half, 4 * half + 4)}});
      graph.setTileMapping(v, half);
      graph.setPerfEstimate(v, half ? 30 : 20);
    }
    VertexRef twice = graph.addVertex(cs, "Double", {{"in", c}, {"out", z}});
    graph.setTileMapping(twice, 1);
    graph.setPerfEstimate(twice, 5);
    Sequence main{Block(Repeat(3, Execute(cs)), "loop"), Copy(y, w)}; loopLine = __LINE__;
    Engine engine(graph, main,
                  {{"autoReport.all", "true"}, {"autoReport.directory", directory}, {"profiler.blocks.filter", "lo.p"}});
    engine.load(device);
    engine.run(0);
    engine.run(0);
    engineTotalCycles = summaryTotalCycles(engine);
    CHECK(engineTotalCycles > 0);
    checkReport(engine.getReport(), target, engineTotalCycles);
    CHECK(engine.getReport(false).execution().runs().empty());
    CHECK(engine.getReport(false).compilation().programs().size() == engine.getReport().compilation().programs().size());
  } // the engine writes profile.pop
  checkReport(pva::openReport(directory + "/profile.pop"), target, engineTotalCycles);
  checkReport(pva::openReport(directory + "/profile.pop", directory + "/debug.cbor"), target, engineTotalCycles);

  const char *const errors[] = {"/missing.pop", "/garbage.pop", "/sdk.pop", "/other.json"};
  for (const char *name : errors) {
    try {
      pva::openReport(directory + name);
      std::cout << "error " << name << ": none\n";
    } catch (const pva::Exception &e) {
      std::cout << "error " << name << ": " << e.what() << "\n";
    }
  }
  std::cout << "checks: " << failures << " failed\n";
  return failures ? 1 : 0;
}
