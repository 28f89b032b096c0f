#include "CodeMemory.hpp"

#include <map>
#include <set>
#include <string>

#include "CostModel.hpp"
#include "EngineState.hpp"

namespace poplar::detail {

namespace {

bool isHostTransfer(ProgramNode::Kind kind) {
  using K = ProgramNode::Kind;
  return kind == K::StreamToTensor || kind == K::TensorToStream || kind == K::RemoteToTensor ||
         kind == K::TensorToRemote || kind == K::PrintTensor || kind == K::HostCall || kind == K::FunctionLoad;
}

} // namespace

CodeMemory estimateCodeMemory(const EngineState &s) {
  const Target &target = s.graph->target;
  const std::size_t numTiles = target.getNumTiles();
  CodeMemory m;
  for (auto *category : {&m.vertexCode, &m.vertexInstanceState, &m.internalExchangeCode, &m.hostExchangeCode})
    category->assign(numTiles, 0);
  m.controlCode.assign(numTiles, kCodeBytesPerInstruction * s.code.size());
  m.stack.assign(numTiles, kStackBytesPerContext * (target.getNumWorkerContexts() + 1));

  std::set<unsigned> executed;
  for (const ReportProgram &p : s.reportPrograms)
    if (p.kind == ProgramNode::Kind::Execute) executed.insert(p.computeSet);
  const CostModel model(target, *s.graph->vars);
  std::vector<std::set<std::string>> typesOnTile(numTiles);
  for (unsigned cs : executed) {
    for (const Kernel &k : s.graph->computeSets[cs].kernels) {
      const std::vector<std::uint64_t> cycles = model.kernelCyclesByTile(k);
      const std::string &type = k.vertexType.empty() ? k.kind : k.vertexType;
      for (std::size_t tile = 0; tile < numTiles; ++tile) {
        if (!cycles[tile]) continue;
        typesOnTile[tile].insert(type);
        m.vertexInstanceState[tile] += kVertexFieldStateBytes * (k.reads.size() + k.writes.size());
      }
    }
  }
  for (std::size_t tile = 0; tile < numTiles; ++tile) m.vertexCode[tile] = kVertexCodeBytes * typesOnTile[tile].size();

  std::map<unsigned, std::set<unsigned>> tilesOfVar;
  const auto tilesOf = [&](unsigned var) -> const std::set<unsigned> & {
    auto found = tilesOfVar.find(var);
    if (found != tilesOfVar.end()) return found->second;
    std::set<unsigned> &tiles = tilesOfVar[var];
    for (const auto &range : s.graph->vars->vars[var].mapping) tiles.insert(range.second.second);
    return tiles;
  };
  for (std::size_t i = 0; i < s.steps.size() && i < s.stepUses.size(); ++i) {
    const Step &step = *s.steps[i];
    const ProgramNode::Kind kind = s.reportPrograms[step.program].kind;
    const bool exchanges = (kind == ProgramNode::Kind::Copy || kind == ProgramNode::Kind::Execute) &&
                           step.cost.exchangeBytes > 0;
    std::vector<std::uint64_t> *category =
        isHostTransfer(kind) ? &m.hostExchangeCode : exchanges ? &m.internalExchangeCode : nullptr;
    if (!category) continue;
    std::set<unsigned> tiles;
    for (const StepUse &use : s.stepUses[i]) tiles.insert(tilesOf(use.var).begin(), tilesOf(use.var).end());
    for (unsigned tile : tiles) (*category)[tile] += kCodeBytesPerInstruction;
  }
  return m;
}

} // namespace poplar::detail
