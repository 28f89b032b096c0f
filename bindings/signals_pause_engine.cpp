#include "signals_pause_engine.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "backend.hpp"

namespace popdsl_bindings {

namespace {

std::thread::id mainThread;
std::atomic<poplar::Engine *> runningEngine{nullptr};
// A signal came since the run last paused; a SIGINT came that no pause has answered yet.
volatile std::sig_atomic_t signalled = 0, interruptUnanswered = 0;
struct sigaction previous[NSIG];

// Signals left alone: those no handler can catch, and the faults, which the emulator
// reports where they happen (a codelet's fault) and which cannot wait for a step.
bool leftAlone(int sig) {
  for (int s : {SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS})
    if (sig == s) return true;
  return false;
}

// Whether Python has a handler for `sig` (_signal.getsignal, the C function under
// signal.getsignal, gives a callable), and so its C handler is installed for it. Asking
// Python costs no system call: only these signals are looked at with sigaction, one or two
// a run in practice.
bool pythonHandles(int sig) {
  static const pybind11::handle getsignal =
      pybind11::object(pybind11::module_::import("_signal").attr("getsignal")).release(); // kept for good
  PyObject *handler = PyObject_CallOneArg(getsignal.ptr(), pybind11::int_(sig).ptr());
  if (!handler) {
    PyErr_Clear(); // not a signal number this system has
    return false;
  }
  const bool callable = PyCallable_Check(handler);
  Py_DECREF(handler);
  return callable;
}

bool hasHandler(const struct sigaction &a) {
  if (a.sa_flags & SA_SIGINFO) return a.sa_sigaction != nullptr;
  return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

void appendText(char *out, std::size_t size, const char *text) {
  const std::size_t at = std::strlen(out);
  std::strncat(out + at, text, size - at - 1);
}

// The process ends as a SIGINT with no handler ends it, after one line naming what runs.
[[noreturn]] void endProcessOnSecondInterrupt() {
  char text[2048] = "popdsl: a second Ctrl-C before the run reached its next step; ";
  char vertices[1536];
  if (backend::describeRunningVertices(vertices, sizeof vertices) > 0) {
    appendText(text, sizeof text, "still running: ");
    appendText(text, sizeof text, vertices);
  } else {
    appendText(text, sizeof text, "no custom vertex is running");
  }
  appendText(text, sizeof text, ". Ending the process.\n");
  for (std::size_t done = 0, size = std::strlen(text); done < size;) {
    const ssize_t n = ::write(STDERR_FILENO, text + done, size - done);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(SIGINT, &fallback, nullptr);
  ::raise(SIGINT);
  ::_exit(128 + SIGINT); // SIGINT was blocked after all
}

void onSignal(int sig, siginfo_t *info, void *context) {
  const int savedErrno = errno;
  if (sig == SIGINT) {
    if (interruptUnanswered) {
      ::sigset_t interrupt;
      sigemptyset(&interrupt);
      sigaddset(&interrupt, SIGINT);
      ::pthread_sigmask(SIG_UNBLOCK, &interrupt, nullptr); // so that raise() ends the process now
      endProcessOnSecondInterrupt();
    }
    interruptUnanswered = 1;
  }
  const struct sigaction &handler = previous[sig]; // Python's: it records the signal
  if (handler.sa_flags & SA_SIGINFO) handler.sa_sigaction(sig, info, context);
  else handler.sa_handler(sig);
  signalled = 1;
  if (poplar::Engine *engine = runningEngine.load()) backend::pauseRun(*engine);
  errno = savedErrno;
}

bool isOurs(const struct sigaction &a) { return (a.sa_flags & SA_SIGINFO) && a.sa_sigaction == onSignal; }

} // namespace

void recordMainThread() { mainThread = std::this_thread::get_id(); }

SignalsPauseEngine::SignalsPauseEngine(poplar::Engine &engine) {
  // Signal handlers belong to Python's main thread; runs elsewhere are not paused. A run
  // inside a run (from a callback) leaves the outer run's handlers in place.
  if (!backend::runsPauseForSignals() || std::this_thread::get_id() != mainThread || runningEngine.load()) return;
  engine_ = &engine;
  signalled = 0;
  interruptUnanswered = 0;
  runningEngine.store(&engine);
  backend::setPauseHandler(engine, [this] {
    signalled = 0;
    interruptUnanswered = 0;
    pybind11::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return true;
    raised_.emplace(); // fetches what the handler raised
    return false;
  });
  struct sigaction ours = {};
  ours.sa_sigaction = onSignal;
  sigemptyset(&ours.sa_mask);
  for (int sig = 1; sig < 32; ++sig) { // the standard signals
    struct sigaction current;
    if (leftAlone(sig) || !pythonHandles(sig) || ::sigaction(sig, nullptr, &current) != 0 || !hasHandler(current) ||
        isOurs(current))
      continue;
    previous[sig] = current;
    ours.sa_flags = SA_SIGINFO | (current.sa_flags & (SA_ONSTACK | SA_RESTART));
    if (::sigaction(sig, &ours, nullptr) == 0) wrapped_.push_back(sig);
  }
}

SignalsPauseEngine::~SignalsPauseEngine() {
  if (!engine_) return;
  for (int sig : wrapped_) {
    struct sigaction replaced;
    ::sigaction(sig, &previous[sig], &replaced);
    if (!isOurs(replaced)) ::sigaction(sig, &replaced, nullptr); // a handler set during the run stays
  }
  backend::setPauseHandler(*engine_, {});
  runningEngine.store(nullptr);
}

void SignalsPauseEngine::rethrow() {
  if (!engine_) return;
  if (raised_) {
    pybind11::error_already_set error = std::move(*raised_);
    raised_.reset();
    throw error;
  }
  if (!signalled) return;
  signalled = 0; // the run ended before it could pause: Python's handlers run now
  interruptUnanswered = 0;
  if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
}

} // namespace popdsl_bindings
