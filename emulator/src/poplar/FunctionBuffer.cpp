// Function buffers: a copy of a function's code kept off the tiles (in remote memory),
// loaded onto them by program::Copy(FunctionBuffer, Function).
//
// What the emulator makes of them. Poplar documents the buffer as where the function's
// code lives and the Copy as what brings it to the tiles; popxl, built on them, warns that
// a graph whose code is never loaded is taken to be always in executable memory. So a
// function with no buffer is always callable, and one given a buffer keeps its code
// there: calling it before a load since the Engine was loaded would run code that is not
// on the tiles, which the emulator reports as an error naming the function (the
// hardware would not). A load keeps the code on the tiles for later runs, like any tile
// memory, until the Engine is loaded again. Each load costs the transfer of the
// function's code (CostModel::functionCodeLoad).
#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>

#include "EngineState.hpp"
#include "GraphOwnership.hpp"
#include "GraphState.hpp"
#include "ProgramNode.hpp"

namespace poplar {
namespace detail {

namespace {

struct FunctionLoadStep : Step {
  std::uint8_t *loaded = nullptr;
  void run() override { *loaded = 1; }
  void reset() override { *loaded = 0; }
};

struct BufferedFunctionCallStep : Step {
  const std::uint8_t *loaded = nullptr;
  std::string function;
  void run() override {
    if (!*loaded)
      throw poplar_error(kind + (name.empty() ? "" : " '" + name + "'") + ": the code of " + function +
                         " is in a function buffer and has not been loaded onto the tiles: add a "
                         "program::Copy(functionBuffer, function) that runs before the Call");
  }
};

// Sized to every function at the first use, so the flags never move while steps point at them.
std::uint8_t &loadedFlag(EngineState &s, unsigned function) {
  s.functionCodeLoaded.resize(s.graph->functions.size(), 0);
  return s.functionCodeLoaded.at(function);
}

} // namespace

bool hasFunctionBuffer(const GraphState &g, unsigned function) {
  for (unsigned f : g.functionBuffers)
    if (f == function) return true;
  return false;
}

std::unique_ptr<Step> functionLoadStep(EngineState &s, const ProgramNode &n) {
  const GraphState &g = *s.graph;
  const unsigned function = static_cast<unsigned>(n.caseValues.at(0));
  if (n.id >= g.functionBuffers.size())
    throw graph_program_compilation_error(nodeLabel(n) + ": unknown function buffer id " + std::to_string(n.id));
  if (function >= g.functions.size() || g.functionBuffers[n.id] != function)
    throw graph_program_compilation_error(nodeLabel(n) + ": function buffer " + std::to_string(n.id) +
                                          " holds the code of " + functionName(g.functionBuffers[n.id], &g) +
                                          ", not of function " + std::to_string(function));
  auto step = std::make_unique<FunctionLoadStep>();
  step->loaded = &loadedFlag(s, function);
  return step;
}

std::unique_ptr<Step> bufferedFunctionCallStep(EngineState &s, const ProgramNode &call) {
  auto step = std::make_unique<BufferedFunctionCallStep>();
  step->loaded = &loadedFlag(s, call.id);
  step->function = functionName(call.id, s.graph.get());
  return step;
}

} // namespace detail

FunctionBuffer Graph::addFunctionBuffer(const Function &function, FunctionBufferMappingType mappingType) {
  const std::string what = "Graph::addFunctionBuffer";
  if (function.getId() >= state_->functions.size() || !detail::ownedBy(detail::Internals::owner(function), *state_))
    throw graph_object_creation_error(what + ": function " + std::to_string(function.getId()) +
                                      " is not a function of this graph");
  if (mappingType != FunctionBufferMappingType::REMOTE)
    throw graph_object_creation_error(what + ": unknown FunctionBufferMappingType " +
                                      std::to_string(static_cast<int>(mappingType)));
  state_->functionBuffers.push_back(function.getId());
  return detail::Internals::owned(FunctionBuffer(static_cast<unsigned>(state_->functionBuffers.size() - 1)), state_);
}

} // namespace poplar
