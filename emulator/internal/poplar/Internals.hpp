#pragma once
// The emulator's way into the implementation of the public classes. The public
// headers only name detail::Internals a friend; the emulator's libraries (and, until
// the backend seam, the bindings) reach graph, engine, executable, program and tensor
// state through the functions below. Not installed with the public headers.
#include <memory>

#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/StreamCallback.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplar/VertexIntrospector.hpp>

namespace poplar {
namespace detail {

struct GraphState;
struct EngineState;
struct ExecutableState;
struct ProgramNode;
struct TensorImpl;
struct FieldDataState;
struct VertexIntrospectorState;

struct Internals {
  static const std::shared_ptr<GraphState> &graphState(const Graph &graph) { return graph.state_; }
  static EngineState &engineState(const Engine &engine) { return *engine.state_; }
  static Engine engine(std::unique_ptr<EngineState> state);
  static const std::shared_ptr<const ExecutableState> &executableState(const Executable &exe) {
    return exe.state_;
  }
  static Executable executable(std::shared_ptr<const ExecutableState> state) {
    return Executable(std::move(state));
  }
  static const std::shared_ptr<ProgramNode> &programNode(const program::Program &program) {
    return program.node_;
  }
  static program::Program program(std::shared_ptr<ProgramNode> node) {
    return program::Program(std::move(node));
  }
  static const std::shared_ptr<const TensorImpl> &tensorImpl(const Tensor &t) { return t.impl_; }
  static Tensor tensor(std::shared_ptr<const TensorImpl> impl) { return Tensor(std::move(impl)); }
  static unsigned typeId(const Type &type) { return type.id_; }
  static FieldData fieldData(std::shared_ptr<const FieldDataState> state) { return FieldData(std::move(state)); }
  static const FieldDataState &fieldDataState(const FieldData &f) { return *f.state_; }
  static VertexIntrospector vertexIntrospector(std::shared_ptr<const VertexIntrospectorState> state, ComputeSet cs) {
    return VertexIntrospector(std::move(state), cs);
  }
  static const VertexIntrospectorState &vertexIntrospectorState(const VertexIntrospector &v) { return *v.vertex_; }
  static Type type(unsigned id) { return Type(id); }
  // The graph a compute set, function, host function or data stream belongs to
  // (unset for one made from a bare id), and the element marked as `graph`'s.
  template <class Element> static const std::weak_ptr<const GraphState> &owner(const Element &e) {
    return e.graph_;
  }
  template <class Element> static Element owned(Element e, const std::shared_ptr<const GraphState> &graph) {
    e.graph_ = graph;
    return e;
  }
  // Calls cb.fetch(p) and waits until the callback has called notify().
  static void fetchWhenReady(ResumableStreamCallback &cb, void *p);
};

// The emulator keeps state per tile, so a target has at most this many tiles
// (numIPUs x tilesPerIPU; the largest IPU-POD has 256 x 1472).
constexpr unsigned long long kMaxTiles = 1ull << 20;

// The index of a type in the emulator's type table, and the type of an index (an
// unknown index gives the invalid type).
inline unsigned typeId(const Type &type) { return Internals::typeId(type); }
Type typeFromId(unsigned id);

// The element type of a vertex field (for the bindings' getInitialValue).
Type fieldDataElementType(const FieldData &field);

// The graph's shared state (what Graph::state() was).
inline GraphState &graphState(const Graph &graph) { return *Internals::graphState(graph); }
inline const std::shared_ptr<GraphState> &graphStatePtr(const Graph &graph) {
  return Internals::graphState(graph);
}
// The compiled plan and runtime state of an engine (what Engine::state() was).
inline EngineState &engineState(const Engine &engine) { return Internals::engineState(engine); }
// The compiled content of an executable (what Executable::state()/statePtr() were);
// throws poplar_error for an empty one.
const ExecutableState &executableState(const Executable &exe);
inline const std::shared_ptr<const ExecutableState> &executableStatePtr(const Executable &exe) {
  return Internals::executableState(exe);
}
inline Executable makeExecutable(std::shared_ptr<const ExecutableState> state) {
  return Internals::executable(std::move(state));
}
// The program's tree node (what Program::node() was), and a program around a node.
inline const ProgramNode &programNode(const program::Program &program) {
  return *Internals::programNode(program);
}
inline program::Program programFromNode(std::shared_ptr<ProgramNode> node) {
  return Internals::program(std::move(node));
}
// The view's implementation (what Tensor::impl()/implPtr() were; throws poplar_error
// for a tensor that is not valid), and a tensor around one.
const TensorImpl &tensorImpl(const Tensor &t);
inline const std::shared_ptr<const TensorImpl> &tensorImplPtr(const Tensor &t) {
  return Internals::tensorImpl(t);
}
inline Tensor makeTensor(std::shared_ptr<const TensorImpl> impl) {
  return Internals::tensor(std::move(impl));
}

} // namespace detail
} // namespace poplar
