#pragma once
// What a Graph records about each custom vertex while it is being built.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <poplar/GraphElements.hpp>
#include <poplar/PerfEstimateFunc.hpp>
#include <poplar/Tensor.hpp>

#include "Codelets.hpp"

namespace poplar::detail {

struct VertexFieldState {
  // Edges: one tensor (rank 0 and 1) or one per list element (rank 2); an
  // invalid Tensor is not connected yet.
  std::vector<Tensor> edges;
  bool sized = false; // a list field's length was set (setFieldSize or a list connect)
  // A constant edge's value or a plain field's initial value(s), device format.
  std::vector<std::uint8_t> value;
  bool hasValue = false;
};

struct VertexInfo {
  std::shared_ptr<const VertexClass> cls;
  unsigned computeSet = 0;
  std::size_t kernelIndex = 0; // of its kernel in the compute set
  long tile = -1;
  bool hasPerfEstimate = false;
  std::uint64_t cycles = 0, flops = 0;
  std::vector<VertexFieldState> fields; // parallel to cls->fields
};

// What a VertexIntrospector looks at: one vertex of a graph, while an estimator runs.
struct VertexIntrospectorState {
  const GraphState *graph;
  unsigned vertexId;
};

// A snapshot of one field for FieldData.
struct FieldDataState {
  std::string name;
  std::string where; // "Vertex 'X' (id 3), field 'n'" for messages
  unsigned rank = 0;
  std::vector<std::size_t> sizes; // rank 0 and 1: one; rank 2: one per sub-vector
  Type elementType;
  bool hasValues = false;
  std::vector<std::uint8_t> values; // device format
  std::string whyNoValues;
};

// The estimate of vertex `id` from its type's registered estimator, if it has one.
std::optional<VertexPerfEstimate> registeredPerfEstimate(const GraphState &g, unsigned id);

struct VertexRefAccess {
  static VertexRef make(GraphState *graph, unsigned id) {
    VertexRef v;
    v.graph_ = graph;
    v.id_ = id;
    return v;
  }
  static GraphState *graph(const VertexRef &v) { return v.graph_; }
};

} // namespace poplar::detail
