#pragma once
// The tree node behind every program::Program.
#include <cstdint>
#include <string>
#include <vector>

#include <poplar/DataStream.hpp>
#include <poplar/PrintTensor.hpp>
#include <poplar/Internals.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

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
    Loop,              // children: {body} (the last kind: Executable.cpp reads up to it)
  };
  Kind kind = Kind::Sequence;
  std::string name;
  std::vector<program::Program> children;
  std::vector<Tensor> tensors;
  std::vector<std::int32_t> caseValues;
  DataStream stream;
  unsigned id = 0;
  std::string text;
  PrintTensorFmt format;
  unsigned depth = 1; // levels of this tree: 1 + the deepest child's
};

const char *kindName(ProgramNode::Kind kind);

// Walks of a program tree (compiling, serializing, destroying it) recurse once
// per level, so a deeper tree is refused where it is built, before a walk can
// overflow the stack.
constexpr unsigned kMaxProgramDepth = 10000;
// Raises n.depth for a new child; throws control_program_error (n is left
// unchanged) when that would make n deeper than kMaxProgramDepth.
void adoptDepth(ProgramNode &n, const program::Program &child);

} // namespace poplar::detail
