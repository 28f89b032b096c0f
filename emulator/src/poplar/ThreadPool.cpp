#include "ThreadPool.hpp"

#include <unistd.h>

#include <algorithm>
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

unsigned configuredThreads() {
  if (const char *env = std::getenv("POPDSL_NUM_THREADS")) {
    try {
      const int n = std::stoi(env);
      if (n >= 1) return static_cast<unsigned>(n);
    } catch (const std::exception &) {
    }
  }
  return std::max(1u, std::thread::hardware_concurrency());
}
} // namespace

// Never destroyed: the workers wait for work until the process ends. (Destroying the
// pool at exit would join them, and in a forked child, which has none of them, destroying
// its condition variables would wait forever for the parent's waiting workers.)
ThreadPool &ThreadPool::instance() {
  static ThreadPool *const pool = new ThreadPool(configuredThreads());
  return *pool;
}

ThreadPool::ThreadPool(unsigned threads)
    : spin_(threads <= std::thread::hardware_concurrency() ? kSpin : std::chrono::microseconds(0)),
      ownerPid_(::getpid()) {
  for (unsigned slot = 1; slot < threads; ++slot) workers_.emplace_back([this, slot] { work(slot); });
}

ThreadPool::Limit::Limit(unsigned threads) : previous_(tLimit) { tLimit = threads; }
ThreadPool::Limit::~Limit() { tLimit = previous_; }

// Under mutex_: takes an item of the current call for `slot`, its own if one is left,
// else the lowest left; false when none is left.
bool ThreadPool::claim(unsigned slot, std::size_t &item) {
  for (std::size_t &own = ownNext_[slot]; own < count_; own += activeThreads_)
    if (!claimed_[own]) {
      item = own;
      own += activeThreads_;
      claimed_[item] = 1;
      return true;
    }
  for (; stealNext_ < count_; ++stealNext_)
    if (!claimed_[stealNext_]) {
      item = stealNext_;
      claimed_[item] = 1;
      return true;
    }
  return false;
}

// Takes and runs items of the current call until none are left (none at all when
// the call uses fewer threads than `slot`).
void ThreadPool::takeItems(unsigned slot) {
  std::unique_lock<std::mutex> lock(mutex_);
  std::size_t i;
  while (slot < activeThreads_ && claim(slot, i)) {
    lock.unlock();
    try {
      (*fn_)(i, slot);
    } catch (...) {
      errors_[i] = std::current_exception(); // each item writes only its own slot
    }
    lock.lock();
    if (finished_.fetch_add(1) + 1 == count_) done_.notify_all();
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
    takeItems(slot);
  }
}

void ThreadPool::parallelFor(std::size_t n, const Work &fn) {
  const unsigned threads = tLimit ? std::min(tLimit, size()) : size();
  std::unique_lock<std::mutex> call(callMutex_, std::defer_lock);
  if (tInPool || threads < 2 || n < 2 || ::getpid() != ownerPid_ || !call.try_lock()) {
    for (std::size_t i = 0; i < n; ++i) fn(i, tSlot);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    count_ = n;
    claimed_.assign(n, 0);
    ownNext_.resize(threads);
    for (unsigned slot = 0; slot < threads; ++slot) ownNext_[slot] = slot;
    stealNext_ = 0;
    finished_ = 0;
    activeThreads_ = threads;
    errors_.assign(n, nullptr);
    ++generation_;
  }
  wake_.notify_all();
  tInPool = true;
  takeItems(0);
  tInPool = false;
  const auto finished = [&] { return finished_.load(std::memory_order_acquire) == n; };
  if (!spinUntil(spin_, finished)) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, finished);
  }
  std::unique_lock<std::mutex> lock(mutex_);
  fn_ = nullptr;
  count_ = 0;
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
