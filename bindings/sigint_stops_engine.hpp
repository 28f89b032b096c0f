#pragma once
// Ctrl-C during Engine::run. Python handles SIGINT only between bytecodes, and a run holds
// no GIL for as long as it lasts, so Python's handler would wait for the run to end. While
// a SigintStopsEngine lives (around a run on Python's main thread) a SIGINT stops the
// engine instead (Engine::stop only sets a flag); passOnInterrupt() then gives the signal
// to Python's own handler, which raises KeyboardInterrupt by default.
#include <poplar/Engine.hpp>

namespace popdsl_bindings {

class SigintStopsEngine {
public:
  explicit SigintStopsEngine(poplar::Engine &engine);
  ~SigintStopsEngine(); // the previous handler again
  SigintStopsEngine(const SigintStopsEngine &) = delete;
  SigintStopsEngine &operator=(const SigintStopsEngine &) = delete;
  // Call with the GIL held after the run: if a SIGINT came, Python's handler runs now and
  // what it raises is thrown (as pybind11::error_already_set).
  void passOnInterrupt();

private:
  bool installed_ = false;
};

// Records the calling thread as Python's main thread (at module import).
void recordMainThread();

} // namespace popdsl_bindings
