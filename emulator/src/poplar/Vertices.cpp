// The Graph's codelet and vertex API: addCodelets, addVertex, connect, tile
// mapping, perf estimates and initial values of vertex fields.
#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "CodeletObject.hpp"
#include "GraphState.hpp"
#include "TensorImpl.hpp"
#include "TypeInfo.hpp"
#include "VertexKernel.hpp"

namespace poplar {

namespace detail {

bool GraphState::addCodelets(const CodeletSource &source) {
  const std::shared_ptr<const CodeletLibrary> library = loadCodeletLibrary(source);
  const std::string arch = target.getTargetArchString().str();
  if (!library->targets.empty() && std::find(library->targets.begin(), library->targets.end(), arch) ==
                                       library->targets.end()) {
    std::string compiledFor;
    for (const std::string &t : library->targets) compiledFor += (compiledFor.empty() ? "" : ",") + t;
    throw graph_program_compilation_error("Codelet object '" + source.name + "' was compiled for target(s) " +
                                          compiledFor + ", not for this graph's target " + arch + " (popc --target=" +
                                          compiledFor + "," + arch + ")");
  }
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

const VertexClass &vertexClassNamed(const GraphState &g, StringRef vertexType, const char *what) {
  const auto it = g.vertexClasses.find(vertexType.str());
  if (it == g.vertexClasses.end())
    throw unknown_vertex_type(std::string("Graph::") + what + ": unknown vertex type '" + vertexType.str() +
                              "': no codelets added to this graph define it");
  return *it->second;
}

const VertexField &fieldNamed(const VertexClass &cls, StringRef field) {
  const int index = cls.fieldIndex(field.str());
  if (index < 0)
    throw unknown_field("Vertex type '" + cls.name + "' has no field '" + field.str() + "' (its fields: " +
                        fieldList(cls) + ")");
  return cls.fields[static_cast<std::size_t>(index)];
}

// The elements a vector dimension of `layout` can count (docs/custom_vertices.rst):
// SPAN stores a 32-bit count, SHORT_SPAN an 11-bit one; the pointer-only layouts
// reach what their pointer can address (SCALED_PTRnn: 2^18, 2^19, 2^20 bytes; ONE_PTR
// and COMPACT_PTR: the whole tile), at most the tile's memory. VectorList layouts
// count their sub-vectors like SPAN; DeltaN sub-vectors are bounded by the tile's
// memory, the runtime-only pointer list layouts like the vector pointer layouts.
// poplar::VectorLayout and VectorListLayout (poplar/Vertex.hpp, a codelet header), by value.
enum class VectorLayout : unsigned { NOT_A_VECTOR, SPAN, SHORT_SPAN, ONE_PTR, SCALED_PTR32, SCALED_PTR64, SCALED_PTR128, COMPACT_PTR };
enum class VectorListLayout : unsigned { NOT_A_VECTOR, ONE_PTR, SCALED_PTR32, SCALED_PTR64, SCALED_PTR128, DELTAN, DELTANELEMENTS, COMPACT_DELTAN };

std::uint64_t maxDimElements(unsigned layout, unsigned dim, std::uint64_t elementSize, std::uint64_t tileBytes) {
  const auto reach = [&](std::uint64_t bytes, std::uint64_t size) { return std::min(bytes, tileBytes) / size; };
  if (layout >= VertexField::kListLayout) {
    const auto list = static_cast<VectorListLayout>(layout - VertexField::kListLayout);
    const bool deltaN = list == VectorListLayout::DELTAN || list == VectorListLayout::DELTANELEMENTS ||
                        list == VectorListLayout::COMPACT_DELTAN;
    if (dim == 0 && deltaN) return 0xffffffffull;
    const std::uint64_t size = dim == 0 ? 4 : elementSize; // dim 0: one 32-bit descriptor per sub-vector
    switch (list) {
    case VectorListLayout::SCALED_PTR32: return reach(1ull << 18, size);
    case VectorListLayout::SCALED_PTR64: return reach(1ull << 19, size);
    case VectorListLayout::SCALED_PTR128: return reach(1ull << 20, size);
    default: return reach(tileBytes, size);
    }
  }
  switch (static_cast<VectorLayout>(layout)) {
  case VectorLayout::SPAN: return 0xffffffffull;
  case VectorLayout::SHORT_SPAN: return (1ull << 11) - 1;
  case VectorLayout::SCALED_PTR32: return reach(1ull << 18, elementSize);
  case VectorLayout::SCALED_PTR64: return reach(1ull << 19, elementSize);
  case VectorLayout::SCALED_PTR128: return reach(1ull << 20, elementSize);
  default: return reach(tileBytes, elementSize); // ONE_PTR, COMPACT_PTR
  }
}

// The largest value an element of `type` holds, exactly (long double has a 64-bit mantissa).
long double maxElementValue(const Type &type) {
  const detail::TypeInfo &info = detail::typeInfo(type);
  switch (info.kind) {
  case detail::TypeKind::Bool: return 1;
  case detail::TypeKind::Signed: return std::ldexp(1.0L, 8 * static_cast<int>(info.size) - 1) - 1;
  case detail::TypeKind::Unsigned: return std::ldexp(1.0L, 8 * static_cast<int>(info.size)) - 1;
  case detail::TypeKind::Half: return 65504;
  case detail::TypeKind::Float: return info.size == 4 ? FLT_MAX : DBL_MAX;
  default: throw type_error("Type " + type.toString().str() + " has no largest value");
  }
}

const VertexField &plainField(const GraphState &g, StringRef vertexType, StringRef fieldName, const char *what) {
  const VertexClass &cls = vertexClassNamed(g, vertexType, what);
  const VertexField &field = fieldNamed(cls, fieldName);
  if (field.kind != FieldKind::State)
    throw poplar_error(std::string("Graph::") + what + ": field '" + field.name + "' of vertex type '" + cls.name +
                       "' is " + kindName(field.kind) +
                       ", not a plain field: its values are its tensor's (see getMaxFieldDim for its size)");
  return field;
}

std::string fileExtension(const std::string &path) {
  const auto dot = path.rfind('.'), slash = path.rfind('/');
  return dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot + 1);
}

// Codelets whose bytes read as an object are loaded as one (CodeletCompiler), so an
// object is checked before it is added and nothing else is taken for one.
void checkCodeletKind(const std::string &name, const std::string &bytes, CodeletFileType type) {
  if (type == CodeletFileType::Object) detail::readCodeletObject(name, bytes, detail::kCodeletAbi);
  else if (detail::isCodeletObject(bytes))
    throw graph_program_compilation_error("Codelets '" + name + "' is a codelet object (.gp), not " +
                                          (type == CodeletFileType::CSource ? "C" : "C++") + " source");
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw graph_program_compilation_error("Cannot read codelet file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string ext = fileExtension(path);
  // Auto: an object by its extension or its first bytes (an ELF, or popdsl's header), else by the extension.
  if (type == CodeletFileType::Auto)
    type = ext == "gp" || ext == "o" || detail::isCodeletObject(text.str()) || text.str().compare(0, 4, "\x7f" "ELF") == 0
               ? CodeletFileType::Object
           : ext == "c"               ? CodeletFileType::CSource
           : ext == "S" || ext == "s" ? CodeletFileType::AsmSource
                                      : CodeletFileType::CppSource;
  if (type != CodeletFileType::CppSource && type != CodeletFileType::CSource && type != CodeletFileType::Object)
    throw graph_program_compilation_error("Codelets '" + path +
                                          "': the emulator compiles C and C++ codelets with the host compiler and "
                                          "loads the .gp objects popdsl's popc writes; it cannot load IPU assembly "
                                          "or IR");
  checkCodeletKind(path, text.str(), type);
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
  if (type != CodeletFileType::CppSource && type != CodeletFileType::CSource && type != CodeletFileType::Auto &&
      type != CodeletFileType::Object)
    throw graph_program_compilation_error("Codelet source text: the emulator compiles only C and C++ codelets and "
                                          "loads the .gp objects popdsl's popc writes");
  const std::string name = type == CodeletFileType::Object ? "<codelet object>" : "<codelet source>";
  checkCodeletKind(name, stream.str(), type);
  return state_->addCodelets({name, stream.str(), compileFlags.str(), ""});
}

bool Graph::hasCodelet(StringRef vertexType) const { return state_->vertexClasses.count(vertexType.str()) != 0; }

VertexRef Graph::addVertex(ComputeSet cs, StringRef vertexType) {
  detail::ComputeSetInfo &info = state_->computeSet(cs, "Graph::addVertex");
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
    if (c.isValue) connectValueFromHost(v[c.field], c.value, c.valueType);
    else if (c.isList) connect(v[c.field], ArrayRef<Tensor>(c.tensors));
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

void Graph::connectValueFromHost(FieldRef field, const void *value, HostType hostType) {
  const ResolvedField r = resolve(*state_, field, "addVertex");
  const long double v = detail::hostValue(value, hostType, 0);
  const detail::TypeKind kind = detail::typeInfo(r.field.elementType).kind;
  const bool integral = kind == detail::TypeKind::Bool || kind == detail::TypeKind::Signed ||
                        kind == detail::TypeKind::Unsigned;
  // Integer fields take integers they can hold; float and half fields round any number.
  if (integral && (v != std::floor(v) || v > maxElementValue(r.field.elementType) ||
                   v < (kind == detail::TypeKind::Signed ? -maxElementValue(r.field.elementType) - 1 : 0))) {
    std::ostringstream shown;
    shown << static_cast<double>(v);
    throw type_error(r.where + " has element type " + r.field.elementType.toString().str() + ", which cannot hold " +
                     shown.str());
  }
  if (r.field.kind == FieldKind::State) setFieldInitialValueFromHost(field, value, hostType, 1, false);
  else connectConstantFromHost(field, value, hostType);
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
  info.tile = topLevelTile(tileNum);
}

unsigned Graph::getTileMapping(VertexRef v) const {
  const VertexInfo &info = vertexOf(*state_, v, "getTileMapping");
  if (info.tile < 0) throw invalid_tile_mapping(describeVertex(info, v.getId()) + " is not mapped to a tile");
  return convertPhysicalTileToVirtualTile(static_cast<unsigned>(info.tile));
}

void Graph::setPerfEstimate(const VertexRef &v, std::uint64_t cycles, std::uint64_t flops) {
  VertexInfo &info = vertexOf(*state_, v, "setPerfEstimate");
  info.hasPerfEstimate = true;
  info.cycles = cycles;
  info.flops = flops;
}

void Graph::setPerfEstimate(const VertexRef &v, const VertexPerfEstimate &estimate) {
  setPerfEstimate(v, estimate.cycles, estimate.flops);
}

VertexPerfEstimate Graph::getPerfEstimate(const VertexRef &v) const {
  const VertexInfo &info = vertexOf(*state_, v, "getPerfEstimate");
  if (info.hasPerfEstimate) return VertexPerfEstimate(info.cycles, info.flops);
  if (auto estimate = detail::registeredPerfEstimate(*state_, v.getId())) return *estimate;
  throw missing_perf_estimate(describeVertex(info, v.getId()) +
                              " has no perf estimate: set one with Graph::setPerfEstimate or register an estimator "
                              "for its type with Graph::registerPerfEstimator (the emulator's profile otherwise "
                              "counts 50 cycles plus one per edge element)");
}

void Graph::registerPerfEstimator(StringRef vertexTypeName, PerfEstimateFunc f) {
  if (!f) throw poplar_error("Graph::registerPerfEstimator: the estimator for '" + vertexTypeName.str() + "' is empty");
  state_->perfEstimators[vertexTypeName.str()] = std::move(f);
}

std::size_t Graph::getMaxFieldDim(StringRef vertexName, StringRef fieldName, unsigned dimIndex) const {
  const VertexClass &cls = vertexClassNamed(*state_, vertexName, "getMaxFieldDim");
  const VertexField &field = fieldNamed(cls, fieldName);
  if (field.kind == FieldKind::Other || dimIndex >= field.rank)
    throw poplar_error("Graph::getMaxFieldDim: field '" + field.name + "' of vertex type '" + cls.name + "' has " +
                       std::to_string(field.kind == FieldKind::Other ? 0 : field.rank) + " dimensions; dimension " +
                       std::to_string(dimIndex) + " does not exist");
  // The outer dimension of a list of edges holds one 32-bit pointer per edge.
  const unsigned elementSize = field.rank == 2 && dimIndex == 0 ? 4 : field.elementSize;
  return static_cast<std::size_t>(
      maxDimElements(field.layout[dimIndex], dimIndex, elementSize, getTarget().getBytesPerTile()));
}

double Graph::getMaxVertexFieldValue(StringRef vertexName, StringRef fieldName) const {
  return static_cast<double>(maxElementValue(plainField(*state_, vertexName, fieldName, "getMaxVertexFieldValue").elementType));
}

void Graph::maxVertexFieldValueAs(StringRef vertexName, StringRef fieldName, HostType hostType, void *out) const {
  const VertexField &field = plainField(*state_, vertexName, fieldName, "getMaxVertexFieldValueAs");
  const long double max = maxElementValue(field.elementType);
  const auto fits = [&](auto sample) {
    using T = decltype(sample);
    const bool exact = std::is_floating_point_v<T> ? static_cast<long double>(static_cast<T>(max)) == max
                                                   : max <= static_cast<long double>(std::numeric_limits<T>::max());
    if (!exact) return false;
    const T value = static_cast<T>(max);
    std::memcpy(out, &value, sizeof value);
    return true;
  };
  bool ok = false;
  const char *name = "";
  switch (hostType) {
  case HostType::Bool: ok = fits(bool()), name = "bool"; break;
  case HostType::I8: ok = fits(std::int8_t()), name = "an 8-bit integer"; break;
  case HostType::U8: ok = fits(std::uint8_t()), name = "an 8-bit unsigned integer"; break;
  case HostType::I16: ok = fits(std::int16_t()), name = "a 16-bit integer"; break;
  case HostType::U16: ok = fits(std::uint16_t()), name = "a 16-bit unsigned integer"; break;
  case HostType::I32: ok = fits(std::int32_t()), name = "a 32-bit integer"; break;
  case HostType::U32: ok = fits(std::uint32_t()), name = "a 32-bit unsigned integer"; break;
  case HostType::I64: ok = fits(std::int64_t()), name = "a 64-bit integer"; break;
  case HostType::U64: ok = fits(std::uint64_t()), name = "a 64-bit unsigned integer"; break;
  case HostType::F32: ok = fits(float()), name = "float"; break;
  case HostType::F64: ok = fits(double()), name = "double"; break;
  }
  if (!ok) {
    char value[64];
    std::snprintf(value, sizeof value, max < 0x1p64L ? "%.0Lf" : "%.9Lg", max);
    throw poplar_error("Graph::getMaxVertexFieldValueAs: the largest value of field '" + field.name + "' of vertex type '" +
                       vertexName.str() + "' (" + field.elementType.toString().str() + ": " + value +
                       ") is not exactly representable as " + name);
  }
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

void Graph::setInitialValueHalf(FieldRef field, uint16_t value) { setInitialValueHalf(field, ArrayRef<uint16_t>(value)); }

void Graph::setInitialValueHalf(FieldRef field, ArrayRef<uint16_t> values) {
  std::vector<float> f(values.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = detail::halfToFloat(values[i]);
  setFieldInitialValueFromHost(field, f.data(), HostType::F32, f.size(), values.size() != 1);
}

unsigned Graph::getNumVertices() const { return static_cast<unsigned>(state_->vertices.size()); }

std::vector<ComputeSet> Graph::getComputeSets() const {
  std::vector<ComputeSet> sets;
  for (unsigned i = 0; i < state_->computeSets.size(); ++i)
    sets.push_back(detail::Internals::owned(ComputeSet(i), state_));
  return sets;
}

namespace detail {

std::vector<std::pair<std::string, std::string>> vertexFieldDirections(const Graph &graph,
                                                                       const std::string &vertexType) {
  const VertexClass &cls = vertexClassNamed(graphState(graph), vertexType, "vertexFieldDirections");
  std::vector<std::pair<std::string, std::string>> directions;
  for (const VertexField &f : cls.fields)
    if (f.isEdge())
      directions.emplace_back(f.name, f.kind == FieldKind::Input    ? "Input"
                                      : f.kind == FieldKind::Output ? "Output"
                                                                    : "InOut");
  return directions;
}

} // namespace detail

} // namespace poplar
