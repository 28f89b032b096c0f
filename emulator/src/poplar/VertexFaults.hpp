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

namespace poplar::detail {

// While it lives, the calling thread runs `vertex` ("vertex 'X' (id 3) on tile 1") of
// compute set `computeSet`; both strings must outlive it. The first use on a thread gives
// it an alternate signal stack (a stack overflow can still be reported) and installs the
// fault handlers once per process.
class RunningVertex {
public:
  RunningVertex(const char *vertex, const char *computeSet);
  ~RunningVertex();
  RunningVertex(const RunningVertex &) = delete;
  RunningVertex &operator=(const RunningVertex &) = delete;

private:
  struct RunningVertexSlot *slot_;
};

} // namespace poplar::detail
