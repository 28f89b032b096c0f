// The Graph's codelet and vertex API: addCodelets, addVertex, connect, tile
// mapping, perf estimates and initial values of vertex fields.
#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>

#include <fstream>
#include <sstream>

#include "GraphState.hpp"
#include "TensorImpl.hpp"
#include "TypeInfo.hpp"
#include "VertexKernel.hpp"

namespace poplar {

namespace detail {

bool GraphState::addCodelets(const CodeletSource &source) {
  const std::shared_ptr<const CodeletLibrary> library = loadCodeletLibrary(source);
  for (const std::string &key : codeletKeys)
    if (key == library->key) return false;
  for (const auto &[name, cls] : library->vertices) {
    const auto it = vertexClasses.find(name);
    if (it != vertexClasses.end() && it->second->libraryKey != cls->libraryKey)
      throw graph_program_compilation_error("Codelets '" + source.name + "' define vertex '" + name +
                                            "', which codelets added earlier already define");
  }
  vertexClasses.insert(library->vertices.begin(), library->vertices.end());
  codelets.push_back(source);
  codeletKeys.push_back(library->key);
  return true;
}

} // namespace detail

using detail::FieldKind;
using detail::GraphState;
using detail::VertexClass;
using detail::VertexField;
using detail::VertexFieldState;
using detail::VertexInfo;

namespace {

GraphState &graphOf(const VertexRef &v) {
  GraphState *g = detail::VertexRefAccess::graph(v);
  if (!g || v.getId() >= g->vertices.size())
    throw poplar_error("This VertexRef does not name a vertex: make vertices with Graph::addVertex");
  return *g;
}

// The vertex `v` names in `g`; a vertex of another graph is an error naming `what`.
VertexInfo &vertexOf(GraphState &g, const VertexRef &v, const char *what) {
  if (&graphOf(v) != &g) throw poplar_error(std::string("Graph::") + what + ": the vertex belongs to a different graph");
  return g.vertices[v.getId()];
}

std::string describeVertex(const VertexInfo &v, unsigned id) {
  return "Vertex '" + v.cls->name + "' (id " + std::to_string(id) + ")";
}

std::string fieldList(const VertexClass &cls) {
  std::string names;
  for (const VertexField &f : cls.fields) names += (names.empty() ? "" : ", ") + f.name;
  return names.empty() ? "none" : names;
}

const char *kindName(FieldKind kind) {
  switch (kind) {
  case FieldKind::Input: return "an Input";
  case FieldKind::Output: return "an Output";
  case FieldKind::InOut: return "an InOut";
  case FieldKind::State: return "a plain field";
  case FieldKind::Other: return "a field of a type the host cannot set";
  }
  return "a field";
}

// The vertex, field and field state a FieldRef names, checked against `g`.
struct ResolvedField {
  VertexInfo &vertex;
  const VertexField &field;
  VertexFieldState &state;
  std::string where; // "Vertex 'X' (id 3), field 'in'" for messages
};

ResolvedField resolve(GraphState &g, const FieldRef &ref, const char *what) {
  VertexInfo &v = vertexOf(g, ref.vertex, what);
  if (ref.fieldId >= v.cls->fields.size())
    throw unknown_field(describeVertex(v, ref.vertex.getId()) + " has no field number " + std::to_string(ref.fieldId));
  const VertexField &field = v.cls->fields[ref.fieldId];
  std::string where = describeVertex(v, ref.vertex.getId()) + ", field '" + field.name + "'";
  if (ref.indexed) where += "[" + std::to_string(ref.index) + "]";
  return {v, field, v.fields[ref.fieldId], where};
}

// An edge tensor for `r`: of this graph, of the field's element type, writable for outputs.
void checkEdgeTensor(GraphState &g, const ResolvedField &r, const Tensor &t) {
  if (!r.field.isEdge())
    throw graph_connection_error(r.where + " is " + kindName(r.field.kind) +
                                 ", not an edge: set plain fields with Graph::setInitialValue");
  if (!t.valid()) throw graph_connection_error(r.where + ": the tensor is invalid");
  if (detail::tensorImpl(t).vars != g.vars) throw graph_connection_error(r.where + ": tensor " + detail::tensorImpl(t).describe() + " belongs to a different graph");
  if (t.elementType() != r.field.elementType)
    throw type_error(r.where + " has element type " + r.field.elementType.toString().str() + " but tensor " +
                     detail::tensorImpl(t).describe() + " was connected");
  if (r.field.kind != FieldKind::Input && t.containsConstant())
    throw graph_connection_error(r.where + " is " + kindName(r.field.kind) + " and cannot be connected to constant " +
                                 detail::tensorImpl(t).describe());
}

std::size_t checkedIndex(const ResolvedField &r, const FieldRef &ref) {
  if (r.field.rank != 2)
    throw graph_connection_error(r.where + ": only list fields (VectorList, Vector<Input<Vector<T>>>) can be indexed");
  if (!r.state.sized)
    throw no_size_specified(r.where + ": set the list's length with Graph::setFieldSize before connecting its elements");
  if (ref.index >= r.state.edges.size())
    throw index_error(r.where + ": the list has " + std::to_string(r.state.edges.size()) + " elements", ref.index);
  return ref.index;
}

std::string fileExtension(const std::string &path) {
  const auto dot = path.rfind('.'), slash = path.rfind('/');
  return dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot + 1);
}

std::string absolutePath(const std::string &path) {
  if (!path.empty() && path[0] == '/') return path;
  std::unique_ptr<char, void (*)(void *)> cwd(::realpath(".", nullptr), std::free);
  return cwd ? std::string(cwd.get()) + "/" + path : path;
}

} // namespace

FieldRef VertexRef::operator[](StringRef fieldName) const {
  GraphState &g = graphOf(*this);
  const VertexInfo &v = g.vertices[getId()];
  const int index = v.cls->fieldIndex(fieldName.str());
  if (index < 0)
    throw unknown_field(describeVertex(v, getId()) + " has no field '" + fieldName.str() + "' (its fields: " +
                        fieldList(*v.cls) + ")");
  return FieldRef(*this, static_cast<unsigned>(index));
}

bool Graph::addCodelets(StringRef src, CodeletFileType type, StringRef compileFlags, StringRef) {
  const std::string path = src.str();
  const std::string ext = fileExtension(path);
  if (type == CodeletFileType::Auto)
    type = ext == "c" ? CodeletFileType::CSource
           : ext == "S" || ext == "s" ? CodeletFileType::AsmSource
           : ext == "gp" || ext == "o" ? CodeletFileType::Object
                                        : CodeletFileType::CppSource;
  if (type != CodeletFileType::CppSource && type != CodeletFileType::CSource)
    throw graph_program_compilation_error("Codelets '" + path +
                                          "': the emulator compiles C and C++ codelets with the host compiler; "
                                          "it cannot load IPU assembly, IR or .gp objects");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw graph_program_compilation_error("Cannot read codelet file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string absolute = absolutePath(path);
  const auto slash = absolute.rfind('/');
  return state_->addCodelets({absolute, text.str(), compileFlags.str(), absolute.substr(0, slash)});
}

bool Graph::addCodelets(ArrayRef<std::string> srcs, StringRef compileFlags, StringRef targetName) {
  bool added = false;
  for (const std::string &src : srcs) added = addCodelets(src, CodeletFileType::Auto, compileFlags, targetName) || added;
  return added;
}

bool Graph::addCodelets(std::stringstream &stream, StringRef compileFlags, CodeletFileType type, StringRef) {
  if (type != CodeletFileType::CppSource && type != CodeletFileType::CSource && type != CodeletFileType::Auto)
    throw graph_program_compilation_error("Codelet source text: the emulator compiles only C and C++ codelets");
  return state_->addCodelets({"<codelet source>", stream.str(), compileFlags.str(), ""});
}

bool Graph::hasCodelet(StringRef vertexType) const { return state_->vertexClasses.count(vertexType.str()) != 0; }

VertexRef Graph::addVertex(ComputeSet cs, StringRef vertexType) {
  detail::ComputeSetInfo &info = state_->computeSet(cs.getId());
  const auto it = state_->vertexClasses.find(vertexType.str());
  if (it == state_->vertexClasses.end()) {
    std::string known;
    for (const auto &kv : state_->vertexClasses) known += (known.empty() ? "" : ", ") + kv.first;
    throw unknown_vertex_type("Unknown vertex type '" + vertexType.str() +
                              "': no codelets added to this graph (Graph::addCodelets) define it (known: " +
                              (known.empty() ? "none" : known) + ")");
  }
  VertexInfo v;
  v.cls = it->second;
  v.computeSet = cs.getId();
  v.kernelIndex = info.kernels.size();
  v.fields.resize(v.cls->fields.size());
  detail::Kernel placeholder; // made into the vertex's kernel by compileGraph
  placeholder.kind = detail::kVertexKernelKind;
  placeholder.vertexType = v.cls->name;
  info.kernels.push_back(std::move(placeholder));
  state_->vertices.push_back(std::move(v));
  return detail::VertexRefAccess::make(state_.get(), static_cast<unsigned>(state_->vertices.size() - 1));
}

VertexRef Graph::addVertex(ComputeSet cs, StringRef vertexType, ArrayRef<ConnectionDesc> connections) {
  VertexRef v = addVertex(cs, vertexType);
  for (const ConnectionDesc &c : connections) {
    if (c.isList) connect(v[c.field], ArrayRef<Tensor>(c.tensors));
    else connect(v[c.field], c.tensors.front());
  }
  return v;
}

void Graph::connect(FieldRef field, const Tensor &tensor) {
  const ResolvedField r = resolve(*state_, field, "connect");
  checkEdgeTensor(*state_, r, tensor);
  if (r.field.rank == 2 && field.indexed) {
    r.state.edges[checkedIndex(r, field)] = tensor;
    return;
  }
  if (field.indexed) checkedIndex(r, field);
  if (r.field.rank == 2) { // a 2-D tensor: one row per list element
    if (tensor.rank() != 2)
      throw graph_connection_error(r.where + " is a list of vectors: connect a list of tensors or a 2-D tensor, not " +
                                   detail::tensorImpl(tensor).describe());
    std::vector<Tensor> rows;
    for (std::size_t i = 0; i < tensor.dim(0); ++i) rows.push_back(tensor[i]);
    connect(field, ArrayRef<Tensor>(rows));
    return;
  }
  if (r.field.rank == 0 && tensor.numElements() != 1)
    throw graph_connection_error(r.where + " holds one element but tensor " + detail::tensorImpl(tensor).describe() + " has " +
                                 std::to_string(tensor.numElements()));
  r.state.edges.assign(1, tensor);
  r.state.value.clear();
  r.state.hasValue = false;
}

void Graph::connect(FieldRef field, ArrayRef<Tensor> tensors) {
  const ResolvedField r = resolve(*state_, field, "connect");
  if (r.field.rank != 2 || field.indexed)
    throw graph_connection_error(r.where + " is not a list field (VectorList or Vector<Input<Vector<T>>>): "
                                 "connect one tensor to it");
  for (const Tensor &t : tensors) checkEdgeTensor(*state_, r, t);
  r.state.edges = tensors.vec();
  r.state.sized = true;
  r.state.value.clear();
  r.state.hasValue = false;
}

void Graph::connectConstantFromHost(FieldRef field, const void *value, HostType hostType) {
  const ResolvedField r = resolve(*state_, field, "connect");
  if (!r.field.isEdge())
    throw graph_connection_error(r.where + " is " + kindName(r.field.kind) +
                                 ", not an edge: set plain fields with Graph::setInitialValue");
  if (r.field.kind != FieldKind::Input)
    throw graph_connection_error(r.where + " is " + kindName(r.field.kind) + " and cannot be connected to a constant");
  if (r.field.rank != 0 || field.indexed)
    throw graph_connection_error(r.where + " is a vector: connect a tensor (a constant one made with Graph::addConstant)");
  detail::convertFromHost(r.field.elementType, value, hostType, 1, r.state.value);
  r.state.hasValue = true;
  r.state.edges.clear();
}

void Graph::setFieldSize(FieldRef field, std::size_t size) {
  const ResolvedField r = resolve(*state_, field, "setFieldSize");
  if (r.field.rank != 2 || field.indexed)
    throw graph_connection_error(r.where + " is not a list field (VectorList or Vector<Input<Vector<T>>>): its size "
                                 "is that of the tensor connected to it");
  // Each element is at least a pointer in the vertex's tile memory.
  if (size > getTarget().getBytesPerTile())
    throw graph_connection_error(r.where + ": a list of " + std::to_string(size) + " elements cannot fit in a tile's " +
                                 std::to_string(getTarget().getBytesPerTile()) + " bytes");
  r.state.edges.resize(size);
  r.state.sized = true;
}

std::size_t Graph::getFieldSize(FieldRef field) const {
  const ResolvedField r = resolve(*state_, field, "getFieldSize");
  if (r.field.rank == 2 && field.indexed) {
    const Tensor &t = r.state.edges[checkedIndex(r, field)];
    if (!t.valid()) throw no_size_specified(r.where + " is not connected");
    return t.numElements();
  }
  if (r.field.rank == 0) return 1;
  if (r.field.rank == 2) {
    if (!r.state.sized) throw no_size_specified(r.where + ": its length was never set");
    return r.state.edges.size();
  }
  if (r.state.hasValue) return r.state.value.size() / r.field.elementSize;
  if (r.state.edges.empty()) throw no_size_specified(r.where + " is not connected and has no initial value");
  return r.state.edges[0].numElements();
}

void Graph::setTileMapping(VertexRef v, unsigned tileNum) {
  VertexInfo &info = vertexOf(*state_, v, "setTileMapping");
  if (tileNum >= getTarget().getNumTiles())
    throw invalid_tile_mapping("Graph::setTileMapping: tile " + std::to_string(tileNum) + " does not exist (the target has " +
                               std::to_string(getTarget().getNumTiles()) + " tiles) for " +
                               describeVertex(info, v.getId()));
  info.tile = tileNum;
}

unsigned Graph::getTileMapping(VertexRef v) const {
  const VertexInfo &info = vertexOf(*state_, v, "getTileMapping");
  if (info.tile < 0) throw invalid_tile_mapping(describeVertex(info, v.getId()) + " is not mapped to a tile");
  return static_cast<unsigned>(info.tile);
}

void Graph::setPerfEstimate(const VertexRef &v, std::uint64_t cycles, std::uint64_t flops) {
  VertexInfo &info = vertexOf(*state_, v, "setPerfEstimate");
  info.hasPerfEstimate = true;
  info.cycles = cycles;
  info.flops = flops;
}

void Graph::setFieldInitialValueFromHost(const FieldRef &field, const void *values, HostType hostType,
                                         std::size_t count, bool isList) {
  const ResolvedField r = resolve(*state_, field, "setInitialValue");
  if (r.field.kind != FieldKind::State)
    throw graph_connection_error(r.where + " is " + kindName(r.field.kind) +
                                 (r.field.isEdge() ? ": connect it to a tensor (Graph::connect)" : ""));
  if (field.indexed) throw graph_connection_error(r.where + ": plain fields cannot be indexed");
  if (r.field.rank == 0 && (count != 1 || (isList && count != 1)))
    throw graph_connection_error(r.where + " holds one value but " + std::to_string(count) + " were given");
  detail::convertFromHost(r.field.elementType, values, hostType, count, r.state.value);
  r.state.hasValue = true;
}

void Graph::setInitialValueHalf(const FieldRef &field, uint16_t value) { setInitialValueHalf(field, ArrayRef<uint16_t>(value)); }

void Graph::setInitialValueHalf(const FieldRef &field, ArrayRef<uint16_t> values) {
  std::vector<float> f(values.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = detail::halfToFloat(values[i]);
  setFieldInitialValueFromHost(field, f.data(), HostType::F32, f.size(), values.size() != 1);
}

unsigned Graph::getNumVertices() const { return static_cast<unsigned>(state_->vertices.size()); }

std::vector<ComputeSet> Graph::getComputeSets() const {
  std::vector<ComputeSet> sets;
  for (unsigned i = 0; i < state_->computeSets.size(); ++i) sets.emplace_back(i);
  return sets;
}

} // namespace poplar
