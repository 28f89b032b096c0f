#pragma once
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include <poplar/ArrayRef.hpp>

namespace poplar {

// Called by program::Call(HostFunction, ...): `ins` hold the input tensors' elements
// (dense, device format) and the callback fills the buffers in `outs`.
class HostCallback {
public:
  virtual ~HostCallback() = default;
  virtual void operator()(ArrayRef<const void *> ins, ArrayRef<void *> outs) = 0;
};

class LambdaHostCallback : public HostCallback {
public:
  using Fn = std::function<void(ArrayRef<const void *>, ArrayRef<void *>)>;
  explicit LambdaHostCallback(Fn f) : f_(std::move(f)) {}
  void operator()(ArrayRef<const void *> ins, ArrayRef<void *> outs) override { f_(ins, outs); }

private:
  Fn f_;
};

class HostCallbackHandle {
public:
  template <class Callback,
            class = typename std::enable_if<std::is_base_of<HostCallback, Callback>::value>::type>
  HostCallbackHandle(std::unique_ptr<Callback> cb) : cb_(std::move(cb)) {}
  // A function called with the input and output buffers.
  template <class F, class = decltype(std::declval<F &>()(std::declval<ArrayRef<const void *>>(),
                                                          std::declval<ArrayRef<void *>>()))>
  HostCallbackHandle(F &&f) : cb_(new LambdaHostCallback(std::forward<F>(f))) {}
  std::unique_ptr<HostCallback> release() { return std::move(cb_); }

private:
  std::unique_ptr<HostCallback> cb_;
};

} // namespace poplar
