#pragma once
#include <functional>
#include <memory>
#include <type_traits>

namespace poplar {

// Supplies (host-to-device) or consumes (device-to-host) one stream element buffer.
class StreamCallback {
public:
  enum class Result { Success, NotAvailable };
  virtual ~StreamCallback() = default;
  virtual Result prefetch(void *p) { return Result::NotAvailable; }
  virtual void fetch(void *p) = 0;
  virtual void complete() {}
  virtual void invalidatePrefetched() {}
};

class LegacyStreamCallback : public StreamCallback {
public:
  explicit LegacyStreamCallback(std::function<void(void *)> f) : f_(std::move(f)) {}
  void fetch(void *p) override { f_(p); }

private:
  std::function<void(void *)> f_;
};

class StreamCallbackHandle {
public:
  StreamCallbackHandle(std::unique_ptr<StreamCallback> cb) : cb_(std::move(cb)) {}
  template <class F, class = std::enable_if_t<std::is_invocable<F, void *>::value>>
  StreamCallbackHandle(F &&f)
      : cb_(std::make_unique<LegacyStreamCallback>(std::function<void(void *)>(std::forward<F>(f)))) {}
  std::unique_ptr<StreamCallback> release() { return std::move(cb_); }

private:
  std::unique_ptr<StreamCallback> cb_;
};

} // namespace poplar
