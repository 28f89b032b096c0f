#include <poplar/InstanceExchange.hpp>

#include <poplar/exceptions.hpp>

#include "MpiInstanceExchange.hpp"

namespace poplar::detail {

namespace {
std::shared_ptr<InstanceExchange> processExchange;
std::mutex processExchangeMutex;
thread_local std::shared_ptr<InstanceExchange> threadExchange;

class ThreadMember : public InstanceExchange {
public:
  ThreadMember(std::shared_ptr<ThreadInstanceGroup> group, unsigned index) : group_(std::move(group)), index_(index) {}
  unsigned instances() const override { return group_->instances(); }
  unsigned index() const override { return index_; }
  std::vector<std::string> allGather(const std::string &mine) override { return group_->allGather(index_, mine); }

private:
  std::shared_ptr<ThreadInstanceGroup> group_;
  unsigned index_;
};
} // namespace

void setThreadInstanceExchange(std::shared_ptr<InstanceExchange> exchange) { threadExchange = std::move(exchange); }

void setProcessInstanceExchange(std::shared_ptr<InstanceExchange> exchange) {
  const std::lock_guard<std::mutex> lock(processExchangeMutex);
  processExchange = std::move(exchange);
}

std::shared_ptr<InstanceExchange> currentInstanceExchange() {
  if (threadExchange) return threadExchange;
  {
    const std::lock_guard<std::mutex> lock(processExchangeMutex);
    if (processExchange) return processExchange;
  }
  return launcherInstanceExchange();
}

ThreadInstanceGroup::ThreadInstanceGroup(unsigned instances, double timeoutSeconds)
    : count_(instances), slots_(instances), arrived_(instances, false), timeout_(timeoutSeconds) {
  if (instances == 0) throw poplar_error("ThreadInstanceGroup: there must be at least one instance");
}

std::shared_ptr<InstanceExchange> ThreadInstanceGroup::member(unsigned index) {
  if (index >= instances())
    throw poplar_error("ThreadInstanceGroup::member: instance " + std::to_string(index) + " does not exist (the group has " +
                       std::to_string(instances()) + ")");
  return std::make_shared<ThreadMember>(shared_from_this(), index);
}

void ThreadInstanceGroup::abort(const std::string &why) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (aborted_.empty()) aborted_ = why;
  changed_.notify_all();
}

// A barrier in rounds: the last to arrive publishes every slot; the next round starts once
// everyone has taken the last round's result.
std::vector<std::string> ThreadInstanceGroup::allGather(unsigned index, const std::string &mine) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto failed = [&] { return poplar_error("instance " + std::to_string(index) + ": the exchange between instances was aborted: " + aborted_); };
  changed_.wait(lock, [&] { return leaving_ == 0 || !aborted_.empty(); });
  if (!aborted_.empty()) throw failed();
  slots_[index] = mine;
  arrived_[index] = true;
  const std::uint64_t round = round_;
  if (++arrivals_ == instances()) {
    result_.swap(slots_);
    slots_.assign(instances(), {});
    arrived_.assign(instances(), false);
    arrivals_ = 0;
    leaving_ = instances();
    ++round_;
    changed_.notify_all();
  } else if (!changed_.wait_for(lock, timeout_, [&] { return round_ != round || !aborted_.empty(); })) {
    std::string missing;
    for (unsigned k = 0; k < instances(); ++k)
      if (!arrived_[k]) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
    aborted_ = "instance(s) " + missing + " did not reach the exchange within " + std::to_string(timeout_.count()) + " s";
    changed_.notify_all();
    throw failed();
  }
  if (round_ == round) throw failed();
  std::vector<std::string> out = result_;
  if (--leaving_ == 0) changed_.notify_all();
  return out;
}

CallbackInstanceExchange::CallbackInstanceExchange(unsigned instances, unsigned index, AllGather allGather)
    : instances_(instances), index_(index), allGather_(std::move(allGather)) {
  if (index >= instances)
    throw poplar_error("CallbackInstanceExchange: instance " + std::to_string(index) + " does not exist (" +
                       std::to_string(instances) + " instance(s))");
}

std::vector<std::string> CallbackInstanceExchange::allGather(const std::string &mine) {
  std::vector<std::string> all = allGather_(mine);
  if (all.size() != instances_)
    throw poplar_error("CallbackInstanceExchange: the all-gather returned " + std::to_string(all.size()) +
                       " contributions for " + std::to_string(instances_) + " instances");
  return all;
}

} // namespace poplar::detail
