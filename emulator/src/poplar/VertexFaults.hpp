#pragma once
// Which custom vertex each thread is running, so that a fault inside a codelet's compute()
// (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, a stack overflow) is reported with the vertex
// before the process ends, and a second Ctrl-C can name the vertex that does not return.
//
// A fault ends the process: the codelet may already have written over memory the
// interpreter uses, so going on would risk wrong results or a later, unexplained crash.
// The handlers write one line to stderr (async-signal-safe) and hand the signal on to the
// handler that was there before (Python's faulthandler, or the default action).
// describeRunningVertices (EmulatorExtensions.hpp) lists the vertices running now.

#include <atomic>

namespace poplar::detail {

// What one thread is running, read by the handlers (of this thread, or of a second Ctrl-C).
struct alignas(64) RunningVertexSlot {
  std::atomic<bool> taken{false};
  std::atomic<const char *> vertex{nullptr}, computeSet{nullptr};
};

// While it lives, the calling thread runs vertices of compute set `computeSet` (a name that
// outlives it), each named with now() before it runs: one store a vertex. The first on a
// thread gives the thread an alternate signal stack (so a stack overflow can be reported)
// and installs the fault handlers once per process.
class RunningVertices {
public:
  explicit RunningVertices(const char *computeSet);
  ~RunningVertices();
  RunningVertices(const RunningVertices &) = delete;
  RunningVertices &operator=(const RunningVertices &) = delete;
  // `vertex` ("vertex 'X' (id 3) on tile 1"), which must outlive this, runs from now on.
  void now(const char *vertex) {
    if (slot_) slot_->vertex.store(vertex, std::memory_order_relaxed);
  }

private:
  RunningVertexSlot *slot_;
};

} // namespace poplar::detail
