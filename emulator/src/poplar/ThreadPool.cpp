#include "ThreadPool.hpp"

#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <string>

namespace poplar::detail {

namespace {
thread_local bool tInPool = false;

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

ThreadPool &ThreadPool::instance() {
  static ThreadPool pool(configuredThreads());
  return pool;
}

ThreadPool::ThreadPool(unsigned threads) : ownerPid_(::getpid()) {
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto &t : workers_) t.join();
}

// Takes and runs items of the current call until none are left.
void ThreadPool::takeItems() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (next_ < count_) {
    const std::size_t i = next_++;
    lock.unlock();
    try {
      (*fn_)(i);
    } catch (...) {
      errors_[i] = std::current_exception(); // each item writes only its own slot
    }
    lock.lock();
    if (++finished_ == count_) done_.notify_all();
  }
}

void ThreadPool::work() {
  tInPool = true;
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    takeItems();
  }
}

void ThreadPool::parallelFor(std::size_t n, const std::function<void(std::size_t)> &fn) {
  std::unique_lock<std::mutex> call(callMutex_, std::defer_lock);
  if (tInPool || workers_.empty() || n < 2 || ::getpid() != ownerPid_ || !call.try_lock()) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    count_ = n;
    next_ = finished_ = 0;
    errors_.assign(n, nullptr);
    ++generation_;
  }
  wake_.notify_all();
  tInPool = true;
  takeItems();
  tInPool = false;
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return finished_ == count_; });
  fn_ = nullptr;
  count_ = 0;
  for (const auto &e : errors_)
    if (e) std::rethrow_exception(e);
}

} // namespace poplar::detail
