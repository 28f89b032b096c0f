#pragma once
// Which graph the tensors, compute sets, functions, host functions and streams of a
// program belong to. Poplar's graphs have no names: errors call them "graph #N",
// numbered in the order they were made.
#include <memory>
#include <string>
#include <vector>

#include <poplar/Program.hpp>

namespace poplar::detail {

struct GraphState;
struct VarTable;

// "graph #N" for the graph these variables belong to.
std::string graphName(const VarTable &vars);

// Whether an element marked with `owner` (Internals::owner) may be used in `graph`:
// `graph` made it, or it was made from a bare id (then only its id's range is checked).
bool ownedBy(const std::weak_ptr<const GraphState> &owner, const GraphState &graph);

// "compute set 3 'name'", the name looked up in `owner` (null: not known).
std::string computeSetName(unsigned id, const GraphState *owner);
// "function 2 'name'", the name its program's debug name.
std::string functionName(unsigned id, const GraphState *owner);

// "belongs to a different graph (graph #3) than graph #2", or "... to a graph that no
// longer exists ..." when `owner` is null: for an element of `owner` used in `graph`.
std::string belongsElsewhere(const GraphState *owner, const GraphState &graph);

// Throws graph_program_compilation_error naming the program, the element and both
// graphs when `programs`, or the functions they call, use a tensor, compute set,
// function, host function or stream of a graph other than `graph`.
void checkProgramsBelongTo(const GraphState &graph, const std::vector<program::Program> &programs);

} // namespace poplar::detail
