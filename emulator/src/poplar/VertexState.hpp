#pragma once
// What a Graph records about each custom vertex while it is being built.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <poplar/GraphElements.hpp>
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
