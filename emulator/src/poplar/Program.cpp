#include <poplar/Program.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <ostream>
#include <set>

#include "CrossReplica.hpp"
#include "GraphState.hpp"
#include "ProgramNode.hpp"
#include "ProgramWalk.hpp"
#include "TensorImpl.hpp"
#include "TypeInfo.hpp"

namespace poplar {
namespace detail {

const char *kindName(ProgramNode::Kind kind) {
  using K = ProgramNode::Kind;
  switch (kind) {
  case K::Sequence: return "Sequence";
  case K::Execute: return "Execute";
  case K::Repeat: return "Repeat";
  case K::RepeatWhileTrue: return "RepeatWhileTrue";
  case K::RepeatWhileFalse: return "RepeatWhileFalse";
  case K::If: return "If";
  case K::Switch: return "Switch";
  case K::Copy: return "Copy";
  case K::StreamToTensor: return "StreamCopy(host to device)";
  case K::TensorToStream: return "StreamCopy(device to host)";
  case K::WriteUndef: return "WriteUndef";
  case K::Call: return "Call";
  case K::PrintTensor: return "PrintTensor";
  case K::Sync: return "Sync";
  case K::Abort: return "Abort";
  case K::AbortOnCondition: return "AbortOnCondition";
  case K::HostCall: return "Call(host function)";
  case K::CycleStamp: return "CycleStamp";
  case K::CycleCount: return "CycleCount";
  case K::Loop: return "Loop";
  case K::CrossReplica: return "CrossReplica";
  case K::RemoteToTensor: return "RemoteBufferCopy(to device)";
  case K::TensorToRemote: return "RemoteBufferCopy(to remote)";
  case K::FunctionLoad: return "Copy(function code)";
  }
  return "Program";
}

std::string nodeLabel(const ProgramNode &n) {
  return std::string(kindName(n.kind)) + (n.name.empty() ? "" : " '" + n.name + "'");
}

void adoptDepth(ProgramNode &n, const program::Program &child) {
  const unsigned depth = detail::programNode(child).depth;
  if (depth >= kMaxProgramDepth)
    throw control_program_error(nodeLabel(n) + ": programs cannot nest more than " +
                                std::to_string(kMaxProgramDepth) + " levels deep");
  n.depth = std::max(n.depth, depth + 1);
}

const void *programIdentity(const program::Program &program) { return &programNode(program); }

// Destroying a node destroys its children's nodes, and theirs, one call deeper per
// level: the children of nodes about to go are moved here first, so each node dies
// childless. A node that other programs share keeps its children.
ProgramNode::~ProgramNode() {
  std::vector<program::Program> dying = std::move(children);
  while (!dying.empty()) {
    program::Program p = std::move(dying.back());
    dying.pop_back();
    const std::shared_ptr<ProgramNode> &node = Internals::programNode(p);
    if (node && node.use_count() == 1)
      for (program::Program &c : node->children) dying.push_back(std::move(c));
  }
}

} // namespace detail

namespace program {

using detail::ProgramNode;
using Kind = ProgramNode::Kind;

namespace {

std::shared_ptr<ProgramNode> makeNode(Kind kind, const DebugContext &dc) {
  auto node = std::make_shared<ProgramNode>();
  node->kind = kind;
  node->name = dc.getPathName();
  node->debug = detail::DebugRecord::of(dc);
  return node;
}

// Predicates and switch controls hold one integral or boolean element.
void checkControl(const Tensor &t, const char *program, const char *role) {
  const auto &impl = detail::tensorImpl(t);
  if (impl.numElements() != 1)
    throw control_program_error(std::string(program) + ": the " + role + " must have exactly one element, but " +
                                impl.describe() + " has " + std::to_string(impl.numElements()));
  const auto kind = detail::typeInfo(impl.type).kind;
  if (kind != detail::TypeKind::Bool && kind != detail::TypeKind::Signed &&
      kind != detail::TypeKind::Unsigned)
    throw control_program_error(std::string(program) + ": the " + role + " " + impl.describe() +
                                " must be of a boolean or integer type");
}

// Sets a new node's children, checking how deep they nest.
void setChildren(ProgramNode &n, std::vector<Program> children) {
  for (const Program &c : children) detail::adoptDepth(n, c);
  n.children = std::move(children);
}

} // namespace

Program::Program() : node_(std::make_shared<ProgramNode>()) {}
Program::Program(std::shared_ptr<ProgramNode> node) : node_(std::move(node)) {}

ProgramNode &Program::mutableNode() {
  if (node_.use_count() > 1) node_ = std::make_shared<ProgramNode>(*node_);
  return *node_;
}

namespace {
// Finds a node that is not a Sequence.
struct EmptinessCheck : detail::ProgramVisitor<detail::NoNodeState> {
  bool empty = true;
  bool enter(const ProgramNode &n, detail::NoNodeState &) {
    if (n.kind != Kind::Sequence) empty = false;
    return empty;
  }
};
} // namespace

bool Program::isEmpty() const {
  EmptinessCheck check;
  detail::walkProgram(*this, check);
  return check.empty;
}

Sequence::Sequence(const DebugContext &dc) : Program(makeNode(Kind::Sequence, dc)) {}
Sequence::Sequence(std::initializer_list<Program> programs, const DebugContext &dc)
    : Sequence(std::vector<Program>(programs), dc) {}
Sequence::Sequence(const std::vector<Program> &programs, const DebugContext &dc) : Sequence(dc) {
  setChildren(mutableNode(), programs);
}
void Sequence::add(const Program &p) {
  // Copied first: when p is this sequence, the copy shares its node, so
  // mutableNode() detaches this one and p's old value is added, not a cycle.
  Program value = p;
  ProgramNode &n = mutableNode();
  detail::adoptDepth(n, value);
  n.children.push_back(std::move(value));
}

Execute::Execute(ComputeSet cs, const DebugContext &dc) : Program(makeNode(Kind::Execute, dc)) {
  mutableNode().id = cs.getId();
  mutableNode().owner = detail::Internals::owner(cs);
}
Execute::Execute(ComputeSet cs, const Tensor &, const DebugContext &dc) : Execute(cs, dc) {}

Repeat::Repeat(unsigned count, const Program &body, const DebugContext &dc)
    : Program(makeNode(Kind::Repeat, dc)) {
  auto &n = mutableNode();
  n.id = count;
  setChildren(n, {body});
}

Loop::Loop(const Program &body, const DebugContext &dc) : Program(makeNode(Kind::Loop, dc)) {
  setChildren(mutableNode(), {body});
}

RepeatWhileTrue::RepeatWhileTrue(const Program &cond, const Tensor &predicate, const Program &body,
                                 const DebugContext &dc)
    : Program(makeNode(Kind::RepeatWhileTrue, dc)) {
  checkControl(predicate, "RepeatWhileTrue", "predicate");
  auto &n = mutableNode();
  n.tensors = {predicate};
  setChildren(n, {cond, body});
}

RepeatWhileFalse::RepeatWhileFalse(const Program &cond, const Tensor &predicate,
                                   const Program &body, const DebugContext &dc)
    : Program(makeNode(Kind::RepeatWhileFalse, dc)) {
  checkControl(predicate, "RepeatWhileFalse", "predicate");
  auto &n = mutableNode();
  n.tensors = {predicate};
  setChildren(n, {cond, body});
}

If::If(const Tensor &predicate, const Program &trueBody, const Program &falseBody,
       const DebugContext &dc)
    : Program(makeNode(Kind::If, dc)) {
  checkControl(predicate, "If", "predicate");
  auto &n = mutableNode();
  n.tensors = {predicate};
  setChildren(n, {trueBody, falseBody});
}

Switch::Switch(const Tensor &control, const CaseList &cases, const Program &defaultCase,
               const DebugContext &dc)
    : Program(makeNode(Kind::Switch, dc)) {
  checkControl(control, "Switch", "control");
  auto &n = mutableNode();
  n.tensors = {control};
  setChildren(n, {defaultCase});
  for (const auto &c : cases) add(c.first, c.second);
}
Switch::Switch(const Tensor &control, const CaseList &cases, const DebugContext &dc)
    : Switch(control, cases, Sequence(), dc) {}
Switch::Switch(const Tensor &control, const DebugContext &dc) : Switch(control, {}, Sequence(), dc) {}
Switch::Switch(const Tensor &control, const Program &defaultCase, const DebugContext &dc)
    : Switch(control, {}, defaultCase, dc) {}

Switch &Switch::add(std::int32_t value, const Program &body) {
  const Program bodyValue = body; // as in Sequence::add: adding the switch to itself adds its old value
  auto &n = mutableNode();
  for (std::int32_t v : n.caseValues)
    if (v == value)
      throw control_program_error("Switch: case " + std::to_string(value) + " is already defined");
  detail::adoptDepth(n, bodyValue);
  n.caseValues.push_back(value);
  // children[0] is the default; cases follow in the order they were added.
  n.children.push_back(bodyValue);
  return *this;
}

Switch Switch::switchWithBoundsChecking(Tensor control, const CaseList &cases,
                                        const DebugContext &dc) {
  return Switch(control, cases,
                Abort("Switch: the control value matches no case", DebugContext(dc, "outOfBounds")), dc);
}

Switch Switch::switchWithUnreachableDefault(Tensor control, const DebugContext &dc) {
  return Switch(control, Abort("Switch: reached the unreachable default case"), dc);
}

Copy::Copy(const Tensor &src, const Tensor &dst, bool, const DebugContext &dc)
    : Program(makeNode(Kind::Copy, dc)) {
  const auto &s = detail::tensorImpl(src), &d = detail::tensorImpl(dst);
  if (s.type != d.type)
    throw poplar_error("Copy: source " + s.describe() + " and destination " + d.describe() +
                       " have different element types");
  if (s.numElements() != d.numElements())
    throw poplar_error("Copy: source " + s.describe() + " has " + std::to_string(s.numElements()) +
                       " elements but destination " + d.describe() + " has " +
                       std::to_string(d.numElements()));
  if (s.vars != d.vars)
    throw poplar_error("Copy: source " + s.describe() + " and destination " + d.describe() +
                       " belong to different graphs");
  mutableNode().tensors = {src, dst};
}

namespace {
void checkStreamTensor(const DataStream &stream, const Tensor &t, DataStreamType expected) {
  if (!stream.valid()) throw stream_connection_error("Copy: the stream is not valid");
  const auto &impl = detail::tensorImpl(t);
  if (stream.type() != expected)
    throw stream_connection_error("Copy: stream '" + stream.handle() + "' is " +
                                  (stream.type() == DataStreamType::HostToDeviceFIFO
                                       ? "host-to-device"
                                       : "device-to-host") +
                                  " and cannot be used in this direction");
  if (stream.elementType() != impl.type)
    throw stream_connection_error("Copy: stream '" + stream.handle() + "' carries " +
                                  stream.elementType().toString().str() + " elements but tensor " +
                                  impl.describe() + " holds " + impl.type.toString().str());
  if (stream.numElements() != impl.numElements())
    throw stream_connection_error(
        "Copy: stream '" + stream.handle() + "' carries " + std::to_string(stream.numElements()) +
        " elements of " + stream.elementType().toString().str() + " but tensor " +
        impl.describe() + " has " + std::to_string(impl.numElements()));
}
} // namespace

Copy::Copy(const DataStream &stream, const Tensor &dst, bool, const DebugContext &dc)
    : Program(makeNode(Kind::StreamToTensor, dc)) {
  checkStreamTensor(stream, dst, DataStreamType::HostToDeviceFIFO);
  auto &n = mutableNode();
  n.stream = stream;
  n.tensors = {dst};
}

Copy::Copy(const Tensor &src, const DataStream &stream, bool, const DebugContext &dc)
    : Program(makeNode(Kind::TensorToStream, dc)) {
  checkStreamTensor(stream, src, DataStreamType::DeviceToHostFIFO);
  auto &n = mutableNode();
  n.stream = stream;
  n.tensors = {src};
}

namespace {
// A remote buffer copy: node.text is the buffer's handle, node.tensors {t} or {t, offset}.
std::shared_ptr<ProgramNode> remoteCopyNode(Kind kind, const RemoteBuffer &buffer, const Tensor &t,
                                            const Tensor *offset, const DebugContext &dc) {
  const std::string what = "Copy: remote buffer '" + buffer.handle() + "'";
  if (buffer.handle().empty()) throw poplar_error("Copy: the remote buffer is not valid");
  const auto &impl = detail::tensorImpl(t);
  if (impl.type != buffer.elementType())
    throw poplar_error(what + " holds " + buffer.elementType().toString().str() + " elements but tensor " +
                       impl.describe() + " holds " + impl.type.toString().str());
  std::size_t rows = 1;
  if (offset) {
    const auto &o = detail::tensorImpl(*offset);
    if ((o.type != UNSIGNED_INT && o.type != INT) || o.shape.size() > 1)
      throw poplar_error(what + ": the offset " + o.describe() +
                         " must be a scalar or a vector of UNSIGNED_INT or INT row indices");
    rows = o.numElements();
  } else if (buffer.getRepeats() != 1) {
    throw poplar_error(what + " has " + std::to_string(buffer.getRepeats()) +
                       " rows: give an offset tensor to choose them");
  }
  if (impl.numElements() != rows * buffer.numElements())
    throw poplar_error(what + " has rows of " + std::to_string(buffer.numElements()) + " elements, so " +
                       std::to_string(rows) + " row(s) need a tensor of " +
                       std::to_string(rows * buffer.numElements()) + " elements, but " + impl.describe() +
                       " has " + std::to_string(impl.numElements()));
  auto node = makeNode(kind, dc);
  node->text = buffer.handle();
  node->owner = detail::Internals::owner(buffer);
  node->tensors = {t};
  if (offset) node->tensors.push_back(*offset);
  return node;
}
} // namespace

Copy::Copy(const RemoteBuffer &buffer, const Tensor &dst, const DebugContext &dc)
    : Program(remoteCopyNode(Kind::RemoteToTensor, buffer, dst, nullptr, dc)) {}
Copy::Copy(const RemoteBuffer &buffer, const Tensor &dst, const Tensor &offset, const DebugContext &dc)
    : Program(remoteCopyNode(Kind::RemoteToTensor, buffer, dst, &offset, dc)) {}
Copy::Copy(const Tensor &src, const RemoteBuffer &buffer, const DebugContext &dc)
    : Program(remoteCopyNode(Kind::TensorToRemote, buffer, src, nullptr, dc)) {}
Copy::Copy(const Tensor &src, const RemoteBuffer &buffer, const Tensor &offset, const DebugContext &dc)
    : Program(remoteCopyNode(Kind::TensorToRemote, buffer, src, &offset, dc)) {}

Copy::Copy(const FunctionBuffer &buffer, const Function &function, const DebugContext &dc)
    : Program(makeNode(Kind::FunctionLoad, dc)) {
  // A buffer and function made by one live graph are checked now; ids alone, when the
  // Engine compiles.
  const auto graph = detail::Internals::owner(buffer).lock();
  if (graph && graph == detail::Internals::owner(function).lock() && buffer.getId() < graph->functionBuffers.size() &&
      graph->functionBuffers[buffer.getId()] != function.getId())
    throw poplar_error("Copy: function buffer " + std::to_string(buffer.getId()) + " holds the code of function " +
                       std::to_string(graph->functionBuffers[buffer.getId()]) + ", not of function " +
                       std::to_string(function.getId()));
  auto &n = mutableNode();
  n.id = buffer.getId();
  n.caseValues = {static_cast<std::int32_t>(function.getId())};
  n.owner = detail::Internals::owner(buffer);
}

WriteUndef::WriteUndef(const Tensor &t, const DebugContext &dc)
    : Program(makeNode(Kind::WriteUndef, dc)) {
  detail::tensorImpl(t);
  mutableNode().tensors = {t};
}

CrossReplicaCopy::CrossReplicaCopy(const Tensor &src, const Tensor &dst, std::map<unsigned, unsigned> replicaMap,
                                   const DebugContext &dc)
    : Program(makeNode(Kind::CrossReplica, dc)) {
  const auto &s = detail::tensorImpl(src), &d = detail::tensorImpl(dst);
  if (s.type != d.type || s.numElements() != d.numElements() || s.vars != d.vars)
    throw poplar_error("CrossReplicaCopy: source " + s.describe() + " and destination " + d.describe() +
                       " must have the same element type and number of elements, in one graph");
  detail::CrossReplicaSpec spec;
  spec.collective = detail::Collective::Copy;
  std::set<unsigned> destinations;
  for (const auto &[from, to] : replicaMap) {
    if (!destinations.insert(to).second)
      throw poplar_error("CrossReplicaCopy: replica " + std::to_string(to) +
                         " is the destination of more than one replica");
    spec.copies.emplace_back(from, to);
  }
  auto &n = mutableNode();
  n.tensors = {src, dst};
  n.caseValues = spec.encode();
}

AssumeEqualAcrossReplicas::AssumeEqualAcrossReplicas(const Tensor &t, const DebugContext &dc)
    : Program(makeNode(Kind::Sequence, dc)) {
  detail::tensorImpl(t);
}

// A sequence of one: the emulator compiles every program as written, so it never
// merges the block with its neighbours.
Block::Block(const Program &program, const DebugContext &dc) : Program(makeNode(Kind::Sequence, dc)) {
  setChildren(mutableNode(), {program});
  mutableNode().block = true;
}

Call::Call(Function f, const DebugContext &dc) : Program(makeNode(Kind::Call, dc)) {
  mutableNode().id = f.getId();
  mutableNode().owner = detail::Internals::owner(f);
}

Call::Call(HostFunction f, ArrayRef<Tensor> inputs, ArrayRef<Tensor> outputs, const DebugContext &dc)
    : Program(makeNode(Kind::HostCall, dc)) {
  auto &n = mutableNode();
  n.id = f.getId();
  n.owner = detail::Internals::owner(f);
  n.tensors = inputs.vec();
  for (const Tensor &t : outputs) n.tensors.push_back(t);
}

PrintTensor::PrintTensor(const Tensor &t, const DebugContext &dc) : PrintTensor("", t, PrintTensorFmt(), dc) {}
PrintTensor::PrintTensor(StringRef title, const Tensor &t, const DebugContext &dc)
    : PrintTensor(title, t, PrintTensorFmt(), dc) {}
PrintTensor::PrintTensor(const Tensor &t, const PrintTensorFmt &fmt, const DebugContext &dc)
    : PrintTensor("", t, fmt, dc) {}
PrintTensor::PrintTensor(StringRef title, const Tensor &t, const PrintTensorFmt &fmt,
                         const DebugContext &dc)
    : Program(makeNode(Kind::PrintTensor, dc)) {
  detail::tensorImpl(t);
  auto &n = mutableNode();
  n.text = title.str();
  n.tensors = {t};
  n.format = fmt;
}

Sync::Sync(SyncType, const DebugContext &dc) : Program(makeNode(Kind::Sync, dc)) {}

Abort::Abort(const DebugContext &dc) : Abort("", dc) {}
Abort::Abort(const std::string &message, const DebugContext &dc)
    : Program(makeNode(Kind::Abort, dc)) {
  mutableNode().text = message;
}

AbortOnCondition::AbortOnCondition(const Tensor &predicate, const DebugContext &dc)
    : AbortOnCondition(predicate, "", dc) {}
AbortOnCondition::AbortOnCondition(const Tensor &predicate, const std::string &message,
                                   const DebugContext &dc)
    : Program(makeNode(Kind::AbortOnCondition, dc)) {
  checkControl(predicate, "AbortOnCondition", "predicate");
  auto &n = mutableNode();
  n.text = message;
  n.tensors = {predicate};
}

ErrorProgram::ErrorProgram(StringRef message, const Tensor &debugTensor, const DebugContext &dc)
    : Program(makeNode(Kind::Sequence, dc)) {
  setChildren(mutableNode(), {PrintTensor(message, debugTensor, DebugContext(dc, "debugTensor")),
                              Abort(message.str(), DebugContext(dc, "error"))});
}

namespace {

// One line per node, indented by its depth; a switch's cases under labels.
class Dumper : public detail::ProgramVisitor<unsigned> { // the node's indentation
public:
  Dumper(const detail::GraphState &graph, std::ostream &out) : graph_(graph), out_(out) {}

  bool enter(const ProgramNode &n, unsigned &indent) {
    indent = childIndent_;
    out_ << margin(indent) << detail::kindName(n.kind);
    if (!n.name.empty()) out_ << " '" << n.name << "'";
    if (n.kind == Kind::Execute) {
      const bool known = n.id < graph_.computeSets.size();
      out_ << " compute set " << n.id;
      if (known && !graph_.computeSets[n.id].name.empty()) out_ << " '" << graph_.computeSets[n.id].name << "'";
    }
    if (n.kind == Kind::Repeat) out_ << " x" << n.id;
    if (n.kind == Kind::Call) out_ << " function " << n.id;
    if (n.kind == Kind::FunctionLoad) out_ << " function " << n.caseValues[0] << " from function buffer " << n.id;
    if (!n.text.empty()) out_ << " \"" << n.text << "\"";
    for (const Tensor &t : n.tensors) out_ << " " << detail::tensorImpl(t).describe();
    if (n.kind == Kind::StreamToTensor || n.kind == Kind::TensorToStream) out_ << " stream '" << n.stream.handle() << "'";
    out_ << "\n";
    return true;
  }

  void beforeChild(const ProgramNode &n, std::size_t c, unsigned &indent) {
    childIndent_ = indent + 1;
    // A switch's children are its default then its cases, in the order added.
    if (n.kind != Kind::Switch) return;
    out_ << margin(indent + 1)
         << (c == 0 ? std::string("default:") : "case " + std::to_string(n.caseValues[c - 1]) + ":") << "\n";
    childIndent_ = indent + 2;
  }

private:
  // Two spaces a level; lines deeper than kDeepestIndent levels say their level instead,
  // so the dump of a deep program grows with its size, not with the square of its depth.
  static constexpr unsigned kDeepestIndent = 64;
  static std::string margin(unsigned indent) {
    if (indent <= kDeepestIndent) return std::string(2 * indent, ' ');
    return std::string(2 * kDeepestIndent, ' ') + "[level " + std::to_string(indent) + "] ";
  }

  const detail::GraphState &graph_;
  std::ostream &out_;
  unsigned childIndent_ = 0; // of the node entered next
};

} // namespace

void dumpProgram(const Graph &graph, const Program &program, std::ostream &out) {
  Dumper dumper(detail::graphState(graph), out);
  detail::walkProgram(program, dumper);
}

} // namespace program
} // namespace poplar
