#pragma once
// Small id wrappers for objects that live in a Graph.
namespace poplar {

class ComputeSet {
public:
  ComputeSet() = default;
  explicit ComputeSet(unsigned id) : id_(id) {}
  unsigned getId() const { return id_; }
  friend bool operator==(ComputeSet a, ComputeSet b) { return a.id_ == b.id_; }

private:
  unsigned id_ = ~0u;
};

class Function {
public:
  Function() = default;
  explicit Function(unsigned id) : id_(id) {}
  unsigned getId() const { return id_; }

private:
  unsigned id_ = ~0u;
};

// A function run on the host, called from a program with program::Call.
class HostFunction {
public:
  HostFunction() = default;
  explicit HostFunction(unsigned id) : id_(id) {}
  unsigned getId() const { return id_; }

private:
  unsigned id_ = ~0u;
};

} // namespace poplar
