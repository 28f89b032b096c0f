#pragma once
// The tree node behind every program::Program.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <poplar/DataStream.hpp>
#include <poplar/PrintTensor.hpp>
#include <poplar/Internals.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include "DebugRecord.hpp"

namespace poplar::detail {

struct ProgramNode {
  enum class Kind {
    Sequence,          // children: the steps
    Execute,           // id: compute set
    Repeat,            // id: count; children: {body}
    RepeatWhileTrue,   // tensors: {predicate}; children: {cond, body}
    RepeatWhileFalse,  // tensors: {predicate}; children: {cond, body}
    If,                // tensors: {predicate}; children: {then, else}
    Switch,            // tensors: {control}; children: default then the cases; caseValues
    Copy,              // tensors: {src, dst}
    StreamToTensor,    // stream; tensors: {dst}
    TensorToStream,    // stream; tensors: {src}
    WriteUndef,        // tensors: {t}
    Call,              // id: function
    PrintTensor,       // text: title; tensors: {t}; format
    Sync,
    Abort,             // text: message
    AbortOnCondition,  // text: message; tensors: {predicate}
    HostCall,          // id: host function; tensors: inputs then outputs
    CycleStamp,        // tensors: {dst}; id: SyncType
    CycleCount,        // tensors: {dst}; children: {body}; id: SyncType
    Loop,              // children: {body}
    CrossReplica,      // tensors: {src, dst}; caseValues: CrossReplicaSpec
    RemoteToTensor,    // text: remote buffer; tensors: {dst} or {dst, offset}
    TensorToRemote,    // text: remote buffer; tensors: {src} or {src, offset}
    FunctionLoad,      // id: function buffer; caseValues: {its function} (the last kind:
                       // Executable.cpp reads up to it)
  };
  ProgramNode() = default;
  ProgramNode(const ProgramNode &) = default;
  ProgramNode &operator=(const ProgramNode &) = default;
  // Frees the tree under this node without recursing into it.
  ~ProgramNode();

  Kind kind = Kind::Sequence;
  std::string name;
  DebugRecord debug; // the DebugContext it was made with, for libpva's report
  std::vector<program::Program> children;
  std::vector<Tensor> tensors;
  std::vector<std::int32_t> caseValues;
  DataStream stream;
  unsigned id = 0;
  // Execute, Call, HostCall: the graph whose compute set, function or host function
  // `id` is (unset when the program was given a ComputeSet(id) made from a bare id);
  // remote buffer copies and function loads: the graph that made the buffer.
  std::weak_ptr<const GraphState> owner;
  std::string text;
  PrintTensorFmt format;
  unsigned depth = 1; // levels of this tree: 1 + the deepest child's
  bool block = false; // a program::Block (a Sequence of one that lightweight profiling can time)
};

const char *kindName(ProgramNode::Kind kind);
// How errors name a program: its kind and, when it has one, its name ("Repeat 'loop'").
std::string nodeLabel(const ProgramNode &n);

// Poplar's limit on nesting. Walks of a program tree (ProgramWalk.hpp) keep their
// own stack, so a tree this deep compiles, serializes and runs on a small thread stack.
constexpr unsigned kMaxProgramDepth = 10000;
// Raises n.depth for a new child; throws control_program_error (n is left
// unchanged) when that would make n deeper than kMaxProgramDepth.
void adoptDepth(ProgramNode &n, const program::Program &child);

} // namespace poplar::detail
