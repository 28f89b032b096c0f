#pragma once
// Small id wrappers for objects that live in a Graph.
#include <cstddef>
#include <memory>

#include <poplar/StringRef.hpp>

namespace poplar {

namespace detail {
struct GraphState;
struct Internals;
struct VertexRefAccess;
} // namespace detail

// The elements below are ids in the graph that made them; the emulator also keeps
// which graph that was (graph_, unset for one made from a bare id), so a program
// that uses one in another graph's engine is an error naming both graphs.

class ComputeSet {
public:
  ComputeSet() = default;
  explicit ComputeSet(unsigned id) : id_(id) {}
  unsigned getId() const { return id_; }
  friend bool operator==(ComputeSet a, ComputeSet b) { return a.id_ == b.id_; }

private:
  friend struct detail::Internals;
  unsigned id_ = ~0u;
  std::weak_ptr<const detail::GraphState> graph_;
};

class Function {
public:
  Function() = default;
  explicit Function(unsigned id) : id_(id) {}
  unsigned getId() const { return id_; }

private:
  friend struct detail::Internals;
  unsigned id_ = ~0u;
  std::weak_ptr<const detail::GraphState> graph_;
};

// Holds a copy of a Function's code (Graph::addFunctionBuffer), which
// program::Copy(FunctionBuffer, Function) loads into the function's place on the tiles.
class FunctionBuffer {
public:
  FunctionBuffer() = default;
  explicit FunctionBuffer(unsigned id) : id_(id) {}
  unsigned getId() const { return id_; }
  friend bool operator==(const FunctionBuffer &a, const FunctionBuffer &b) { return a.id_ == b.id_; }

private:
  friend struct detail::Internals;
  unsigned id_ = ~0u;
  std::weak_ptr<const detail::GraphState> graph_;
};

// A function run on the host, called from a program with program::Call.
class HostFunction {
public:
  HostFunction() = default;
  explicit HostFunction(unsigned id) : id_(id) {}
  unsigned getId() const { return id_; }

private:
  friend struct detail::Internals;
  unsigned id_ = ~0u;
  std::weak_ptr<const detail::GraphState> graph_;
};

class FieldRef;

// A vertex added to a compute set (Graph::addVertex); v["field"] names a field.
class VertexRef {
public:
  VertexRef() = default;
  unsigned getId() const { return id_; }
  // Throws unknown_field when the vertex's class has no such field.
  FieldRef operator[](StringRef fieldName) const;

private:
  friend struct detail::VertexRefAccess;
  detail::GraphState *graph_ = nullptr;
  unsigned id_ = ~0u;
};

// A field of a vertex; field[i] is element i of a list field (VectorList or
// Vector<Input<Vector<T>>>).
class FieldRef {
public:
  FieldRef() = default;
  FieldRef(const VertexRef &v, unsigned field) : vertex(v), fieldId(field) {}
  FieldRef operator[](std::size_t i) const {
    FieldRef f(vertex, fieldId);
    f.index = i;
    f.indexed = true;
    return f;
  }
  bool isIndexed() const { return indexed; }
  std::size_t getIndex() const { return index; }

  VertexRef vertex;
  unsigned fieldId = 0;
  std::size_t index = 0;
  bool indexed = false;
};

} // namespace poplar
