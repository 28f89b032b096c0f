#include <poplar/Internals.hpp>
#include <poplar/StreamCallback.hpp>

#include <condition_variable>
#include <mutex>

namespace poplar {

struct ResumableStreamCallback::Waiting {
  std::mutex mutex;
  std::condition_variable notified;
  bool awaiting = false;
};

ResumableStreamCallback::ResumableStreamCallback() : waiting_(new Waiting) {}
ResumableStreamCallback::~ResumableStreamCallback() = default;

void ResumableStreamCallback::notify() {
  {
    std::lock_guard<std::mutex> lock(waiting_->mutex);
    waiting_->awaiting = false;
  }
  waiting_->notified.notify_all();
}

bool ResumableStreamCallback::isAwaiting() const {
  std::lock_guard<std::mutex> lock(waiting_->mutex);
  return waiting_->awaiting;
}

namespace detail {
void Internals::fetchWhenReady(ResumableStreamCallback &cb, void *p) {
  ResumableStreamCallback::Waiting &w = *cb.waiting_;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    w.awaiting = true;
  }
  cb.fetch(p);
  std::unique_lock<std::mutex> lock(w.mutex);
  w.notified.wait(lock, [&w] { return !w.awaiting; });
}
} // namespace detail

} // namespace poplar
