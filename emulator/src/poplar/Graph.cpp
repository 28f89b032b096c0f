#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstring>
#include <map>

#include "GraphOwnership.hpp"
#include "GraphState.hpp"
#include "TensorImpl.hpp"
#include "TypeInfo.hpp"

namespace poplar {

namespace detail {

unsigned GraphState::addVariable(Type type, const std::vector<std::size_t> &shape,
                                 std::string name, bool isConstant) {
  if (!typeInfo(type).supportedOnDevice)
    throw type_error("Cannot create tensor '" + name + "' of type '" + type.toString().str() +
                     "': the type is not supported on the device");
  Variable v;
  v.type = type;
  v.shape = shape;
  v.name = name.empty() ? "var" + std::to_string(vars->vars.size()) : std::move(name);
  v.numElements = checkedNumElements(shape, type, [&] { return "Cannot create tensor '" + v.name + "'"; });
  v.isConstant = isConstant;
  vars->vars.push_back(std::move(v));
  return static_cast<unsigned>(vars->vars.size() - 1);
}

ComputeSetInfo &GraphState::computeSet(unsigned id) {
  if (id >= computeSets.size())
    throw graph_object_creation_error("Unknown compute set id " + std::to_string(id));
  return computeSets[id];
}

ComputeSetInfo &GraphState::computeSet(ComputeSet cs, const std::string &what) {
  const auto &owner = Internals::owner(cs);
  if (!ownedBy(owner, *this)) {
    const auto other = owner.lock();
    throw poplar_error(what + ": " + computeSetName(cs.getId(), other.get()) + " " +
                       belongsElsewhere(other.get(), *this));
  }
  return computeSet(cs.getId());
}

} // namespace detail

using detail::GraphState;
using detail::TensorImpl;

namespace {

const TensorImpl &ownedImpl(const GraphState &g, const Tensor &t, const char *op) {
  const TensorImpl &impl = detail::tensorImpl(t);
  if (impl.vars != g.vars)
    throw poplar_error(std::string("Graph::") + op + ": tensor " + impl.describe() +
                       " belongs to a different graph");
  return impl;
}

} // namespace

long double detail::hostValue(const void *values, Graph::HostType hostType, std::size_t i) {
  switch (hostType) {
  case Graph::HostType::Bool: return static_cast<const bool *>(values)[i];
  case Graph::HostType::I8: return static_cast<const std::int8_t *>(values)[i];
  case Graph::HostType::U8: return static_cast<const std::uint8_t *>(values)[i];
  case Graph::HostType::I16: return static_cast<const std::int16_t *>(values)[i];
  case Graph::HostType::U16: return static_cast<const std::uint16_t *>(values)[i];
  case Graph::HostType::I32: return static_cast<const std::int32_t *>(values)[i];
  case Graph::HostType::U32: return static_cast<const std::uint32_t *>(values)[i];
  case Graph::HostType::I64: return static_cast<const std::int64_t *>(values)[i];
  case Graph::HostType::U64: return static_cast<const std::uint64_t *>(values)[i];
  case Graph::HostType::F32: return static_cast<const float *>(values)[i];
  case Graph::HostType::F64: return static_cast<const double *>(values)[i];
  }
  return 0;
}

// Converts host values of a C++ type to device elements of `type`.
void detail::convertFromHost(const Type &type, const void *values, Graph::HostType hostType,
                             std::size_t count, std::vector<std::uint8_t> &out) {
  const unsigned size = detail::typeSize(type);
  out.resize(count * size);
  for (std::size_t i = 0; i < count; ++i) detail::storeElement(type, out.data() + i * size, hostValue(values, hostType, i));
}

namespace {

// Writes dense device-format `bytes` (one element, or one per tensor element)
// into the variables' data behind tensor `t`.
void writeThrough(GraphState &g, const TensorImpl &t, const std::vector<std::uint8_t> &bytes,
                  bool broadcast) {
  const unsigned size = detail::typeSize(t.type);
  std::size_t pos = 0;
  t.forEachRun([&](const detail::Run &r) {
    detail::Variable &v = g.vars->vars[r.var];
    if (v.data.empty()) v.data.assign(v.numElements * size, 0);
    for (std::size_t k = 0; k < r.count; ++k, ++pos) {
      const auto e = static_cast<std::size_t>(r.start + static_cast<std::int64_t>(k) * r.stride);
      std::memcpy(v.data.data() + e * size, bytes.data() + (broadcast ? 0 : pos * size), size);
    }
  });
}

} // namespace

Graph::Graph() : state_(std::make_shared<GraphState>()) { state_->topLevel = this; }
Graph::Graph(const Target &target, replication_factor r) : Graph() {
  const unsigned replicas = r;
  if (replicas == 0 || target.getNumIPUs() % replicas != 0)
    throw graph_replication_error("Graph: a replication factor of " + std::to_string(replicas) +
                                  " does not divide the target's " + std::to_string(target.getNumIPUs()) +
                                  " IPU(s): the device needs numIPUs = replicas x IPUs per replica");
  state_->target = target.createVirtualTarget(target.getNumIPUs() / replicas, target.getTilesPerIPU());
  state_->replicationFactor = replicas;
}
Graph::Graph(const Device &device, replication_factor r) : Graph(device.getTarget(), r) {}
// The top-level Graph object is tracked by address, so moves and destruction update it.
Graph::~Graph() {
  if (state_ && !view_ && state_->topLevel == this) state_->topLevel = nullptr;
}
Graph::Graph(Graph &&other) noexcept : state_(std::move(other.state_)), view_(std::move(other.view_)) {
  if (state_ && !view_ && state_->topLevel == &other) state_->topLevel = this;
}
Graph &Graph::operator=(Graph &&other) noexcept {
  if (this == &other) return *this;
  if (state_ && !view_ && state_->topLevel == this) state_->topLevel = nullptr;
  state_ = std::move(other.state_);
  view_ = std::move(other.view_);
  if (state_ && !view_ && state_->topLevel == &other) state_->topLevel = this;
  return *this;
}

const Target &Graph::getTarget() const { return view_ ? view_->target : state_->target; }
unsigned Graph::getReplicationFactor() const { return state_->replicationFactor; }

unsigned DataStream::replicationFactor() const {
  const auto graph = graph_.lock();
  return graph ? graph->replicationFactor : 1;
}

Tensor Graph::addReplicationIndexConstant(const DebugContext &debugContext) {
  const unsigned id = state_->addVariable(UNSIGNED_INT, {}, debugContext.getPathName(), true);
  state_->vars->vars[id].data.assign(4, 0); // replica 0's; each engine replica writes its own
  state_->replicaIndexVars.push_back(id);
  return detail::makeTensor(detail::makeVariableView(state_->vars, id, UNSIGNED_INT, {}));
}
Tensor Graph::addVariable(const Type &type, ArrayRef<std::size_t> shape,
                          const DebugContext &debugContext) {
  return addVariable(type, shape, VariableMappingMethod::NONE, debugContext);
}

Tensor Graph::addVariable(const Type &type, ArrayRef<std::size_t> shape,
                          VariableMappingMethod mappingMethod, const DebugContext &debugContext) {
  return addVariable(type, static_cast<const Tensor *>(nullptr), shape, mappingMethod, debugContext);
}

Tensor Graph::addVariable(const Type &type, const Tensor &metadata, ArrayRef<std::size_t> shape,
                          const DebugContext &debugContext) {
  return addVariable(type, &metadata, shape, VariableMappingMethod::NONE, debugContext);
}

Tensor Graph::addVariable(const Type &type, const Tensor &metadata, ArrayRef<std::size_t> shape,
                          VariableMappingMethod mappingMethod, const DebugContext &debugContext) {
  return addVariable(type, &metadata, shape, mappingMethod, debugContext);
}

Tensor Graph::addVariable(const Type &type, const Tensor *metadata, ArrayRef<std::size_t> shape,
                          const DebugContext &debugContext) {
  return addVariable(type, metadata, shape, VariableMappingMethod::NONE, debugContext);
}

namespace {

// The (variable, element) of a one-element QUARTER_METADATA tensor of graph `g`.
std::pair<unsigned, std::size_t> metadataElementOf(const GraphState &g, const Tensor &metadata,
                                                   const std::string &name) {
  const TensorImpl &impl = ownedImpl(g, metadata, "addVariable");
  if (impl.type != QUARTER_METADATA || impl.numElements() != 1)
    throw tensor_metadata_error("addVariable '" + name + "': the metadata must be one quarter_metadata element, not " +
                                impl.describe());
  const detail::Run run = impl.runs().at(0);
  return {run.var, static_cast<std::size_t>(run.start)};
}

} // namespace

Tensor Graph::addVariable(const Type &type, const Tensor *metadata, ArrayRef<std::size_t> shape,
                          VariableMappingMethod mappingMethod, const DebugContext &debugContext) {
  const std::vector<std::size_t> dims(shape.begin(), shape.end());
  const std::string name = debugContext.getPathName();
  if (metadata && !type.requiresMetadata())
    throw tensor_metadata_error("addVariable '" + name + "': a metadata tensor is for quarter types, not " +
                                type.toString().str());
  std::pair<unsigned, std::size_t> metadataElement{detail::Variable::kNoMetadata, 0};
  if (metadata) {
    metadataElement = metadataElementOf(*state_, *metadata, name);
  } else if (type.requiresMetadata()) {
    metadataElement.first = state_->addVariable(QUARTER_METADATA, {1}, name + "/metadata", false);
    state_->vars->vars[metadataElement.first].mapRange(0, 1, 0);
  }
  const unsigned id = state_->addVariable(type, dims, name, false);
  state_->vars->vars[id].debug = detail::DebugRecord::of(debugContext);
  state_->vars->vars[id].metadataVar = metadataElement.first;
  state_->vars->vars[id].metadataElement = metadataElement.second;
  Tensor t = detail::makeTensor(detail::makeVariableView(state_->vars, id, type, dims));
  if (mappingMethod == VariableMappingMethod::LINEAR) {
    // Spread evenly over all tiles in whole vectors of the type.
    const std::size_t n = t.numElements();
    const std::size_t tiles = getTarget().getNumTiles();
    const std::size_t grain = getTarget().getVectorWidth(type);
    const std::size_t perTile = ((n + tiles - 1) / tiles + grain - 1) / grain * grain;
    auto &var = state_->vars->vars[id];
    for (std::size_t b = 0, tile = 0; b < n; b += perTile, ++tile)
      var.mapRange(b, std::min(n, b + perTile), topLevelTile(static_cast<unsigned>(tile)));
  }
  return t;
}

std::size_t Graph::numElementsOf(ArrayRef<std::size_t> shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

void Graph::checkHostValueCount(ArrayRef<std::size_t> shape, std::size_t count,
                                const DebugContext &debugContext) {
  if (count != numElementsOf(shape))
    throw poplar_error("'" + debugContext.getPathName() + "': " + std::to_string(count) +
                       " values given for a tensor of shape " +
                       detail::shapeString(std::vector<std::size_t>(shape.begin(), shape.end())) +
                       " (" + std::to_string(numElementsOf(shape)) + " elements)");
}

Tensor Graph::addConstantFromHost(const Type &type, ArrayRef<std::size_t> shape,
                                  const void *values, HostType hostType, std::size_t count,
                                  const DebugContext &debugContext) {
  const std::vector<std::size_t> dims(shape.begin(), shape.end());
  std::vector<std::uint8_t> one;
  detail::convertFromHost(type, values, hostType, count, one);
  const unsigned id = state_->addVariable(type, dims, debugContext.getPathName(), true);
  auto &var = state_->vars->vars[id];
  var.debug = detail::DebugRecord::of(debugContext);
  if (count == var.numElements) {
    var.data = std::move(one);
  } else {
    var.data.resize(var.numElements * one.size());
    for (std::size_t i = 0; i < var.numElements; ++i)
      std::memcpy(var.data.data() + i * one.size(), one.data(), one.size());
  }
  return detail::makeTensor(detail::makeVariableView(state_->vars, id, type, dims));
}

namespace {

// The host type `traits` describes; bool reads as an 8-bit unsigned value of 0 or 1.
Graph::HostType hostTypeOf(const TypeTraits &traits) {
  using H = Graph::HostType;
  if (!traits.isSimpleType())
    throw type_error("Graph::addConstant: the host type (" + std::to_string(traits.size) +
                     " bytes, " + (traits.isFloat ? "floating point" : traits.isIntegral ? "integer" : "neither integer nor floating point") +
                     ") is not a type the graph can take values of");
  if (traits.isFloat) return traits.size == 4 ? H::F32 : H::F64;
  switch (traits.size) {
  case 1: return traits.isSigned ? H::I8 : H::U8;
  case 2: return traits.isSigned ? H::I16 : H::U16;
  case 4: return traits.isSigned ? H::I32 : H::U32;
  default: return traits.isSigned ? H::I64 : H::U64;
  }
}

} // namespace

Tensor Graph::addConstant(const Type &type, ArrayRef<std::size_t> shape, const void *data,
                          const TypeTraits &traits, bool broadcast, const DebugContext &debugContext) {
  const HostType hostType = hostTypeOf(traits);
  return addConstantFromHost(type, shape, data, hostType, broadcast ? 1 : numElementsOf(shape), debugContext);
}

Tensor Graph::addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, const uint16_t *data,
                              const DebugContext &debugContext) {
  if (type != HALF) throw type_error("addConstantHalf: type must be HALF");
  std::vector<float> values(numElementsOf(shape));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = detail::halfToFloat(data[i]);
  return addConstantFromHost(type, shape, values.data(), HostType::F32, values.size(), debugContext);
}

Tensor Graph::addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, uint16_t value,
                              const DebugContext &debugContext) {
  const float f = detail::halfToFloat(value);
  if (type != HALF) throw type_error("addConstantHalf: type must be HALF");
  return addConstantFromHost(type, shape, &f, HostType::F32, 1, debugContext);
}

void Graph::setInitialValueFromHost(const Tensor &t, const void *values, HostType hostType,
                                    std::size_t count) {
  const TensorImpl &impl = ownedImpl(*state_, t, "setInitialValue");
  if (t.containsConstant())
    throw poplar_error("Graph::setInitialValue: tensor " + impl.describe() + " is a constant");
  std::vector<std::uint8_t> bytes;
  detail::convertFromHost(impl.type, values, hostType, count, bytes);
  writeThrough(*state_, impl, bytes, count == 1 && impl.numElements() != 1);
}

void Graph::setInitialValueHalf(const Tensor &t, uint16_t value) {
  setInitialValue<float>(t, detail::halfToFloat(value));
}

void Graph::setInitialValueHalf(const Tensor &t, ArrayRef<uint16_t> values) {
  std::vector<float> f(values.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = detail::halfToFloat(values[i]);
  setInitialValue<float>(t, f);
}

Tensor Graph::clone(const Tensor &t, const DebugContext &debugContext, TensorCloneMethod method) {
  return clone(t.elementType(), t, debugContext, method);
}

Tensor Graph::clone(const Type &type, const Tensor &t, const DebugContext &debugContext,
                    TensorCloneMethod method) {
  return cloneN(type, t, 1, debugContext, method).squeeze({0});
}

Tensor Graph::cloneN(const Tensor &t, std::size_t N, const DebugContext &debugContext,
                     TensorCloneMethod method, TensorCloneDuplicationMethod duplicationMethod) {
  return cloneN(t.elementType(), t, N, debugContext, method, duplicationMethod);
}

namespace {

// One new element per distinct element of t, so elements that alias in t alias in each
// copy; a new element lives where the first element of t it stands for does.
Tensor cloneKeepingAliases(Graph &graph, const Type &type, const Tensor &t, std::size_t N,
                           const DebugContext &debugContext) {
  std::map<std::pair<unsigned, std::int64_t>, std::size_t> distinct;
  std::vector<std::size_t> elementOf; // t's flat element -> its new element
  detail::tensorImpl(t).forEachRun([&](const detail::Run &r) {
    for (std::size_t k = 0; k < r.count; ++k) {
      const auto key = std::make_pair(r.var, r.start + static_cast<std::int64_t>(k) * r.stride);
      elementOf.push_back(distinct.emplace(key, distinct.size()).first->second);
    }
  });
  Tensor storage = graph.addVariable(type, {N, distinct.size()}, debugContext);
  std::vector<Tensor> copies;
  for (std::size_t i = 0; i < N; ++i) {
    // t's elements as slices of the copy's storage, a slice per run of consecutive new elements.
    std::vector<Tensor> pieces;
    for (std::size_t begin = 0, end; begin < elementOf.size(); begin = end) {
      for (end = begin + 1; end < elementOf.size() && elementOf[end] == elementOf[end - 1] + 1; ++end) {
      }
      pieces.push_back(storage[i].slice(elementOf[begin], elementOf[end - 1] + 1));
    }
    copies.push_back((pieces.empty() ? storage[i] : concat(pieces)).reshape(t.shape()).expand({0}));
  }
  const Graph::TileToTensorMapping mapping = graph.getTileMapping(t, false);
  for (std::size_t tile = 0; tile < mapping.size(); ++tile)
    for (const Interval &interval : mapping[tile])
      for (std::size_t e = interval.begin(); e < interval.end(); ++e)
        for (std::size_t i = 0; i < N; ++i)
          graph.setTileMapping(storage[i][elementOf[e]], static_cast<unsigned>(tile));
  return concat(copies, 0);
}

} // namespace

Tensor Graph::cloneN(const Type &type, const Tensor &t, std::size_t N,
                     const DebugContext &debugContext, TensorCloneMethod method,
                     TensorCloneDuplicationMethod) {
  ownedImpl(*state_, t, "clone");
  const bool keepAliases = method == TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES ||
                           method == TensorCloneMethod::GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES;
  if (keepAliases && t.containsAliases()) return cloneKeepingAliases(*this, type, t, N, debugContext);
  std::vector<std::size_t> shape = t.shape();
  shape.insert(shape.begin(), N);
  Tensor out = addVariable(type, shape, debugContext);
  // Each copy lives where the corresponding element of t lives.
  const TileToTensorMapping mapping = getTileMapping(t, false);
  for (std::size_t i = 0; i < N; ++i) setTileMapping(out[i], mapping);
  return out;
}

void Graph::setTileMapping(const Tensor &t, unsigned tileNum) {
  const TensorImpl &impl = ownedImpl(*state_, t, "setTileMapping");
  if (tileNum >= getTarget().getNumTiles())
    throw invalid_tile_mapping("Graph::setTileMapping: tile " + std::to_string(tileNum) +
                               " does not exist (the target has " +
                               std::to_string(getTarget().getNumTiles()) + " tiles) for tensor " +
                               impl.describe());
  tileNum = topLevelTile(tileNum);
  impl.forEachRun([&](const detail::Run &r) {
    auto &var = state_->vars->vars[r.var];
    if (r.stride == 1 || r.count == 1) {
      var.mapRange(static_cast<std::size_t>(r.start), static_cast<std::size_t>(r.start) + r.count, tileNum);
    } else {
      for (std::size_t k = 0; k < r.count; ++k) {
        const auto e = static_cast<std::size_t>(r.start + static_cast<std::int64_t>(k) * r.stride);
        var.mapRange(e, e + 1, tileNum);
      }
    }
  });
}

void Graph::setTileMapping(const Tensor &t, const TileToTensorMapping &mapping) {
  const TensorImpl &impl = ownedImpl(*state_, t, "setTileMapping");
  if (mapping.size() > getTarget().getNumTiles())
    throw invalid_tile_mapping("Graph::setTileMapping: the mapping names " +
                               std::to_string(mapping.size()) + " tiles but the target has " +
                               std::to_string(getTarget().getNumTiles()));
  // A tensor that is one dense run of a variable (a variable, or a clone's slice)
  // maps each interval directly; any other goes through a view per interval.
  const std::vector<detail::Run> runs = impl.runs();
  detail::Variable *dense = runs.size() == 1 && (runs[0].stride == 1 || runs[0].count == 1)
                                ? &state_->vars->vars[runs[0].var]
                                : nullptr;
  const Tensor flat = t.flatten();
  std::vector<std::pair<Interval, unsigned>> ranges; // for the dense case, mapped in element order
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const Interval &i : mapping[tile]) {
      if (i.end() > impl.numElements() || i.begin() > i.end())
        throw invalid_tile_mapping("Graph::setTileMapping: interval " +
                                   std::to_string(i.begin()) + ".." + std::to_string(i.end()) +
                                   " is outside tensor " + impl.describe());
      if (dense) ranges.emplace_back(i, tile);
      else setTileMapping(flat.slice(i), tile);
    }
  // In element order each range lands at the end of the variable's mapping, which is
  // fast; overlapping intervals keep the given order, where later ones win.
  auto sorted = ranges;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto &a, const auto &b) { return a.first.begin() < b.first.begin(); });
  bool overlap = false;
  for (std::size_t k = 1; k < sorted.size(); ++k)
    overlap = overlap || sorted[k].first.begin() < sorted[k - 1].first.end();
  const auto start = runs.empty() ? 0 : static_cast<std::size_t>(runs[0].start);
  for (const auto &[i, tile] : overlap ? ranges : sorted)
    dense->mapRange(start + i.begin(), start + i.end(), topLevelTile(tile));
}

TileToTensorMapping Graph::getTileMapping(const Tensor &t, bool *isComplete, bool) const {
  const TensorImpl &impl = ownedImpl(*state_, t, "getTileMapping");
  TileToTensorMapping out(getTarget().getNumTiles());
  bool complete = true, outside = false; // outside: mapped to a tile that is not this virtual graph's
  std::size_t pos = 0;
  auto emit = [&](unsigned tile, std::size_t begin, std::size_t end) {
    auto &list = out[tile];
    if (!list.empty() && list.back().end() == begin) list.back() = Interval(list.back().begin(), end);
    else list.emplace_back(begin, end);
  };
  impl.forEachRun([&](const detail::Run &r) {
    const auto &var = state_->vars->vars[r.var];
    for (std::size_t k = 0; k < r.count;) {
      const auto e = static_cast<std::size_t>(r.start + static_cast<std::int64_t>(k) * r.stride);
      auto it = var.mapping.upper_bound(e);
      std::size_t n = 1;
      if (it == var.mapping.begin() || std::prev(it)->second.first <= e) {
        complete = false;
      } else {
        --it;
        if (r.stride == 1) n = std::min(r.count - k, it->second.first - e);
        const unsigned tile = view_ ? view_->virtualTile[it->second.second] : it->second.second;
        if (tile == detail::VirtualTiles::kNotHere) outside = true;
        else emit(tile, pos, pos + n);
      }
      pos += n;
      k += n;
    }
  });
  if (isComplete) *isComplete = complete && !outside;
  return out;
}

TileToTensorMapping Graph::getTileMapping(const Tensor &t, bool requireComplete, bool) const {
  bool complete = true;
  TileToTensorMapping out = getTileMapping(t, &complete);
  if (requireComplete && !complete)
    throw invalid_tile_mapping("Graph::getTileMapping: tensor " + detail::tensorImpl(t).describe() +
                               (view_ ? " is not completely mapped to this virtual graph's tiles"
                                      : " is not completely mapped to tiles"));
  return out;
}

TileToTensorMapping Graph::getVariableTileMapping(const Tensor &t) const {
  return getTileMapping(t, false);
}

DataStream Graph::addHostToDeviceFIFO(StringRef handle, const Type &elementType,
                                      std::size_t numElements, ReplicatedStreamMode mode,
                                      const OptionFlags &) {
  if (state_->streams.count(handle.str()))
    throw stream_connection_error("A stream with handle '" + handle.str() + "' already exists");
  const DataStream s = detail::Internals::owned(
      DataStream(handle.str(), elementType, numElements, DataStreamType::HostToDeviceFIFO, mode), state_);
  state_->streams[handle.str()] = s;
  return s;
}

DataStream Graph::addDeviceToHostFIFO(StringRef handle, const Type &elementType,
                                      std::size_t numElements, const OptionFlags &) {
  if (state_->streams.count(handle.str()))
    throw stream_connection_error("A stream with handle '" + handle.str() + "' already exists");
  const DataStream s =
      detail::Internals::owned(DataStream(handle.str(), elementType, numElements, DataStreamType::DeviceToHostFIFO), state_);
  state_->streams[handle.str()] = s;
  return s;
}

void Graph::createHostWrite(StringRef handle, const Tensor &t, bool) {
  ownedImpl(*state_, t, "createHostWrite");
  if (!state_->hostWrites.emplace(handle.str(), t).second)
    throw poplar_error("A host write with handle '" + handle.str() + "' already exists");
}

void Graph::createHostRead(StringRef handle, const Tensor &t, bool) {
  ownedImpl(*state_, t, "createHostRead");
  if (!state_->hostReads.emplace(handle.str(), t).second)
    throw poplar_error("A host read with handle '" + handle.str() + "' already exists");
}

ComputeSet Graph::addComputeSet(const DebugContext &debugContext) {
  state_->computeSets.push_back({debugContext.getPathName(), {}});
  return detail::Internals::owned(ComputeSet(static_cast<unsigned>(state_->computeSets.size() - 1)), state_);
}

Function Graph::addFunction(const program::Program &program) {
  state_->functions.push_back(program);
  return detail::Internals::owned(Function(static_cast<unsigned>(state_->functions.size() - 1)), state_);
}

HostFunction Graph::addHostFunction(StringRef handle, ArrayRef<HostFunctionArgument> in,
                                    ArrayRef<HostFunctionArgument> out) {
  for (const auto &h : state_->hostFunctions)
    if (h.handle == handle.str())
      throw graph_object_creation_error("A host function with handle '" + handle.str() + "' already exists");
  for (const auto *args : {&in, &out})
    for (const auto &arg : *args)
      if (!detail::typeInfo(std::get<0>(arg)).supportedOnDevice)
        throw type_error("Host function '" + handle.str() + "': argument type '" +
                         std::get<0>(arg).toString().str() + "' is not supported on the device");
  state_->hostFunctions.push_back({handle.str(), in.vec(), out.vec()});
  return detail::Internals::owned(HostFunction(static_cast<unsigned>(state_->hostFunctions.size() - 1)), state_);
}

bool Graph::isConstant(VariableRef v) const { return getVariable(v).containsConstant(); }

Tensor Graph::getVariable(VariableRef v) const {
  if (v.graph != state_->vars.get() || v.id >= state_->vars->vars.size())
    throw poplar_error("Graph::getVariable: the variable does not belong to this graph");
  const auto &var = state_->vars->vars[v.id];
  return detail::makeTensor(detail::makeVariableView(state_->vars, v.id, var.type, var.shape));
}

std::size_t Graph::numVariables() const { return state_->vars->vars.size(); }

} // namespace poplar
