// VertexIntrospector and FieldData: what a perf estimator sees of a vertex, and
// the evaluation of registered estimators.
#include <poplar/VertexIntrospector.hpp>
#include <poplar/exceptions.hpp>

#include <cstring>

#include "GraphState.hpp"
#include "TensorImpl.hpp"
#include "TypeInfo.hpp"

namespace poplar {

namespace detail {

namespace {

// The device bytes of `t` when every element is a constant's, else false.
bool constantBytes(const GraphState &g, const Tensor &t, std::vector<std::uint8_t> &out) {
  const std::size_t size = typeSize(t.elementType());
  bool constant = true;
  out.clear();
  tensorImpl(t).forEachRun([&](const Run &r) {
    const Variable &var = g.vars->vars[r.var];
    if (!var.isConstant || var.data.empty()) {
      constant = false;
      return;
    }
    for (std::size_t k = 0; constant && k < r.count; ++k) {
      const std::int64_t e = r.start + static_cast<std::int64_t>(k) * r.stride;
      const std::uint8_t *p = var.data.data() + static_cast<std::size_t>(e) * size;
      out.insert(out.end(), p, p + size);
    }
  });
  return constant;
}

std::shared_ptr<const FieldDataState> snapshot(const GraphState &g, unsigned id, const std::string &fieldName) {
  const VertexInfo &v = g.vertices.at(id);
  const int index = v.cls->fieldIndex(fieldName);
  const std::string vertex = "Vertex '" + v.cls->name + "' (id " + std::to_string(id) + ")";
  if (index < 0) throw unknown_field(vertex + " has no field '" + fieldName + "'");
  const VertexField &field = v.cls->fields[static_cast<std::size_t>(index)];
  const VertexFieldState &f = v.fields[static_cast<std::size_t>(index)];
  auto s = std::make_shared<FieldDataState>();
  s->name = field.name;
  s->where = vertex + ", field '" + field.name + "'";
  s->rank = field.rank;
  s->elementType = field.elementType;
  const std::size_t elementSize = field.elementSize ? field.elementSize : 1;
  if (field.rank == 2) {
    for (const Tensor &t : f.edges) s->sizes.push_back(t.valid() ? t.numElements() : 0);
  } else if (field.rank == 0) {
    s->sizes.push_back(1);
  } else if (f.hasValue) {
    s->sizes.push_back(f.value.size() / elementSize);
  } else {
    s->sizes.push_back(!f.edges.empty() && f.edges[0].valid() ? f.edges[0].numElements() : 0);
  }
  if (f.hasValue) {
    s->hasValues = true;
    s->values = f.value;
  } else if (!field.isEdge()) {
    s->whyNoValues = "has no initial value (Graph::setInitialValue)";
  } else if (field.rank == 2) {
    s->whyNoValues = "is a list of edges: only plain fields and edges connected to constants have initial values";
  } else if (f.edges.empty() || !f.edges[0].valid()) {
    s->whyNoValues = "is not connected";
  } else if (constantBytes(g, f.edges[0], s->values)) {
    s->hasValues = true;
  } else {
    s->whyNoValues = "is connected to a tensor that is not a constant";
  }
  return s;
}

} // namespace

std::optional<VertexPerfEstimate> registeredPerfEstimate(const GraphState &g, unsigned id) {
  const VertexInfo &v = g.vertices.at(id);
  const auto it = g.perfEstimators.find(v.cls->name);
  if (it == g.perfEstimators.end()) return std::nullopt;
  auto state = std::make_shared<VertexIntrospectorState>(VertexIntrospectorState{&g, id});
  return it->second(Internals::vertexIntrospector(state, ComputeSet(v.computeSet)), g.target);
}

Type fieldDataElementType(const FieldData &field) { return Internals::fieldDataState(field).elementType; }

} // namespace detail

FieldData VertexIntrospector::getFieldInfo(const std::string &name) const {
  const detail::VertexIntrospectorState &s = *vertex_;
  return detail::Internals::fieldData(detail::snapshot(*s.graph, s.vertexId, name));
}

unsigned FieldData::rank() const { return state_->rank; }

std::size_t FieldData::size() const { return state_->rank == 2 ? state_->sizes.size() : state_->sizes.at(0); }

std::size_t FieldData::getSizeAtIndex(std::size_t i) const {
  if (state_->rank != 2)
    throw poplar_error(state_->where + " has rank " + std::to_string(state_->rank) +
                       ": getSizeAtIndex needs a 2-D field (VectorList or Vector<Input<Vector<T>>>)");
  if (i >= state_->sizes.size())
    throw index_error(state_->where + " has " + std::to_string(state_->sizes.size()) + " sub-vectors", i);
  return state_->sizes[i];
}

std::string FieldData::name() const { return state_->name; }

std::size_t FieldData::numInitialValues(const Target &) const {
  if (!state_->hasValues) throw poplar_error(state_->where + " " + state_->whyNoValues);
  return state_->values.size() / detail::typeSize(state_->elementType);
}

void FieldData::checkSingleInitialValue(const Target &target) const {
  const std::size_t n = numInitialValues(target);
  if (n != 1)
    throw poplar_error(state_->where + " has " + std::to_string(n) + " initial values: read them with getInitialValues");
}

namespace {
template <class T> void put(void *out, T value) { std::memcpy(out, &value, sizeof value); }
} // namespace

void FieldData::initialValueAs(std::size_t index, ValueKind kind, std::size_t size, void *out) const {
  const unsigned elementSize = detail::typeSize(state_->elementType);
  const long double v = detail::loadElement(state_->elementType, state_->values.data() + index * elementSize);
  // Negative values reach unsigned types as C++ converts signed integers (modulo 2^n).
  const auto integer = static_cast<std::int64_t>(v);
  switch (kind) {
  case Bool: put(out, v != 0); return;
  case Floating:
    if (size == sizeof(float)) put(out, static_cast<float>(v));
    else if (size == sizeof(double)) put(out, static_cast<double>(v));
    else put(out, v);
    return;
  case Signed:
  case Unsigned:
    if (kind == Unsigned && v >= 0x1p63L) { // beyond int64: only unsigned 64-bit holds it
      put(out, static_cast<std::uint64_t>(v));
      return;
    }
    if (size == 1) put(out, static_cast<std::uint8_t>(integer));
    else if (size == 2) put(out, static_cast<std::uint16_t>(integer));
    else if (size == 4) put(out, static_cast<std::uint32_t>(integer));
    else put(out, static_cast<std::uint64_t>(integer));
    return;
  }
}

} // namespace poplar
