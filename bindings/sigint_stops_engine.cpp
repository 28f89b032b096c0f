#include "sigint_stops_engine.hpp"

#include <atomic>
#include <csignal>
#include <thread>

#include <pybind11/pybind11.h>

#include "backend.hpp"

namespace popdsl_bindings {

namespace {

std::thread::id mainThread;
std::atomic<poplar::Engine *> runningEngine{nullptr};
volatile std::sig_atomic_t interrupted = 0;
struct sigaction previous;

void stopTheRunningEngine(int) {
  interrupted = 1;
  if (poplar::Engine *engine = runningEngine.load()) engine->stop();
}

} // namespace

void recordMainThread() { mainThread = std::this_thread::get_id(); }

SigintStopsEngine::SigintStopsEngine(poplar::Engine &engine) {
  // Signal handlers belong to Python's main thread; runs elsewhere are not interrupted.
  if (!backend::engineStopIsAsyncSignalSafe() || std::this_thread::get_id() != mainThread) return;
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) return;
  interrupted = 0;
  runningEngine.store(&engine);
  struct sigaction stop = {};
  stop.sa_handler = stopTheRunningEngine;
  sigemptyset(&stop.sa_mask);
  installed_ = sigaction(SIGINT, &stop, &previous) == 0;
  if (!installed_) runningEngine.store(nullptr);
}

SigintStopsEngine::~SigintStopsEngine() {
  if (!installed_) return;
  sigaction(SIGINT, &previous, nullptr);
  runningEngine.store(nullptr);
}

void SigintStopsEngine::passOnInterrupt() {
  if (!installed_ || !interrupted) return;
  interrupted = 0;
  sigaction(SIGINT, &previous, nullptr);
  installed_ = false;
  runningEngine.store(nullptr);
  PyErr_SetInterrupt();
  if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
}

} // namespace popdsl_bindings
