#include "GraphOwnership.hpp"

#include <poplar/exceptions.hpp>

#include <atomic>
#include <unordered_set>

#include "GraphState.hpp"
#include "ProgramNode.hpp"
#include "ProgramWalk.hpp"
#include "TensorImpl.hpp"

namespace poplar::detail {

unsigned newGraphNumber() {
  static std::atomic<unsigned> made{0};
  return ++made;
}

std::string graphName(const VarTable &vars) { return "graph #" + std::to_string(vars.graphNumber); }

bool ownedBy(const std::weak_ptr<const GraphState> &owner, const GraphState &graph) {
  if (owner.lock().get() == &graph) return true;
  const std::weak_ptr<const GraphState> unset;
  return !owner.owner_before(unset) && !unset.owner_before(owner); // no graph was ever set
}

std::string computeSetName(unsigned id, const GraphState *owner) {
  std::string name = "compute set " + std::to_string(id);
  if (owner && id < owner->computeSets.size() && !owner->computeSets[id].name.empty())
    name += " '" + owner->computeSets[id].name + "'";
  return name;
}

std::string functionName(unsigned id, const GraphState *owner) {
  std::string name = "function " + std::to_string(id);
  if (owner && id < owner->functions.size() && !programNode(owner->functions[id]).name.empty())
    name += " '" + programNode(owner->functions[id]).name + "'";
  return name;
}

std::string belongsElsewhere(const GraphState *owner, const GraphState &graph) {
  return (owner ? "belongs to a different graph (" + graphName(*owner->vars) + ") than "
                : std::string("belongs to a graph that no longer exists, not to ")) +
         graphName(*graph.vars);
}

namespace {

std::string hostFunctionName(unsigned id, const GraphState *owner) {
  if (owner && id < owner->hostFunctions.size()) return "host function '" + owner->hostFunctions[id].handle + "'";
  return "host function " + std::to_string(id);
}

// Checks every node once; the functions that calls reach are checked after the programs.
class OwnershipCheck : public ProgramVisitor<NoNodeState> {
public:
  explicit OwnershipCheck(const GraphState &graph) : graph_(graph) {}

  bool enter(const ProgramNode &n, NoNodeState &) {
    using K = ProgramNode::Kind;
    if (!checked_.insert(&n).second) return false;
    for (const Tensor &t : n.tensors) {
      const TensorImpl &impl = tensorImpl(t);
      if (impl.vars != graph_.vars)
        throw graph_program_compilation_error(nodeLabel(n) + ": tensor " + impl.describe() +
                                              " belongs to a different graph (" + graphName(*impl.vars) +
                                              ") than " + graphName(*graph_.vars) + ", the graph being compiled");
    }
    switch (n.kind) {
    case K::Execute: check(n, n.owner, computeSetName); break;
    case K::Call:
      check(n, n.owner, functionName);
      if (n.id < graph_.functions.size()) pending.push_back(n.id);
      break;
    case K::HostCall: check(n, n.owner, hostFunctionName); break;
    case K::StreamToTensor:
    case K::TensorToStream:
      check(n, Internals::owner(n.stream),
            [&](unsigned, const GraphState *) { return "stream '" + n.stream.handle() + "'"; });
      break;
    case K::RemoteToTensor:
    case K::TensorToRemote:
      check(n, n.owner, [&](unsigned, const GraphState *) { return "remote buffer '" + n.text + "'"; });
      break;
    case K::FunctionLoad:
      check(n, n.owner, [&](unsigned id, const GraphState *) { return "function buffer " + std::to_string(id); });
      break;
    default: break;
    }
    return true;
  }

  std::vector<unsigned> pending; // called functions not yet checked

private:
  template <class Name>
  void check(const ProgramNode &n, const std::weak_ptr<const GraphState> &owner, Name name) {
    if (ownedBy(owner, graph_)) return;
    const auto other = owner.lock();
    throw graph_program_compilation_error(nodeLabel(n) + ": " + name(n.id, other.get()) + " " +
                                          belongsElsewhere(other.get(), graph_) + ", the graph being compiled");
  }

  const GraphState &graph_;
  std::unordered_set<const ProgramNode *> checked_; // each once, however often it is used
};

} // namespace

void checkProgramsBelongTo(const GraphState &graph, const std::vector<program::Program> &programs) {
  OwnershipCheck check(graph);
  for (const program::Program &p : programs) walkProgram(p, check);
  while (!check.pending.empty()) {
    const unsigned f = check.pending.back();
    check.pending.pop_back();
    walkProgram(graph.functions[f], check);
  }
}

} // namespace poplar::detail
