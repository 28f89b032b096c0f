#pragma once
// A fixed pool of threads for running independent work items (the tiles of a
// compute set). Sized by POPDSL_NUM_THREADS, else the number of cores.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace poplar::detail {

class ThreadPool {
public:
  static ThreadPool &instance();
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  // Threads that take work, the calling thread included.
  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Calls fn(i) for every i < n on the pool and the calling thread and returns
  // when all are done; rethrows the exception of the lowest failing i. Called
  // from inside a work item, while another call runs, or in a forked child, it runs inline.
  void parallelFor(std::size_t n, const std::function<void(std::size_t)> &fn);

private:
  void work();
  void takeItems();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::mutex callMutex_; // one parallelFor at a time
  std::condition_variable wake_, done_;
  const std::function<void(std::size_t)> *fn_ = nullptr;
  std::size_t count_ = 0, next_ = 0, finished_ = 0;
  std::uint64_t generation_ = 0;
  std::vector<std::exception_ptr> errors_;
  bool stopping_ = false;
  int ownerPid_; // a forked child has none of the workers: it runs work inline
};

} // namespace poplar::detail
