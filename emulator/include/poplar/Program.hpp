#pragma once
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/DataStream.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/PrintTensor.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/SyncType.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {

class Graph;

namespace detail {
struct ProgramNode;
struct Internals;
} // namespace detail

namespace program {

// A control program. Programs are values: copying one and then adding to the
// copy (Sequence::add, Switch::add) leaves the original unchanged.
class Program {
public:
  Program();
  bool isEmpty() const;

  friend bool operator==(const Program &a, const Program &b) { return a.node_ == b.node_; }
  friend bool operator!=(const Program &a, const Program &b) { return !(a == b); }

protected:
  friend struct detail::Internals;
  explicit Program(std::shared_ptr<detail::ProgramNode> node);
  detail::ProgramNode &mutableNode();

private:
  std::shared_ptr<detail::ProgramNode> node_;
};

class Sequence : public Program {
public:
  Sequence(const DebugContext &debugContext = {});
  Sequence(std::initializer_list<Program> programs, const DebugContext &debugContext = {});
  Sequence(const std::vector<Program> &programs, const DebugContext &debugContext = {});
  void add(const Program &p);
};

class Execute : public Program {
public:
  explicit Execute(ComputeSet cs, const DebugContext &debugContext = {});
  Execute(ComputeSet cs, const Tensor &t, const DebugContext &debugContext = {});
};

class Repeat : public Program {
public:
  Repeat(unsigned count, const Program &body, const DebugContext &debugContext = {});
};

// Runs `body` forever: only an Abort, AbortOnCondition or ErrorProgram inside it
// (or an error) ends the run.
class Loop : public Program {
public:
  explicit Loop(const Program &body, const DebugContext &debugContext = {});
};

// Runs `cond`, then `body` while the one-element `predicate` is non-zero.
class RepeatWhileTrue : public Program {
public:
  RepeatWhileTrue(const Program &cond, const Tensor &predicate, const Program &body,
                  const DebugContext &debugContext = {});
};

// Runs `cond`, then `body` while the one-element `predicate` is zero.
class RepeatWhileFalse : public Program {
public:
  RepeatWhileFalse(const Program &cond, const Tensor &predicate, const Program &body,
                   const DebugContext &debugContext = {});
};

class If : public Program {
public:
  If(const Tensor &predicate, const Program &trueBody, const Program &falseBody,
     const DebugContext &debugContext = {});
};

class Switch : public Program {
public:
  using CaseList = std::vector<std::pair<std::int32_t, Program>>;
  Switch(const Tensor &control, const CaseList &cases, const DebugContext &debugContext = {});
  Switch(const Tensor &control, const CaseList &cases, const Program &defaultCase,
         const DebugContext &debugContext = {});
  explicit Switch(const Tensor &control, const DebugContext &debugContext = {});
  Switch(const Tensor &control, const Program &defaultCase, const DebugContext &debugContext = {});
  Switch &add(std::int32_t value, const Program &body);
  static Switch switchWithBoundsChecking(Tensor control, const CaseList &cases,
                                         const DebugContext &debugContext = {});
  static Switch switchWithUnreachableDefault(Tensor control, const DebugContext &debugContext = {});
};

class Copy : public Program {
public:
  Copy(const Tensor &src, const Tensor &dst, bool dontOutline = false,
       const DebugContext &debugContext = {});
  Copy(const DataStream &stream, const Tensor &dst, bool optimiseMemory = false,
       const DebugContext &debugContext = {});
  Copy(const Tensor &src, const DataStream &stream, bool optimiseMemory = false,
       const DebugContext &debugContext = {});
  // Remote buffers: the buffer's only row, or with `offset` (k row indices) rows
  // offset[0..k) to or from a tensor of k x numElements elements.
  Copy(const RemoteBuffer &buffer, const Tensor &dst, const DebugContext &debugContext = {});
  Copy(const RemoteBuffer &buffer, const Tensor &dst, const Tensor &offset,
       const DebugContext &debugContext = {});
  Copy(const Tensor &src, const RemoteBuffer &buffer, const DebugContext &debugContext = {});
  Copy(const Tensor &src, const RemoteBuffer &buffer, const Tensor &offset,
       const DebugContext &debugContext = {});
  // Loads `function`'s code from `buffer`, a buffer Graph::addFunctionBuffer made for it.
  Copy(const FunctionBuffer &buffer, const Function &function, const DebugContext &debugContext = {});
};

// Marks `t` as undefined for liveness analysis; no data moves.
class WriteUndef : public Program {
public:
  explicit WriteUndef(const Tensor &t, const DebugContext &debugContext = {});
};

// Sends replica k's src to dst on replica replicaMap[k], for each k in the map (all of
// them read before any is written); a replica that is no destination keeps its dst.
class CrossReplicaCopy : public Program {
public:
  CrossReplicaCopy(const Tensor &src, const Tensor &dst, std::map<unsigned, unsigned> replicaMap,
                   const DebugContext &debugContext = {});
};

// States that `t` holds the same value on every replica. The emulator runs one
// replica, where that always holds, so it checks the tensor and moves no data.
class AssumeEqualAcrossReplicas : public Program {
public:
  explicit AssumeEqualAcrossReplicas(const Tensor &t, const DebugContext &debugContext = {});
};

// Runs `program` as one unit that the compiler keeps whole (it is never merged
// with what comes before or after it).
class Block : public Program {
public:
  explicit Block(const Program &program, const DebugContext &debugContext = {});
};

class Call : public Program {
public:
  explicit Call(Function f, const DebugContext &debugContext = {});
  // Gathers `inputs` to the host, calls host function f and writes its results to `outputs`.
  Call(HostFunction f, ArrayRef<Tensor> inputs, ArrayRef<Tensor> outputs,
       const DebugContext &debugContext = {});
};

class PrintTensor : public Program {
public:
  explicit PrintTensor(const Tensor &t, const DebugContext &debugContext = {});
  PrintTensor(StringRef title, const Tensor &t, const DebugContext &debugContext = {});
  PrintTensor(const Tensor &t, const PrintTensorFmt &fmt, const DebugContext &debugContext = {});
  PrintTensor(StringRef title, const Tensor &t, const PrintTensorFmt &fmt,
              const DebugContext &debugContext = {});
};

class Sync : public Program {
public:
  explicit Sync(SyncType type, const DebugContext &debugContext = {});
};

// Stops the run with an application_runtime_error carrying the message.
class Abort : public Program {
public:
  explicit Abort(const DebugContext &debugContext = {});
  Abort(const std::string &message, const DebugContext &debugContext = {});
  Abort(const char *message, const DebugContext &debugContext = {})
      : Abort(std::string(message), debugContext) {}
};

class AbortOnCondition : public Program {
public:
  explicit AbortOnCondition(const Tensor &predicate, const DebugContext &debugContext = {});
  AbortOnCondition(const Tensor &predicate, const std::string &message,
                   const DebugContext &debugContext = {});
};

// Prints `debugTensor` with the message as its title, then stops the run with an
// application_runtime_error carrying the message.
class ErrorProgram : public Program {
public:
  ErrorProgram(StringRef message, const Tensor &debugTensor, const DebugContext &debugContext = {});
};

// Writes `program` as an indented tree, one line per program: its kind, its
// debug name and what it works on (compute sets by name, tensors by debug name).
void dumpProgram(const Graph &graph, const Program &program, std::ostream &out);

} // namespace program
} // namespace poplar
