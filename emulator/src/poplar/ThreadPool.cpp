#include "ThreadPool.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

namespace poplar::detail {

namespace {
constexpr std::chrono::microseconds kAwake{200}; // how long a worker waits for work before sleeping
thread_local bool tInPool = false; // running a work item, or waiting for a call's items
thread_local unsigned tSlot = 0;   // a worker's slot; 0 on every other thread
thread_local unsigned tLimit = 0;  // ThreadPool::Limit on this thread (0: none)

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

ThreadPool::ThreadPool(unsigned threads) : ownerPid_(::getpid()) {
  for (unsigned slot = 1; slot < threads; ++slot) workers_.emplace_back([this, slot] { work(slot); });
}

ThreadPool::Limit::Limit(unsigned threads) : previous_(tLimit) { tLimit = threads; }
ThreadPool::Limit::~Limit() { tLimit = previous_; }

// Takes and runs items of the current call until none are left (none at all when
// the call uses fewer threads than `slot`).
void ThreadPool::takeItems(unsigned slot) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (next_ < count_ && slot < activeThreads_) {
    const std::size_t i = next_++;
    lock.unlock();
    try {
      (*fn_)(i, slot);
    } catch (...) {
      errors_[i] = std::current_exception(); // each item writes only its own slot
    }
    lock.lock();
    if (++finished_ == count_) done_.notify_all();
  }
}

void ThreadPool::work(unsigned slot) {
  tInPool = true;
  tSlot = slot;
  std::uint64_t seen = 0;
  for (;;) {
    // A while awake before sleeping: waking a sleeping thread can take tens of
    // microseconds (~40 measured in a 2-core VM), as long as a whole block of a product
    // (benchmarks/gemm_shapes.py: [32,256]x[256,1024] ran no faster on 2 threads than on 1).
    const auto deadline = std::chrono::steady_clock::now() + kAwake;
    while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
    }
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
    next_ = finished_ = 0;
    activeThreads_ = threads;
    errors_.assign(n, nullptr);
    ++generation_;
  }
  wake_.notify_all();
  tInPool = true;
  takeItems(0);
  tInPool = false;
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return finished_ == count_; });
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
