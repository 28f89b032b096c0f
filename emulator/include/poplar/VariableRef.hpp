#pragma once
#include <cstddef>
#include <functional>

#include <poplar/Interval.hpp>

namespace poplar {

namespace detail {
struct VarTable;
} // namespace detail

// Identifies one variable (or constant) of a graph, as Tensor::getVarRegions gives it.
// A VariableRef built from an id alone names no graph's variable: Graph::getVariable
// refuses it.
class VariableRef {
public:
  explicit VariableRef(unsigned id) : id(id) {}
  VariableRef(unsigned id, const detail::VarTable *graph) : id(id), graph(graph) {}
  std::size_t hash() const { return std::hash<unsigned>()(id) ^ std::hash<const void *>()(graph); }

  unsigned id;
  const detail::VarTable *graph = nullptr;

  friend bool operator==(const VariableRef &a, const VariableRef &b) {
    return a.id == b.id && a.graph == b.graph;
  }
  friend bool operator!=(const VariableRef &a, const VariableRef &b) { return !(a == b); }
  friend bool operator<(const VariableRef &a, const VariableRef &b) {
    return a.graph != b.graph ? std::less<const void *>()(a.graph, b.graph) : a.id < b.id;
  }
};

// Elements [interval.begin(), interval.end()) of one variable.
struct VariableInterval {
  VariableInterval(VariableRef var, Interval interval) : var(var), interval(interval) {}
  VariableRef var;
  Interval interval;
  friend bool operator==(const VariableInterval &a, const VariableInterval &b) {
    return a.var == b.var && a.interval == b.interval;
  }
};

} // namespace poplar
