#pragma once
// Depth-first walks of a program tree on an explicit stack: programs nest up to
// kMaxProgramDepth levels, more than a recursion could descend on a small thread
// stack (10000 levels on a thread with 1 MiB).
#include <cstddef>
#include <utility>
#include <vector>

#include "ProgramNode.hpp"

namespace poplar::detail {

// What a visitor of walkProgram implements; the defaults do nothing. Each node entered
// gets a fresh `State` (the visitor's NodeState) that its later calls share, for what
// the visitor keeps between a node's children (a jump to patch, an indentation).
template <class State> struct ProgramVisitor {
  using NodeState = State;
  // Before the node's children; false skips them and the node's leave().
  bool enter(const ProgramNode &, State &) { return true; }
  void beforeChild(const ProgramNode &, std::size_t, State &) {}
  void afterChild(const ProgramNode &, std::size_t, State &) {}
  void leave(const ProgramNode &, State &) {}
};
struct NoNodeState {};

template <class Visitor> void walkProgram(const program::Program &root, Visitor &visitor) {
  using State = typename Visitor::NodeState;
  struct Open {
    const ProgramNode *node;
    State state;
    std::size_t nextChild;
  };
  std::vector<Open> open;
  // Enters `n`; true when it went on the stack to have its children walked.
  const auto enter = [&](const ProgramNode &n) {
    Open o{&n, State{}, 0};
    if (!visitor.enter(n, o.state)) return false;
    open.push_back(std::move(o));
    return true;
  };
  enter(programNode(root));
  while (!open.empty()) {
    Open &top = open.back();
    if (top.nextChild < top.node->children.size()) {
      const std::size_t i = top.nextChild++;
      visitor.beforeChild(*top.node, i, top.state);
      // `top` is still valid when the child did not go on the stack.
      if (!enter(programNode(top.node->children[i]))) visitor.afterChild(*top.node, i, top.state);
      continue;
    }
    visitor.leave(*top.node, top.state);
    open.pop_back();
    if (!open.empty()) visitor.afterChild(*open.back().node, open.back().nextChild - 1, open.back().state);
  }
}

} // namespace poplar::detail
