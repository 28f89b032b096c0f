#pragma once
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace poplar {

namespace detail {
struct Internals;
} // namespace detail

// What every stream callback can be told: a copy completed, or prefetched data is stale.
class StreamCallbackBase {
public:
  enum class Result { Success, NotAvailable };
  virtual ~StreamCallbackBase() = default;
  // Called after the data of a fetch (or of the prefetch it used) has been consumed.
  virtual void complete() = 0;
  // Called when data given by prefetch will not be used (the stream is connected
  // again, the engine is destroyed); does nothing unless overridden, as in the SDK.
  virtual void invalidatePrefetched() {}
};

// Supplies (host-to-device) or consumes (device-to-host) one stream element buffer.
//
// A host-to-device copy takes the data of the last successful prefetch(), else calls
// fetch(); then complete(). With exchange.enablePrefetch (the default) and stream
// buffers that cannot overlap (exchange.streamBufferOverlap none or
// hostRearrangeOnly, the default), the engine calls prefetch() for the next copy
// right after each copy completes; Result::NotAvailable leaves that copy to fetch().
class StreamCallback : public StreamCallbackBase {
public:
  virtual Result prefetch(void *p) = 0;
  virtual void fetch(void *p) = 0;
};

// A callback that never prefetches: derived classes implement fetch() only.
class LegacyStreamCallback : public StreamCallback {
public:
  Result prefetch(void *) final { return Result::NotAvailable; }
  void invalidatePrefetched() final {}
  void complete() override {}
};

// A callback whose fetch() may return before the buffer is ready: it calls notify()
// once it is (from any thread), and the engine waits for that before using it.
class ResumableStreamCallback : public StreamCallback {
public:
  ResumableStreamCallback();
  ResumableStreamCallback(const ResumableStreamCallback &) = delete;
  ResumableStreamCallback &operator=(const ResumableStreamCallback &) = delete;
  ~ResumableStreamCallback() override;
  // The buffer of the fetch in progress is ready.
  void notify();
  // Whether the engine is waiting for notify().
  bool isAwaiting() const;

private:
  friend struct detail::Internals;
  struct Waiting;
  std::unique_ptr<Waiting> waiting_;
};

class StreamCallbackHandle {
public:
  template <class Callback,
            class = typename std::enable_if<std::is_base_of<StreamCallback, Callback>::value>::type>
  StreamCallbackHandle(std::unique_ptr<Callback> cb) : cb_(std::move(cb)) {}
  // A function called with each element buffer.
  template <class F, class = decltype(std::declval<F &>()(static_cast<void *>(nullptr)))>
  StreamCallbackHandle(F &&f) : cb_(new FunctionCallback(std::forward<F>(f))) {}
  std::unique_ptr<StreamCallback> release() { return std::move(cb_); }

private:
  class FunctionCallback : public LegacyStreamCallback {
  public:
    explicit FunctionCallback(std::function<void(void *)> f) : f_(std::move(f)) {}
    void fetch(void *p) override { f_(p); }

  private:
    std::function<void(void *)> f_;
  };

  std::unique_ptr<StreamCallback> cb_;
};

} // namespace poplar
