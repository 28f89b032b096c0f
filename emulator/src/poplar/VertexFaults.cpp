// The running vertex of each thread and the fault handlers that name it (VertexFaults.hpp).
// Everything a handler touches is a plain array or a lock-free atomic: no allocation,
// no locks, only write(2) and sigaction in a handler.
#include "VertexFaults.hpp"

#include <poplar/EmulatorExtensions.hpp>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace poplar::detail {

namespace {

// Threads that run vertices at once (the pool's and the callers'); one beyond them runs
// its vertices without a name for the handlers.
constexpr unsigned kSlots = 256;
RunningVertexSlot gSlots[kSlots];
thread_local RunningVertexSlot *tRunningSlot = nullptr; // for the handlers: a trivially initialised thread_local

constexpr std::size_t kAltStackBytes = 64 * 1024;
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction gPrevious[NSIG];
std::atomic<bool> gReported{false};

// Appends NUL-terminated text to a fixed buffer, dropping what does not fit.
class Line {
public:
  Line(char *out, std::size_t size) : out_(out), size_(size) {
    if (size_) out_[0] = '\0';
  }
  Line &operator<<(const char *text) {
    for (; *text && length_ + 1 < size_; ++text) out_[length_++] = *text;
    if (size_) out_[length_] = '\0';
    return *this;
  }
  std::size_t length() const { return length_; }

private:
  char *out_;
  std::size_t size_, length_ = 0;
};

const char *faultText(int sig) {
  switch (sig) {
  case SIGSEGV: return "made an invalid memory access or overflowed its stack (SIGSEGV)";
  case SIGBUS: return "accessed memory that cannot be read or written (SIGBUS)";
  case SIGFPE: return "made an arithmetic fault such as an integer division by zero (SIGFPE)";
  case SIGILL: return "executed an illegal instruction (SIGILL)";
  default: return "aborted: abort() or a failed assert (SIGABRT)";
  }
}

void appendVertex(Line &line, const RunningVertexSlot &slot) {
  const char *vertex = slot.vertex.load(std::memory_order_relaxed);
  const char *computeSet = slot.computeSet.load(std::memory_order_relaxed);
  if (!vertex) return;
  line << vertex;
  if (computeSet && *computeSet) line << " of compute set '" << computeSet << "'";
}

void writeAll(const char *text, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, size);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) {
      text += n;
      size -= static_cast<std::size_t>(n);
    }
  }
}

void onFault(int sig, siginfo_t *info, void *context) {
  const int savedErrno = errno;
  const RunningVertexSlot *slot = tRunningSlot;
  if (slot && slot->vertex.load(std::memory_order_relaxed) && !gReported.exchange(true)) {
    char text[1024];
    Line line(text, sizeof text);
    line << "popdsl: ";
    appendVertex(line, *slot);
    line << " " << faultText(sig)
         << " in compute(); the process ends. Run with the engine option emulator.checkVertexAccess "
            "to have out-of-bounds field accesses raise an error instead\n";
    writeAll(text, line.length());
  }
  // Hand the signal on: to the handler that was there before (faulthandler dumps Python's
  // stack, then ends the process), else to the default action.
  const struct sigaction &previous = gPrevious[sig];
  errno = savedErrno;
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else {
    struct sigaction fallback = {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    ::sigaction(sig, &fallback, nullptr);
    ::raise(sig); // blocked until this handler returns; a hardware fault also recurs on return
  }
}

void installFaultHandlers() {
  struct sigaction handler = {};
  handler.sa_sigaction = onFault;
  handler.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&handler.sa_mask);
  for (int sig : kFaultSignals) ::sigaction(sig, &handler, &gPrevious[sig]);
}

// A thread's slot and the alternate signal stack this code gave it (none where the thread
// had one: Python's faulthandler gives the main thread one), both freed when it ends.
struct ThreadState {
  void *altStack = nullptr;
  ThreadState() {
    for (RunningVertexSlot &s : gSlots) {
      bool expected = false;
      if (s.taken.compare_exchange_strong(expected, true)) {
        tRunningSlot = &s;
        break;
      }
    }
    stack_t current;
    if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
      altStack = std::malloc(kAltStackBytes);
      stack_t stack = {};
      stack.ss_sp = altStack;
      stack.ss_size = kAltStackBytes;
      if (altStack && ::sigaltstack(&stack, nullptr) != 0) {
        std::free(altStack);
        altStack = nullptr;
      }
    }
    static std::once_flag installed;
    std::call_once(installed, installFaultHandlers);
  }
  ~ThreadState() {
    if (altStack) {
      stack_t current;
      if (::sigaltstack(nullptr, &current) == 0 && current.ss_sp == altStack) {
        stack_t off = {};
        off.ss_flags = SS_DISABLE;
        ::sigaltstack(&off, nullptr);
        std::free(altStack);
      } // else someone else's stack replaced it: leave the memory, it may still be in use
    }
    if (tRunningSlot) {
      tRunningSlot->vertex.store(nullptr, std::memory_order_relaxed);
      tRunningSlot->taken.store(false, std::memory_order_release);
      tRunningSlot = nullptr;
    }
  }
};

RunningVertexSlot *threadSlot() {
  static thread_local ThreadState state;
  return tRunningSlot;
}

} // namespace

RunningVertices::RunningVertices(const char *computeSet) : slot_(threadSlot()) {
  if (slot_) slot_->computeSet.store(computeSet, std::memory_order_relaxed);
}

RunningVertices::~RunningVertices() {
  if (slot_) slot_->vertex.store(nullptr, std::memory_order_relaxed);
}

std::size_t describeRunningVertices(char *out, std::size_t size) {
  Line line(out, size);
  for (const RunningVertexSlot &slot : gSlots) {
    if (!slot.taken.load(std::memory_order_acquire) || !slot.vertex.load(std::memory_order_relaxed)) continue;
    if (line.length()) line << "; ";
    appendVertex(line, slot);
  }
  return line.length();
}

} // namespace poplar::detail
