#include "ThreadPool.hpp"

#include <unistd.h>

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>

namespace poplar::detail {

namespace {
// A spin-wait hint: the polling thread yields its core's resources for a moment.
inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

thread_local bool tInPool = false; // running a work item, or waiting for a call's items
thread_local unsigned tSlot = 0;   // a worker's slot; 0 on every other thread
thread_local unsigned tLimit = 0;  // ThreadPool::Limit on this thread (0: none)

// How long a waiting thread polls before it sleeps. Calls come in quick succession while
// an engine runs (the products and maps of an LSTM's steps, tens of microseconds apart),
// and waking a sleeping thread takes the kernel, and a virtual machine's hypervisor, far
// longer than that; polling for longer than the gaps would only take the cores from
// other processes. A pool with more threads than cores never polls: its pollers would
// take the cores from the threads doing the work.
constexpr auto kSpin = std::chrono::microseconds(50);

// Polls `ready` for `spin`; whether it came true.
template <class Ready> bool spinUntil(std::chrono::microseconds spin, const Ready &ready) {
  if (spin.count() == 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + spin;
  for (;;) {
    for (int i = 0; i < 64; ++i) { // reading the clock costs more than a poll
      if (ready()) return true;
      pause();
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
}

// The most threads POPDSL_NUM_THREADS may ask for: far past any useful count, well short of
// a count whose start-up alone takes minutes.
constexpr long long kMaxConfiguredThreads = 1024;

// POPDSL_NUM_THREADS, else one thread per core. A value that is not a whole number in range
// is refused by name: ignoring a typo, or starting 100000 threads, costs more than an error.
unsigned configuredThreads() {
  const char *env = std::getenv("POPDSL_NUM_THREADS");
  if (env == nullptr || *env == '\0') return std::max(1u, std::thread::hardware_concurrency());
  char *end = nullptr;
  errno = 0;
  const long long n = std::strtoll(env, &end, 10);
  if (*end != '\0' || errno == ERANGE || n < 1 || n > kMaxConfiguredThreads)
    throw poplar_error("POPDSL_NUM_THREADS='" + std::string(env) +
                       "': the emulator's thread count must be a whole number from 1 to " +
                       std::to_string(kMaxConfiguredThreads) + " (unset: one thread per core, " +
                       std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " here)");
  return static_cast<unsigned>(n);
}
} // namespace

// Never destroyed: the workers wait for work until the process ends. (Destroying the
// pool at exit would join them, and in a forked child, which has none of them, destroying
// its condition variables would wait forever for the parent's waiting workers.) A refused
// POPDSL_NUM_THREADS throws from the first call, and leaves the next call to try again.
ThreadPool &ThreadPool::instance() {
  static ThreadPool *const pool = new ThreadPool(configuredThreads());
  return *pool;
}

ThreadPool::ThreadPool(unsigned threads)
    : ranges_(threads),
      spin_(threads <= std::thread::hardware_concurrency() ? kSpin : std::chrono::microseconds(0)),
      ownerPid_(::getpid()) {
  for (unsigned slot = 1; slot < threads; ++slot) workers_.emplace_back([this, slot] { work(slot); });
}

ThreadPool::Limit::Limit(unsigned threads) : previous_(tLimit) { tLimit = threads; }
ThreadPool::Limit::~Limit() { tLimit = previous_; }

namespace {
// A Range's word: the call's tag in the top 16 bits, then begin and end in 24 bits each.
constexpr unsigned kEndBits = 24;
constexpr std::uint64_t kMaxUnits = (std::uint64_t(1) << kEndBits) - 1;
constexpr std::uint64_t kTagMask = 0xffff;

std::uint64_t rangeWord(std::uint64_t generation, std::uint64_t begin, std::uint64_t end) {
  return (generation & kTagMask) << (2 * kEndBits) | begin << kEndBits | end;
}
} // namespace

// Takes a round of `range` for the call of `generation`: its first (its owner) or its last
// (another slot); false when it has none left, or belongs to another call.
bool ThreadPool::claim(Range &range, std::uint64_t generation, bool fromBack, std::size_t &round) {
  std::uint64_t word = range.word.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t begin = word >> kEndBits & kMaxUnits, end = word & kMaxUnits;
    if ((word >> 2 * kEndBits) != (generation & kTagMask) || begin >= end) return false;
    const std::uint64_t taken = fromBack ? rangeWord(generation, begin, end - 1)
                                         : rangeWord(generation, begin + 1, end);
    // Acquire: the call's fn_, count_ and errors_ were written before its ranges.
    if (range.word.compare_exchange_weak(word, taken, std::memory_order_acquire, std::memory_order_relaxed)) {
      round = fromBack ? end - 1 : begin;
      return true;
    }
  }
}

void ThreadPool::runUnit(std::size_t unit, unsigned slot) {
  const std::size_t first = unit * perUnit_, last = std::min(count_, first + perUnit_);
  for (std::size_t i = first; i < last; ++i) {
    try {
      (*fn_)(i, slot);
    } catch (...) {
      errors_[i] = std::current_exception(); // each item writes only its own entry
    }
  }
}

// Runs units of the call of `generation`: the slot's own from the front, then the other
// slots' from the back. The units it ran count as finished in one step.
void ThreadPool::takeItems(unsigned slot, std::uint64_t generation) {
  const unsigned active = activeThreads_.load(std::memory_order_acquire);
  if (slot >= active) return;
  std::size_t done = 0, round;
  for (unsigned k = 0; k < active; ++k) {
    const unsigned owner = (slot + k) % active;
    while (claim(ranges_[owner], generation, k != 0, round)) {
      runUnit(owner + round * active, slot);
      ++done;
    }
  }
  if (done == 0) return;
  const std::size_t units = units_; // read before the call can finish and the next one set it
  if (finished_.fetch_add(done, std::memory_order_acq_rel) + done == units) {
    std::lock_guard<std::mutex> lock(mutex_);
    done_.notify_all();
  }
}

void ThreadPool::work(unsigned slot) {
  tInPool = true;
  tSlot = slot;
  std::uint64_t seen = 0;
  const auto called = [&] { return generation_.load(std::memory_order_acquire) != seen; };
  for (;;) {
    if (!spinUntil(spin_, called)) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, called);
    }
    seen = generation_.load(std::memory_order_acquire);
    takeItems(slot, seen);
  }
}

void ThreadPool::parallelFor(std::size_t n, const Work &fn) {
  const unsigned threads = tLimit ? std::min(tLimit, size()) : size();
  std::unique_lock<std::mutex> call(callMutex_, std::defer_lock);
  if (tInPool || threads < 2 || n < 2 || ::getpid() != ownerPid_ || !call.try_lock()) {
    for (std::size_t i = 0; i < n; ++i) fn(i, tSlot);
    return;
  }
  fn_ = &fn;
  count_ = n;
  perUnit_ = (n + kMaxUnits - 1) / kMaxUnits;
  units_ = (n + perUnit_ - 1) / perUnit_;
  errors_.assign(n, nullptr);
  finished_.store(0, std::memory_order_relaxed);
  activeThreads_.store(threads, std::memory_order_relaxed);
  const std::uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
  for (unsigned slot = 0; slot < ranges_.size(); ++slot) { // slot s: units s, s + threads, ...
    const std::uint64_t rounds = slot < threads && slot < units_ ? (units_ - slot + threads - 1) / threads : 0;
    ranges_[slot].word.store(rangeWord(generation, 0, rounds), std::memory_order_release);
  }
  {
    // Under the mutex, so that a worker about to sleep sees either the new generation or the wake-up.
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.store(generation, std::memory_order_release);
  }
  wake_.notify_all();
  tInPool = true;
  takeItems(0, generation);
  tInPool = false;
  const auto finished = [&] { return finished_.load(std::memory_order_acquire) == units_; };
  if (!spinUntil(spin_, finished)) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, finished);
  }
  fn_ = nullptr;
  for (const auto &e : errors_)
    if (e) std::rethrow_exception(e);
}

void parallelBlocks(std::size_t n, std::size_t grain,
                    const std::function<void(std::size_t begin, std::size_t end, unsigned slot)> &fn) {
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t blocks = (n + grain - 1) / grain;
  if (blocks < 2) {
    fn(0, n, tSlot);
    return;
  }
  ThreadPool::instance().parallelFor(blocks, [&](std::size_t block, unsigned slot) {
    const std::size_t begin = block * grain;
    fn(begin, std::min(n, begin + grain), slot);
  });
}

} // namespace poplar::detail
