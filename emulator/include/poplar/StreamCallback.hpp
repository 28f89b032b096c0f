#pragma once
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace poplar {

// Supplies (host-to-device) or consumes (device-to-host) one stream element buffer.
class StreamCallback {
public:
  enum class Result { Success, NotAvailable };
  virtual ~StreamCallback() = default;
  virtual Result prefetch(void *) { return Result::NotAvailable; }
  virtual void fetch(void *p) = 0;
  virtual void complete() {}
  virtual void invalidatePrefetched() {}
};

// A callback that never prefetches: derived classes implement fetch().
class LegacyStreamCallback : public StreamCallback {
public:
  Result prefetch(void *) final { return Result::NotAvailable; }
  void invalidatePrefetched() final {}
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
