#include "VertexKernel.hpp"

#include <popdsl_codelet/VertexRegistration.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstring>

#include "AlignedBytes.hpp"
#include "GraphState.hpp"
#include "TensorImpl.hpp"
#include "ThreadPool.hpp"
#include "TypeInfo.hpp"
#include "VertexFaults.hpp"

namespace poplar::detail {

namespace {

// How a field is bound, in the kernel's parameters.
enum class Binding : std::uint64_t { None, Edges, Value };

// The memory layout Vertex.hpp gives vector fields.
struct Span {
  void *data;
  std::size_t size;
};

std::string describeVertex(const VertexClass &cls, unsigned id) {
  return "vertex '" + cls.name + "' (id " + std::to_string(id) + ")";
}

using Buffer = AlignedBytes;

Buffer zeroedBuffer(std::size_t bytes, std::size_t align) {
  Buffer buffer = alignedBytes(bytes, std::max<std::size_t>(align, 64));
  std::memset(buffer.get(), 0, bytes);
  return buffer;
}

// One compiled vertex: its storage with fields bound, plus the views that must
// be gathered into scratch before compute() and scattered back after it.
class VertexInstance {
public:
  VertexInstance(std::shared_ptr<const VertexClass> cls, unsigned id, unsigned tile)
      : cls_(std::move(cls)), id_(id), tile_(tile), storage_(zeroedBuffer(cls_->size, cls_->align)),
        where_(describeVertex(*cls_, id_) + " on tile " + std::to_string(tile_)) {}

  // Where the vertex reads and writes operand `a`: in place when it is one
  // run of suitably aligned elements, else a scratch copy.
  void *bind(const Access &a, const VertexField &field) {
    const auto address = reinterpret_cast<std::uintptr_t>(a.data());
    if (a.numElements > 0 && a.contiguous() && address % field.minAlign == 0) return a.data();
    buffers_.push_back(zeroedBuffer(a.numElements * a.elemSize, field.minAlign));
    Staged s{a, buffers_.back().get(), field.kind != FieldKind::Input};
    staged_.push_back(s);
    return s.scratch;
  }
  // A buffer of this vertex holding `bytes` (constant edges, plain Vector fields).
  void *own(const std::vector<std::uint8_t> &bytes, unsigned align) {
    buffers_.push_back(zeroedBuffer(bytes.size(), align));
    if (!bytes.empty()) std::memcpy(buffers_.back().get(), bytes.data(), bytes.size());
    owned_.emplace_back(buffers_.back().get(), bytes.size());
    return buffers_.back().get();
  }
  // The vectors of list field `field`.
  Span *spans(std::size_t n, std::size_t field) {
    buffers_.push_back(zeroedBuffer(n * sizeof(Span), alignof(Span)));
    lists_.push_back({field, reinterpret_cast<Span *>(buffers_.back().get()), n});
    return lists_.back().spans;
  }
  void store(const VertexField &field, const void *bytes, std::size_t size) {
    std::memcpy(storage_.get() + field.offset, bytes, size);
  }
  // Keeps the bound fields and owned values, which reset() restores.
  void saveInitialState() {
    initial_.clear();
    initial_.emplace_back(storage_.get(), std::vector<std::uint8_t>(storage_.get(), storage_.get() + cls_->size));
    for (const auto &[data, size] : owned_) initial_.emplace_back(data, std::vector<std::uint8_t>(data, data + size));
  }
  void reset() const {
    for (const auto &[data, bytes] : initial_) std::memcpy(data, bytes.data(), bytes.size());
  }

  const VertexClass &vertexClass() const { return *cls_; }
  // Runs compute() of `checked` instead, the class compiled with checks on every field
  // access (emulator.checkVertexAccess), over the same fields.
  void useCheckedClass(std::shared_ptr<const VertexClass> checked) {
    if (!checked) return; // codelets from a codelet object: no source to compile with checks
    bool sameLayout = checked->size == cls_->size && checked->fields.size() == cls_->fields.size();
    for (std::size_t i = 0; sameLayout && i < cls_->fields.size(); ++i)
      sameLayout = checked->fields[i].offset == cls_->fields[i].offset;
    if (!sameLayout)
      throw graph_program_compilation_error(describeVertex(*cls_, id_) +
                                            ": its class compiled with access checks has another layout");
    cls_ = std::move(checked);
  }

  // "vertex 'X' (id 3) on tile 1", for messages and fault reports.
  const std::string &where() const { return where_; }

  void run() const {
    for (const Staged &s : staged_) s.access.gather(s.scratch); // outputs too: unwritten elements keep their values
    char message[512] = {0};
    const int result = cls_->run(storage_.get(), message, sizeof message);
    for (const Staged &s : staged_)
      if (s.writeBack) s.access.scatter(s.scratch);
    if (result == 1) throw application_runtime_error(where_ + " returned false from compute()");
    if (result == 3) {
      popdsl_access_fault fault;
      std::memcpy(&fault, message, sizeof fault);
      throw application_runtime_error(where_ + " indexed " + outOfBounds(fault) +
                                      " (emulator.checkVertexAccess): compute() stopped there");
    }
    if (result != 0) throw application_runtime_error(where_ + " threw from compute(): " + message);
  }

private:
  struct Staged {
    Access access;
    std::uint8_t *scratch;
    bool writeBack;
  };
  struct List {
    std::size_t field;
    Span *spans;
    std::size_t size;
  };

  // "element 5 of field 'out', which has 4 elements" for the vector a checked access went through:
  // a field in the vertex's storage, or one vector of a list field.
  std::string outOfBounds(const popdsl_access_fault &fault) const {
    const auto at = reinterpret_cast<std::uintptr_t>(fault.vector);
    const auto index = static_cast<std::ptrdiff_t>(fault.index); // a negative int index wrapped around
    std::string field = "a field";
    const auto storage = reinterpret_cast<std::uintptr_t>(storage_.get());
    for (const VertexField &f : cls_->fields)
      if (at == storage + f.offset) field = "field '" + f.name + "'";
    for (const List &l : lists_) {
      const auto first = reinterpret_cast<std::uintptr_t>(l.spans);
      if (at >= first && at < first + l.size * sizeof(Span))
        field = "field '" + cls_->fields[l.field].name + "'[" + std::to_string((at - first) / sizeof(Span)) + "]";
    }
    return "element " + std::to_string(index) + " of " + field + ", which has " + std::to_string(fault.size) +
           (fault.size == 1 ? " element" : " elements");
  }

  std::shared_ptr<const VertexClass> cls_;
  unsigned id_, tile_;
  Buffer storage_;
  std::string where_; // "vertex 'X' (id 3) on tile 1"
  std::vector<List> lists_;
  std::vector<Buffer> buffers_;
  std::vector<Staged> staged_;
  std::vector<std::pair<std::uint8_t *, std::size_t>> owned_;          // plain Vector fields, constants
  std::vector<std::pair<std::uint8_t *, std::vector<std::uint8_t>>> initial_;
};

// What a vertex kernel compiles to: runs the vertex; TileGroups finds it in the
// std::function to reset it when the engine loads.
struct VertexRunner {
  std::shared_ptr<VertexInstance> vertex;
  void operator()() const { vertex->run(); }
};

struct FieldParams {
  Binding binding = Binding::None;
  std::vector<std::uint64_t> operands; // edges: operand index per element (rank 0/1: one)
  std::vector<std::uint8_t> value;     // Binding::Value: the bytes
  bool list = false;                   // Binding::Value: a Vector field (else one element)
};

struct VertexParams {
  std::string libraryKey, className;
  VertexPlacement placement;
  std::vector<FieldParams> fields;
};

VertexParams readParams(ByteReader &r) {
  VertexParams p;
  p.libraryKey = r.str();
  p.className = r.str();
  p.placement.vertexId = static_cast<unsigned>(r.u64());
  p.placement.tile = static_cast<unsigned>(r.u64());
  p.placement.hasPerfEstimate = r.boolean();
  p.placement.cycles = r.u64();
  p.placement.flops = r.u64();
  p.fields.resize(r.count(8));
  for (FieldParams &f : p.fields) {
    const std::uint64_t binding = r.u64();
    if (binding > static_cast<std::uint64_t>(Binding::Value)) r.corrupt();
    f.binding = static_cast<Binding>(binding);
    f.operands.resize(r.count(8));
    for (auto &o : f.operands) o = r.u64();
    f.value = r.raw();
    f.list = r.boolean();
  }
  return p;
}

KernelCompile vertexKernelFactory(ByteReader &r) {
  VertexParams p = readParams(r);
  std::shared_ptr<const VertexClass> cls = findLoadedVertexClass(p.libraryKey, p.className);
  if (!cls)
    throw poplar_error("Vertex class '" + p.className +
                       "' is not loaded: the codelets that define it were not added to this graph");
  if (p.fields.size() != cls->fields.size()) r.corrupt();
  return [cls, p = std::move(p)](const std::vector<Access> &operands) -> std::function<void()> {
    auto vertex = std::make_shared<VertexInstance>(cls, p.placement.vertexId, p.placement.tile);
    for (std::size_t i = 0; i < cls->fields.size(); ++i) {
      const VertexField &field = cls->fields[i];
      const FieldParams &f = p.fields[i];
      if (f.binding == Binding::None) continue;
      if (f.binding == Binding::Value) {
        if (field.isEdge() || f.list) {
          void *data = vertex->own(f.value, field.minAlign);
          const std::size_t count = f.value.size() / field.elementSize;
          if (field.rank == 0) vertex->store(field, &data, sizeof data);
          else {
            const Span span{data, count};
            vertex->store(field, &span, sizeof span);
          }
        } else {
          vertex->store(field, f.value.data(), std::min<std::size_t>(f.value.size(), field.elementSize));
        }
        continue;
      }
      if (field.rank == 2) {
        Span *spans = vertex->spans(f.operands.size(), i);
        for (std::size_t k = 0; k < f.operands.size(); ++k) {
          const Access &a = operands.at(f.operands[k]);
          spans[k] = Span{vertex->bind(a, field), a.numElements};
        }
        const Span list{spans, f.operands.size()};
        vertex->store(field, &list, sizeof list);
        continue;
      }
      const Access &a = operands.at(f.operands.at(0));
      void *data = vertex->bind(a, field);
      if (field.rank == 0) vertex->store(field, &data, sizeof data);
      else {
        const Span span{data, a.numElements};
        vertex->store(field, &span, sizeof span);
      }
    }
    vertex->saveInitialState();
    return VertexRunner{vertex};
  };
}

const KernelKind kVertexKernel(kVertexKernelKind, vertexKernelFactory);

// Element ranges a vertex writes, for finding two vertices that write one element.
struct WrittenRange {
  unsigned var;
  std::int64_t begin, end;
  unsigned vertex;
};

void addWrittenRanges(const Tensor &t, unsigned vertex, std::vector<WrittenRange> &out) {
  tensorImpl(t).forEachRun([&](const Run &r) {
    if (r.stride == 1 || r.count == 1) {
      out.push_back({r.var, r.start, r.start + static_cast<std::int64_t>(r.count), vertex});
    } else if (r.stride == -1) {
      out.push_back({r.var, r.start - static_cast<std::int64_t>(r.count) + 1, r.start + 1, vertex});
    } else {
      for (std::size_t k = 0; k < r.count; ++k) {
        const std::int64_t e = r.start + static_cast<std::int64_t>(k) * r.stride;
        out.push_back({r.var, e, e + 1, vertex});
      }
    }
  });
}

// Merges sorted ranges of one owner that touch; ranges of different owners are disjoint
// once checkNoConflictingWrites has passed.
std::vector<WrittenRange> merged(std::vector<WrittenRange> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const WrittenRange &a, const WrittenRange &b) {
    return a.var != b.var ? a.var < b.var : a.begin < b.begin;
  });
  std::vector<WrittenRange> out;
  for (const WrittenRange &r : ranges) {
    if (!out.empty() && out.back().var == r.var && out.back().vertex == r.vertex && r.begin <= out.back().end)
      out.back().end = std::max(out.back().end, r.end);
    else
      out.push_back(r);
  }
  return out;
}

void checkNoConflictingWrites(const GraphState &g, const ComputeSetInfo &cs, std::vector<WrittenRange> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const WrittenRange &a, const WrittenRange &b) {
    return a.var != b.var ? a.var < b.var : a.begin < b.begin;
  });
  for (std::size_t i = 1, reach = 0; i < ranges.size(); ++i) {
    const WrittenRange &a = ranges[reach], &b = ranges[i];
    if (a.var == b.var && b.begin < a.end && a.vertex != b.vertex) {
      const VertexInfo &va = g.vertices[a.vertex], &vb = g.vertices[b.vertex];
      throw graph_connection_error("Compute set '" + cs.name + "': " + describeVertex(*va.cls, a.vertex) +
                                   " and " + describeVertex(*vb.cls, b.vertex) + " both write element " +
                                   std::to_string(b.begin) + " of variable '" + g.vars->vars[b.var].name + "'");
    }
    if (b.var != a.var || b.end > a.end) reach = i;
  }
}

} // namespace

std::optional<VertexPlacement> vertexPlacement(const Kernel &k) {
  if (k.kind != kVertexKernelKind || k.params.empty()) return std::nullopt;
  ByteReader r(k.params, "the parameters of a vertex kernel");
  r.str();
  r.str();
  VertexPlacement p;
  p.vertexId = static_cast<unsigned>(r.u64());
  p.tile = static_cast<unsigned>(r.u64());
  p.hasPerfEstimate = r.boolean();
  p.cycles = r.u64();
  p.flops = r.u64();
  return p;
}

std::vector<std::vector<bool>> vertexReadsWrittenByOthers(const std::vector<Kernel> &kernels) {
  std::vector<WrittenRange> ranges;
  for (unsigned k = 0; k < kernels.size(); ++k)
    if (vertexPlacement(kernels[k]))
      for (const Tensor &t : kernels[k].writes) addWrittenRanges(t, k, ranges);
  ranges = merged(std::move(ranges));
  std::vector<std::vector<bool>> out;
  for (unsigned k = 0; k < kernels.size(); ++k) {
    out.emplace_back(kernels[k].reads.size(), false);
    if (ranges.empty() || !vertexPlacement(kernels[k])) continue;
    for (std::size_t i = 0; i < kernels[k].reads.size(); ++i) {
      std::vector<WrittenRange> read;
      addWrittenRanges(kernels[k].reads[i], k, read);
      for (const WrittenRange &r : read) {
        // The last written range starting before r ends; earlier ones end earlier still.
        auto it = std::lower_bound(ranges.begin(), ranges.end(), r, [](const WrittenRange &a, const WrittenRange &b) {
          return a.var != b.var ? a.var < b.var : a.begin < b.end;
        });
        for (; it != ranges.begin(); ) {
          --it;
          if (it->var != r.var || it->end <= r.begin) break;
          if (it->vertex != k) out[k][i] = true;
        }
        if (out[k][i]) break;
      }
    }
  }
  return out;
}

void materializeVertices(GraphState &g) {
  std::vector<std::vector<WrittenRange>> written(g.computeSets.size());
  for (unsigned id = 0; id < g.vertices.size(); ++id) {
    const VertexInfo &v = g.vertices[id];
    const VertexClass &cls = *v.cls;
    ComputeSetInfo &cs = g.computeSets[v.computeSet];
    const std::string where = "Compute set '" + cs.name + "': " + describeVertex(cls, id);
    if (v.tile < 0)
      throw invalid_tile_mapping(where + " has no tile: call Graph::setTileMapping(vertex, tile)");
    std::vector<Tensor> reads, writes;
    std::vector<std::pair<bool, std::size_t>> edgeSlots; // (is a write, index) per edge, in field order
    std::vector<std::vector<std::pair<bool, std::size_t>>> fieldEdges(cls.fields.size());
    for (std::size_t i = 0; i < cls.fields.size(); ++i) {
      const VertexField &field = cls.fields[i];
      const VertexFieldState &f = v.fields[i];
      const std::string fieldName = "field '" + field.name + "'";
      if (!field.isEdge() || f.hasValue) continue;
      if (field.rank == 2 && !f.sized)
        throw graph_connection_error(where + ": " + fieldName + " is not connected (its length was never set)");
      if (f.edges.empty() || (field.rank < 2 && !f.edges[0].valid()))
        throw graph_connection_error(where + ": " + fieldName + " is not connected");
      const bool isWrite = field.kind != FieldKind::Input;
      for (std::size_t k = 0; k < f.edges.size(); ++k) {
        const Tensor &t = f.edges[k];
        if (!t.valid())
          throw graph_connection_error(where + ": element " + std::to_string(k) + " of " + fieldName +
                                       " is not connected");
        auto &list = isWrite ? writes : reads;
        fieldEdges[i].emplace_back(isWrite, list.size());
        list.push_back(t.flatten());
        if (isWrite) addWrittenRanges(t, id, written[v.computeSet]);
      }
    }
    // A registered estimator sees the vertex once its connections are checked.
    VertexPerfEstimate estimate(v.cycles, v.flops);
    std::optional<VertexPerfEstimate> registered;
    if (!v.hasPerfEstimate && (registered = registeredPerfEstimate(g, id))) estimate = *registered;
    ByteWriter w;
    w.str(cls.libraryKey).str(cls.name).u64(id).u64(static_cast<std::uint64_t>(v.tile))
        .boolean(v.hasPerfEstimate || registered.has_value()).u64(estimate.cycles).u64(estimate.flops)
        .u64(cls.fields.size());
    for (std::size_t i = 0; i < cls.fields.size(); ++i) {
      const VertexFieldState &f = v.fields[i];
      const Binding binding = f.hasValue ? Binding::Value : fieldEdges[i].empty() ? Binding::None : Binding::Edges;
      w.u64(static_cast<std::uint64_t>(binding)).u64(fieldEdges[i].size());
      for (const auto &[isWrite, index] : fieldEdges[i]) w.u64(isWrite ? reads.size() + index : index);
      w.raw(f.value).boolean(cls.fields[i].rank > 0);
    }
    cs.kernels.at(v.kernelIndex) = makeKernel(kVertexKernelKind, std::move(reads), std::move(writes), w.take(), cls.name);
  }
  for (std::size_t cs = 0; cs < written.size(); ++cs)
    if (!written[cs].empty()) checkNoConflictingWrites(g, g.computeSets[cs], std::move(written[cs]));
}

void TileGroups::add(unsigned tile, std::function<void()> vertex, std::uint64_t elements) {
  const auto it = std::lower_bound(tileIds_.begin(), tileIds_.end(), tile);
  const auto index = static_cast<std::size_t>(it - tileIds_.begin());
  if (it == tileIds_.end() || *it != tile) {
    tileIds_.insert(it, tile);
    tiles_.emplace(tiles_.begin() + static_cast<std::ptrdiff_t>(index));
  }
  const auto *runner = vertex.target<VertexRunner>();
  const char *where = runner ? runner->vertex->where().c_str() : "a vertex";
  tiles_[index].push_back({std::move(vertex), where});
  ++vertices_;
  elements_ += elements;
}

Access TileGroups::snapshot(const Access &live) {
  snapshots_.emplace_back(live, std::vector<std::uint8_t>(live.numElements * live.elemSize));
  Access copy = live;
  copy.segments = {Segment{snapshots_.back().second.data(), live.numElements, static_cast<std::ptrdiff_t>(live.elemSize)}};
  return copy;
}

void TileGroups::checkVertexAccess(const GraphState &g) {
  for (auto &tile : tiles_)
    for (auto &vertex : tile)
      if (auto *runner = vertex.run.target<VertexRunner>())
        runner->vertex->useCheckedClass(checkedVertexClass(g, runner->vertex->vertexClass()));
}

void TileGroups::reset() {
  for (const auto &tile : tiles_)
    for (const auto &vertex : tile)
      if (const auto *runner = vertex.run.target<VertexRunner>()) runner->vertex->reset();
}

void TileGroups::run(const std::string &computeSet) {
  // Below these sizes waking the pool costs more than it saves.
  constexpr std::uint64_t kParallelVertices = 32, kParallelElements = 16384;
  const auto runTile = [this, &computeSet](std::size_t t) {
    RunningVertices running(computeSet.c_str()); // for fault reports
    for (const auto &vertex : tiles_[t]) {
      running.now(vertex.where);
      vertex.run();
    }
  };
  for (auto &[live, copy] : snapshots_) live.gather(copy.data());
  try {
    if (tiles_.size() > 1 && (vertices_ >= kParallelVertices || elements_ >= kParallelElements))
      ThreadPool::instance().parallelFor(tiles_.size(), [&](std::size_t t, unsigned) { runTile(t); });
    else
      for (std::size_t t = 0; t < tiles_.size(); ++t) runTile(t);
  } catch (const application_runtime_error &e) {
    throw application_runtime_error("Compute set '" + computeSet + "': " + e.what());
  }
}

} // namespace poplar::detail
