#pragma once
// A fixed pool of threads for running independent work items (the tiles of a
// compute set, the blocks of a kernel's elements). Sized by POPDSL_NUM_THREADS,
// else the number of cores; an engine's "emulator.numThreads" option uses fewer.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace poplar::detail {

class ThreadPool {
public:
  // fn(item, slot): slot (< size()) names the thread running the item, so callers can
  // keep scratch per thread; within a call, one slot never runs two items at once.
  using Work = std::function<void(std::size_t item, unsigned slot)>;

  // The process's pool, made on first use.
  static ThreadPool &instance();
  // Threads that take work, the calling thread included.
  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Calls fn for every item < n on the pool and the calling thread and returns when
  // all are done; rethrows the exception of the lowest failing item. Slot s owns items
  // s, s + threads, ... and runs them from the front, unless another slot, done with
  // its own, takes some from the back first: a thread works on the same data from one
  // call to the next, and keeps it in its cache, while the threads stream through
  // neighbouring memory together (halves apiece made a map over 8M floats 15-20% slower).
  // Called from inside a work item, while another call runs, in a forked child or under
  // a Limit of one thread, it runs the items in order on the calling thread.
  void parallelFor(std::size_t n, const Work &fn);

  // While it lives, parallelFor calls made on this thread use at most `threads`
  // threads (0: all of them). The Engine sets it from its option while it runs.
  class Limit {
  public:
    explicit Limit(unsigned threads);
    ~Limit();
    Limit(const Limit &) = delete;
    Limit &operator=(const Limit &) = delete;

  private:
    unsigned previous_;
  };

private:
  // The rounds a slot has left of the current call (round r: its unit slot + r * threads):
  // [begin, end) and the call's tag (the low bits of its generation) in one word, so that
  // its owner (from the front) and other slots (from the back) claim units with one
  // compare-and-swap each, and a slot that is late for a call cannot take one of the next.
  struct alignas(64) Range {
    std::atomic<std::uint64_t> word{0};
  };

  explicit ThreadPool(unsigned threads);
  void work(unsigned slot);
  void takeItems(unsigned slot, std::uint64_t generation);
  bool claim(Range &range, std::uint64_t generation, bool fromBack, std::size_t &round);
  void runUnit(std::size_t unit, unsigned slot);

  std::vector<std::thread> workers_;
  std::mutex mutex_;     // guards the sleeping threads' wake-ups
  std::mutex callMutex_; // one parallelFor at a time
  std::condition_variable wake_, done_;
  // The current call, written before its generation is published.
  const Work *fn_ = nullptr;
  std::size_t count_ = 0;   // items
  std::size_t perUnit_ = 1; // items a claim takes (more than one only for calls of very many items)
  std::size_t units_ = 0;
  std::vector<Range> ranges_; // one per slot
  std::atomic<unsigned> activeThreads_{0}; // slots below this take items of the current call
  std::atomic<std::size_t> finished_{0};   // units done
  std::atomic<std::uint64_t> generation_{0};
  std::vector<std::exception_ptr> errors_;
  const std::chrono::microseconds spin_; // how long waiting threads poll before they sleep
  int ownerPid_; // a forked child has none of the workers: it runs work inline
};

// Runs fn(begin, end, slot) over [0, n) cut into blocks of `grain` elements (the
// last one shorter). The blocks are the same whatever the thread count, so work
// that combines per-block results in block order gets the same bits on any pool;
// with fewer than two blocks it is one call on the calling thread.
void parallelBlocks(std::size_t n, std::size_t grain,
                    const std::function<void(std::size_t begin, std::size_t end, unsigned slot)> &fn);

} // namespace poplar::detail
