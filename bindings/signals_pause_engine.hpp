#pragma once
// Signals during Engine::run. Python runs a signal's handler only between bytecodes of its
// main thread, and a run holds no GIL for as long as it lasts, so Python's handlers would
// wait for the run to end. While a SignalsPauseEngine lives (around a run on Python's main
// thread), each standard signal that has a Python handler (SIGINT, SIGTERM, SIGHUP, SIGUSR1,
// ...; not the fault signals) is handed to Python's C handler, which records it, and pauses
// the engine at its next step. There, with the GIL, Python's handlers run:
// the run resumes if they return, and ends with what they raise (KeyboardInterrupt for
// Ctrl-C by default). A second Ctrl-C before the run reached its next step (a vertex that
// does not return) ends the process with a message naming the running vertices.
#include <csignal>
#include <optional>
#include <vector>

#include <poplar/Engine.hpp>

#include <pybind11/pybind11.h>

namespace popdsl_bindings {

class SignalsPauseEngine {
public:
  explicit SignalsPauseEngine(poplar::Engine &engine);
  ~SignalsPauseEngine(); // the previous handlers again
  SignalsPauseEngine(const SignalsPauseEngine &) = delete;
  SignalsPauseEngine &operator=(const SignalsPauseEngine &) = delete;
  // Made, and this called after the run, with the GIL held: throws (error_already_set) what
  // a handler raised, running the handlers of signals the run ended before it paused for.
  void rethrow();

private:
  poplar::Engine *engine_ = nullptr; // null: nothing installed (another thread, or a run inside a run)
  std::vector<int> wrapped_;
  std::optional<pybind11::error_already_set> raised_;
};

// Records the calling thread as Python's main thread (at module import).
void recordMainThread();

} // namespace popdsl_bindings
