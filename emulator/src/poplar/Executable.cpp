// compileGraph and the serialized form of an Executable.
//
// File layout: magic, format version, the sections ("target", "graph", "programs",
// "options"; each a name and a byte string), then an FNV-1a checksum of everything
// before it. Tensors are written as their views (type, shape, variable blocks);
// kernels as (kind, display name, reads, writes, parameters) and re-made through
// the kernel registry (Kernel.hpp) when read. The graph holds the codelet sources
// before the compute sets whose vertices use them; Executable::deserialize compiles
// them again (or finds them in the codelet cache) and loads them into the process, so
// it runs the file's C++: serializedExecutableCodelets names them without compiling,
// for callers (popdsl's Session.load) that ask before trusting a file.
#include <poplar/Executable.hpp>
#include <poplar/exceptions.hpp>

#include <cstdint>
#include <istream>
#include <iterator>
#include <map>
#include <ostream>
#include <sstream>

#include "Bytes.hpp"
#include "ExecutableState.hpp"
#include "GraphOwnership.hpp"
#include "ProgramNode.hpp"
#include "ProgramWalk.hpp"
#include "TensorImpl.hpp"
#include "TypeInfo.hpp"
#include "VertexKernel.hpp"

namespace poplar {
namespace detail {

namespace {

const char kMagic[] = "POPDSL-EXECUTABLE";
// 2: kernel cost shapes; 3: codelet sources; 4: convolution costs; 5: the standard FNV-1a
// offset basis (also the Loop program)
constexpr std::uint64_t kFormatVersion = 8;
const char *const kSectionNames[] = {"target", "graph", "programs", "options"};

std::uint64_t fnv1a(const std::string &bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string asString(const ByteWriter &w) {
  return std::string(reinterpret_cast<const char *>(w.bytes().data()), w.bytes().size());
}

// ------------------------------------------------------------------ writing

void writeTensor(ByteWriter &w, const Tensor &t) {
  if (!t.valid()) throw poplar_error("Executable::serialize: a program or kernel refers to an invalid tensor");
  const TensorImpl &impl = detail::tensorImpl(t);
  w.type(impl.type).sizes(impl.shape).u64(impl.blocks.size());
  for (const Block &b : impl.blocks) {
    w.u64(b.var).i64(b.offset).sizes(b.dims).u64(b.strides.size());
    for (std::int64_t s : b.strides) w.i64(s);
  }
}

void writeTensors(ByteWriter &w, const std::vector<Tensor> &ts) {
  w.u64(ts.size());
  for (const Tensor &t : ts) writeTensor(w, t);
}

void writeArguments(ByteWriter &w, const std::vector<HostFunctionArgument> &args) {
  w.u64(args.size());
  for (const auto &a : args) w.type(std::get<0>(a)).u64(std::get<1>(a));
}

// A node is its kind, name and number of children, the children, then its fields.
class ProgramWriter : public ProgramVisitor<NoNodeState> {
public:
  explicit ProgramWriter(ByteWriter &w) : w_(w) {}

  bool enter(const ProgramNode &n, NoNodeState &) {
    w_.u64(static_cast<unsigned>(n.kind)).str(n.name).u64(n.children.size());
    return true;
  }

  void leave(const ProgramNode &n, NoNodeState &) {
    writeTensors(w_, n.tensors);
    w_.u64(n.caseValues.size());
    for (std::int32_t v : n.caseValues) w_.i64(v);
    w_.str(n.stream.handle()).u64(n.id).str(n.text);
    const PrintTensorFmt &f = n.format;
    w_.u64(f.summariseThreshold).u64(f.edgeItems).u64(f.maxLineWidth).u64(f.digits)
        .u64(static_cast<unsigned>(f.floatFormat)).i64(f.separator).i64(f.openBracket).i64(f.closeBracket);
  }

private:
  ByteWriter &w_;
};

void writeProgram(ByteWriter &w, const program::Program &p) {
  ProgramWriter writer(w);
  walkProgram(p, writer);
}

// Streams, host functions and compute sets come before the functions whose
// programs refer to them.
std::string graphSection(const GraphState &g) {
  ByteWriter w;
  w.u64(g.vars->vars.size());
  for (const Variable &v : g.vars->vars) {
    w.type(v.type).sizes(v.shape).str(v.name).boolean(v.isConstant).raw(v.data).u64(v.mapping.size());
    for (const auto &m : v.mapping) w.u64(m.first).u64(m.second.first).u64(m.second.second);
  }
  w.u64(g.streams.size());
  for (const auto &kv : g.streams) {
    const DataStream &s = kv.second;
    w.str(s.handle()).type(s.elementType()).u64(s.numElements()).u64(static_cast<unsigned>(s.type()))
        .u64(static_cast<unsigned>(s.replicatedMode()));
  }
  w.u64(g.remoteBuffers.size());
  for (const auto &kv : g.remoteBuffers) {
    const RemoteBuffer &b = kv.second;
    w.str(b.handle()).type(b.elementType()).u64(b.numElements()).u64(b.getRepeats())
        .boolean(b.isRearrangeOnHost()).boolean(b.isOptimisedForMemory());
  }
  w.u64(g.hostFunctions.size());
  for (const HostFunctionInfo &h : g.hostFunctions) {
    w.str(h.handle);
    writeArguments(w, h.ins);
    writeArguments(w, h.outs);
  }
  w.u64(g.codelets.size());
  for (const CodeletSource &c : g.codelets) w.str(c.name).str(c.text).str(c.flags).str(c.quoteDir);
  w.u64(g.computeSets.size());
  for (const ComputeSetInfo &cs : g.computeSets) {
    w.str(cs.name).u64(cs.kernels.size());
    for (const Kernel &k : cs.kernels) {
      w.str(k.kind).str(k.vertexType).u64(k.cyclesPerVector).u64(static_cast<std::uint64_t>(k.costShape))
          .u64(k.multiplyAddsPerOutput);
      writeTensors(w, k.reads);
      writeTensors(w, k.writes);
      w.raw(k.params);
    }
  }
  for (const auto *handles : {&g.hostWrites, &g.hostReads}) {
    w.u64(handles->size());
    for (const auto &kv : *handles) {
      w.str(kv.first);
      writeTensor(w, kv.second);
    }
  }
  w.i64(g.hwSeedsVar);
  w.u64(g.replicationFactor).u64(g.replicaIndexVars.size());
  for (unsigned id : g.replicaIndexVars) w.u64(id);
  // Before the functions, whose bodies may load one another's code.
  w.u64(g.functionBuffers.size());
  for (unsigned f : g.functionBuffers) w.u64(f);
  w.u64(g.functions.size());
  for (const auto &f : g.functions) writeProgram(w, f);
  return asString(w);
}

// ------------------------------------------------------------------ reading

// Reads the parts of a graph in the order graphSection wrote them.
class GraphReader {
public:
  GraphReader(ByteReader &r, GraphState &g) : r_(r), g_(g) {}

  unsigned enumValue(unsigned last) {
    const std::uint64_t v = r_.u64();
    if (v > last) r_.corrupt();
    return static_cast<unsigned>(v);
  }

  Tensor tensor() {
    auto impl = std::make_shared<TensorImpl>();
    impl->type = r_.type();
    impl->shape = r_.sizes();
    impl->vars = g_.vars;
    impl->blocks.resize(r_.count(8));
    // Element counts are checked for overflow: crafted dims could wrap to a matching count.
    const auto whatTensor = [] { return std::string("Cannot read an executable: a tensor"); };
    std::size_t elements = 0;
    for (Block &b : impl->blocks) {
      b.var = static_cast<unsigned>(r_.u64());
      b.offset = r_.i64();
      b.dims = r_.sizes();
      b.strides.resize(r_.count(8));
      for (auto &s : b.strides) s = r_.i64();
      checkBlock(b, impl->type);
      if (__builtin_add_overflow(elements, checkedNumElements(b.dims, impl->type, whatTensor), &elements))
        r_.corrupt();
    }
    if (elements != checkedNumElements(impl->shape, impl->type, whatTensor)) r_.corrupt();
    return makeTensor(std::move(impl));
  }

  std::vector<Tensor> tensors() {
    std::vector<Tensor> ts(r_.count(8));
    for (auto &t : ts) t = tensor();
    return ts;
  }

  std::vector<HostFunctionArgument> arguments() {
    std::vector<HostFunctionArgument> args(r_.count(16));
    for (auto &a : args) {
      const Type type = r_.type();
      a = HostFunctionArgument(type, static_cast<std::size_t>(r_.u64()));
    }
    return args;
  }

  // Reads what writeProgram wrote, keeping the nodes whose children are still being
  // read on a stack (as deep as the tree) rather than recursing.
  program::Program program() {
    struct Open {
      std::shared_ptr<ProgramNode> node;
      std::size_t nextChild;
    };
    std::vector<Open> open;
    open.push_back({nodeStart(), 0});
    for (;;) {
      Open &top = open.back();
      if (top.nextChild < top.node->children.size()) {
        if (open.size() == kMaxProgramDepth) r_.corrupt();
        open.push_back({nodeStart(), 0});
        continue;
      }
      nodeEnd(*top.node);
      program::Program done = programFromNode(std::move(top.node));
      open.pop_back();
      if (open.empty()) return done;
      Open &parent = open.back();
      adoptDepth(*parent.node, done);
      parent.node->children[parent.nextChild++] = std::move(done);
    }
  }

  // Reads what graphSection wrote. With `codeletNames`, only up to the codelets, whose
  // names it collects without compiling or loading them.
  void readGraph(std::vector<std::string> *codeletNames = nullptr) {
    auto &vars = g_.vars->vars;
    vars.resize(r_.count(8));
    for (Variable &v : vars) {
      v.type = r_.type();
      if (!typeInfo(v.type).supportedOnDevice) r_.corrupt();
      v.shape = r_.sizes();
      v.numElements = checkedNumElements(v.shape, v.type, [] { return std::string("Cannot read an executable: a variable"); });
      v.name = r_.str();
      v.isConstant = r_.boolean();
      v.data = r_.raw();
      if (!v.data.empty() && v.data.size() != v.numElements * typeSize(v.type)) r_.corrupt();
      for (std::size_t i = 0, n = r_.count(24); i < n; ++i) {
        const std::size_t begin = r_.u64(), end = r_.u64();
        const unsigned tile = static_cast<unsigned>(r_.u64());
        if (begin >= end || end > v.numElements || tile >= g_.target.getNumTiles()) r_.corrupt();
        v.mapRange(begin, end, tile);
      }
    }
    for (std::size_t i = 0, n = r_.count(40); i < n; ++i) {
      std::string handle = r_.str();
      const Type type = r_.type();
      const std::size_t elements = r_.u64();
      const auto kind = static_cast<DataStreamType>(enumValue(static_cast<unsigned>(DataStreamType::DeviceToHostBuffer)));
      const auto mode = static_cast<ReplicatedStreamMode>(enumValue(static_cast<unsigned>(ReplicatedStreamMode::BROADCAST)));
      g_.streams[handle] = DataStream(handle, type, elements, kind, mode);
    }
    for (std::size_t i = 0, n = r_.count(40); i < n; ++i) {
      std::string handle = r_.str();
      const Type type = r_.type();
      const std::size_t elements = r_.u64(), repeats = r_.u64();
      const bool rearrange = r_.boolean(), optimise = r_.boolean();
      if (handle.empty() || elements == 0 || repeats == 0 || remoteBufferBytes(type, elements, repeats) == 0)
        r_.corrupt();
      g_.remoteBuffers[handle] = RemoteBuffer(handle, type, elements, repeats, rearrange, optimise);
    }
    g_.hostFunctions.resize(r_.count(24));
    for (HostFunctionInfo &h : g_.hostFunctions) {
      h.handle = r_.str();
      h.ins = arguments();
      h.outs = arguments();
    }
    // Codelets are loaded before the vertex kernels that name their classes.
    for (std::size_t i = 0, n = r_.count(32); i < n; ++i) {
      CodeletSource c;
      c.name = r_.str();
      c.text = r_.str();
      c.flags = r_.str();
      c.quoteDir = r_.str();
      if (codeletNames) codeletNames->push_back(c.name);
      else g_.addCodelets(c);
    }
    if (codeletNames) return;
    g_.computeSets.resize(r_.count(16));
    for (ComputeSetInfo &cs : g_.computeSets) {
      cs.name = r_.str();
      for (std::size_t i = 0, n = r_.count(8); i < n; ++i) {
        const std::string kind = r_.str(), vertexType = r_.str();
        const auto cyclesPerVector = static_cast<unsigned>(r_.u64());
        const std::uint64_t costShape = r_.u64();
        if (costShape >= kNumCostShapes) r_.corrupt();
        const std::uint64_t multiplyAddsPerOutput = r_.u64();
        std::vector<Tensor> reads = tensors(), writes = tensors();
        cs.kernels.push_back(makeKernel(kind, std::move(reads), std::move(writes), r_.raw(), vertexType));
        cs.kernels.back().cyclesPerVector = cyclesPerVector;
        cs.kernels.back().costShape = static_cast<CostShape>(costShape);
        cs.kernels.back().multiplyAddsPerOutput = multiplyAddsPerOutput;
      }
    }
    for (auto *handles : {&g_.hostWrites, &g_.hostReads})
      for (std::size_t i = 0, n = r_.count(16); i < n; ++i) {
        std::string name = r_.str();
        (*handles)[name] = tensor();
      }
    g_.hwSeedsVar = static_cast<int>(r_.i64());
    if (g_.hwSeedsVar < -1 || g_.hwSeedsVar >= static_cast<int>(vars.size())) r_.corrupt();
    g_.replicationFactor = static_cast<unsigned>(r_.u64());
    if (g_.replicationFactor == 0 || g_.replicationFactor > kMaxTiles) r_.corrupt();
    g_.replicaIndexVars.resize(r_.count(8));
    for (unsigned &id : g_.replicaIndexVars) {
      id = static_cast<unsigned>(r_.u64());
      if (id >= vars.size() || vars[id].numElements != 1 || vars[id].type != UNSIGNED_INT) r_.corrupt();
    }
    g_.functionBuffers.resize(r_.count(8));
    for (unsigned &f : g_.functionBuffers) f = static_cast<unsigned>(r_.u64());
    g_.functions.resize(r_.count(8));
    for (auto &f : g_.functions) f = program();
    for (unsigned f : g_.functionBuffers)
      if (f >= g_.functions.size()) r_.corrupt();
  }

private:
  // A node's kind, name and (still empty) children.
  std::shared_ptr<ProgramNode> nodeStart() {
    auto n = std::make_shared<ProgramNode>();
    n->kind = static_cast<ProgramNode::Kind>(enumValue(static_cast<unsigned>(ProgramNode::Kind::FunctionLoad)));
    n->name = r_.str();
    n->children.resize(r_.count(8));
    return n;
  }

  // The fields after a node's children.
  void nodeEnd(ProgramNode &n) {
    n.tensors = tensors();
    n.caseValues.resize(r_.count(8));
    for (auto &v : n.caseValues) v = static_cast<std::int32_t>(r_.i64());
    const std::string stream = r_.str();
    if (!stream.empty()) {
      const auto it = g_.streams.find(stream);
      if (it == g_.streams.end()) r_.corrupt();
      n.stream = it->second;
    }
    n.id = static_cast<unsigned>(r_.u64());
    n.text = r_.str();
    PrintTensorFmt &f = n.format;
    f.summariseThreshold = static_cast<unsigned>(r_.u64());
    f.edgeItems = static_cast<unsigned>(r_.u64());
    f.maxLineWidth = static_cast<unsigned>(r_.u64());
    f.digits = static_cast<unsigned>(r_.u64());
    f.floatFormat = static_cast<PrintTensorFmt::FloatFormat>(enumValue(3));
    f.separator = static_cast<char>(r_.i64());
    f.openBracket = static_cast<char>(r_.i64());
    f.closeBracket = static_cast<char>(r_.i64());
    checkNode(n);
  }

  void checkBlock(const Block &b, const Type &type) {
    if (b.var >= g_.vars->vars.size() || b.dims.size() != b.strides.size()) r_.corrupt();
    const Variable &v = g_.vars->vars[b.var];
    if (typeSize(v.type) != typeSize(type)) r_.corrupt();
    std::int64_t lo = b.offset, hi = b.offset;
    for (std::size_t d = 0; d < b.dims.size(); ++d) {
      if (b.dims[d] == 0) return; // no elements
      // Crafted dims and strides must not overflow into a reach that looks in bounds.
      std::int64_t reach;
      if (b.dims[d] - 1 > static_cast<std::uint64_t>(INT64_MAX) ||
          __builtin_mul_overflow(static_cast<std::int64_t>(b.dims[d] - 1), b.strides[d], &reach) ||
          __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi))
        r_.corrupt();
    }
    if (lo < 0 || hi >= static_cast<std::int64_t>(v.numElements)) r_.corrupt();
  }

  // The ids and operand counts the Engine relies on.
  void checkNode(const ProgramNode &n) {
    using K = ProgramNode::Kind;
    std::size_t children = 0, tensors = 0;
    switch (n.kind) {
    case K::Sequence: return;
    case K::Execute:
      if (n.id >= g_.computeSets.size()) r_.corrupt();
      break;
    case K::Repeat:
    case K::Loop: children = 1; break;
    case K::RepeatWhileTrue:
    case K::RepeatWhileFalse: children = 2; tensors = 1; break;
    case K::If: children = 2; tensors = 1; break;
    case K::Switch:
      if (n.tensors.size() != 1 || n.children.size() != n.caseValues.size() + 1) r_.corrupt();
      return;
    case K::Copy: tensors = 2; break;
    case K::StreamToTensor:
    case K::TensorToStream:
      tensors = 1;
      if (!n.stream.valid()) r_.corrupt();
      break;
    case K::WriteUndef:
    case K::PrintTensor:
    case K::AbortOnCondition: tensors = 1; break;
    case K::Call:
    case K::Sync:
    case K::Abort: break;
    case K::HostCall:
      if (n.id >= g_.hostFunctions.size()) r_.corrupt();
      tensors = n.tensors.size();
      break;
    case K::CycleStamp: tensors = 1; break;
    case K::CycleCount: children = 1; tensors = 1; break;
    case K::CrossReplica:
      if (n.caseValues.size() < 5) r_.corrupt(); // the Engine decodes and checks the rest
      tensors = 2;
      break;
    case K::RemoteToTensor:
    case K::TensorToRemote:
      if (!g_.remoteBuffers.count(n.text) || n.tensors.empty()) r_.corrupt();
      tensors = std::min<std::size_t>(n.tensors.size(), 2);
      break;
    case K::FunctionLoad:
      if (n.caseValues.size() != 1 || n.caseValues[0] < 0) r_.corrupt(); // the Engine checks the ids
      break;
    }
    if (n.children.size() != children || n.tensors.size() != tensors) r_.corrupt();
  }

  ByteReader &r_;
  GraphState &g_;
};

// The sections of a serialized executable, its frame (checksum, magic, version) checked.
std::map<std::string, std::string> readSections(const std::string &bytes, bool checkPackageHash) {
  if (bytes.size() < 8) throw poplar_error("Executable::deserialize: the data is too short to be an executable");
  const std::string body = bytes.substr(0, bytes.size() - 8);
  ByteReader tail(reinterpret_cast<const std::uint8_t *>(bytes.data()) + body.size(), 8, "an executable");
  if (checkPackageHash && tail.u64() != fnv1a(body))
    throw poplar_error("Executable::deserialize: the checksum does not match; the file is corrupt or truncated");

  ByteReader r(reinterpret_cast<const std::uint8_t *>(body.data()), body.size(), "an executable");
  if (r.str() != kMagic) throw poplar_error("Executable::deserialize: not a popdsl executable");
  const std::uint64_t version = r.u64();
  if (version != kFormatVersion)
    throw poplar_error("Executable::deserialize: format version " + std::to_string(version) +
                       " is not supported (this emulator reads version " + std::to_string(kFormatVersion) + ")");
  std::map<std::string, std::string> sections;
  for (std::size_t i = 0, n = r.count(16); i < n; ++i) {
    std::string name = r.str();
    sections[name] = r.str();
  }
  for (const char *name : kSectionNames)
    if (!sections.count(name))
      throw poplar_error(std::string("Executable::deserialize: the section '") + name + "' is missing");
  return sections;
}

} // namespace

std::vector<std::pair<std::string, std::string>> executableSections(const Executable &exe) {
  const ExecutableState &s = detail::executableState(exe);
  std::ostringstream target;
  s.graph->target.serialize(target);
  ByteWriter programs;
  programs.u64(s.programs.size());
  for (const auto &p : s.programs) writeProgram(programs, p);
  ByteWriter options;
  options.u64(s.options.size());
  for (const auto &kv : s.options) options.str(kv.first).str(kv.second);
  return {{"target", target.str()}, {"graph", graphSection(*s.graph)}, {"programs", asString(programs)},
          {"options", asString(options)}};
}

std::vector<RemoteBuffer> executableRemoteBuffers(const Executable &exe) {
  std::vector<RemoteBuffer> buffers;
  for (const auto &kv : detail::executableState(exe).graph->remoteBuffers) buffers.push_back(kv.second);
  return buffers;
}

std::vector<DataStream> executableStreams(const Executable &exe) {
  std::vector<DataStream> streams;
  for (const auto &kv : detail::executableState(exe).graph->streams) streams.push_back(kv.second);
  return streams;
}

std::vector<HostFunctionInfo> executableHostFunctions(const Executable &exe) {
  return detail::executableState(exe).graph->hostFunctions;
}

const ExecutableState &executableState(const Executable &exe) {
  const auto &state = Internals::executableState(exe);
  if (!state) throw poplar_error("This Executable is empty: make one with compileGraph or Executable::deserialize");
  return *state;
}

std::vector<std::pair<std::string, std::string>> serializedExecutableSections(const std::string &bytes) {
  std::map<std::string, std::string> sections = readSections(bytes, true);
  std::vector<std::pair<std::string, std::string>> ordered;
  for (const char *name : kSectionNames) ordered.emplace_back(name, std::move(sections[name]));
  return ordered;
}

std::vector<std::string> serializedExecutableCodelets(const std::string &bytes) {
  std::map<std::string, std::string> sections = readSections(bytes, true);
  const std::string &graphBytes = sections["graph"];
  ByteReader graph(reinterpret_cast<const std::uint8_t *>(graphBytes.data()), graphBytes.size(),
                   "the 'graph' section of an executable");
  GraphState g; // read into, never compiled: its codelets are only named
  std::istringstream target(sections["target"]);
  g.target = Target(target);
  std::vector<std::string> names;
  GraphReader(graph, g).readGraph(&names);
  return names;
}

} // namespace detail

using detail::ByteReader;
using detail::ByteWriter;
using detail::ExecutableState;

Executable::Executable() = default;
Executable::Executable(std::shared_ptr<const ExecutableState> state) : state_(std::move(state)) {}
Executable::Executable(Executable &&) noexcept = default;
Executable &Executable::operator=(Executable &&) noexcept = default;
Executable::~Executable() = default;

void Executable::serialize(std::ostream &out) const {
  ByteWriter w;
  w.str(detail::kMagic).u64(detail::kFormatVersion);
  const auto sections = detail::executableSections(*this);
  w.u64(sections.size());
  for (const auto &s : sections) w.str(s.first).str(s.second);
  const std::string body = detail::asString(w);
  ByteWriter checksum;
  checksum.u64(detail::fnv1a(body));
  out << body << detail::asString(checksum);
  if (!out) throw poplar_error("Executable::serialize: writing the stream failed");
}

Executable Executable::deserialize(std::istream &in, bool checkPackageHash) {
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::map<std::string, std::string> sections = detail::readSections(bytes, checkPackageHash);
  const auto reader = [&sections](const char *name) {
    const std::string &s = sections[name];
    return ByteReader(reinterpret_cast<const std::uint8_t *>(s.data()), s.size(),
                      std::string("the '") + name + "' section of an executable");
  };

  auto state = std::make_shared<ExecutableState>();
  std::istringstream target(sections["target"]);
  state->graph = std::make_shared<detail::GraphState>();
  state->graph->target = Target(target);

  ByteReader graph = reader("graph");
  detail::GraphReader g(graph, *state->graph);
  g.readGraph();
  ByteReader programs = reader("programs");
  detail::GraphReader p(programs, *state->graph);
  state->programs.resize(programs.count(8));
  for (auto &prog : state->programs) prog = p.program();
  ByteReader options = reader("options");
  for (std::size_t i = 0, n = options.count(16); i < n; ++i) {
    const std::string key = options.str();
    state->options.set(key, options.str());
  }
  for (ByteReader *part : {&graph, &programs, &options})
    if (!part->atEnd()) part->corrupt();
  return Executable(std::move(state));
}

Executable Executable::deserialize(std::unique_ptr<std::istream> in, bool checkPackageHash) {
  if (!in) throw poplar_error("Executable::deserialize: null stream");
  return deserialize(*in, checkPackageHash);
}

Executable compileGraph(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt,
                        ProgressFunc progress, const DebugContext &) {
  if (progress) progress(0, 1);
  auto state = std::make_shared<ExecutableState>();
  detail::materializeVertices(detail::graphState(graph));
  state->graph = detail::graphStatePtr(graph);
  state->programs = progs.vec();
  detail::checkProgramsBelongTo(*state->graph, state->programs);
  state->options = detail::validatedOptions(opt);
  if (progress) progress(1, 1);
  return detail::makeExecutable(std::move(state));
}

Executable compileGraph(Graph &&graph, ArrayRef<program::Program> progs, const OptionFlags &opt,
                        ProgressFunc progress, const DebugContext &dc) {
  return compileGraph(static_cast<const Graph &>(graph), progs, opt, std::move(progress), dc);
}

} // namespace poplar
