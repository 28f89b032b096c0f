#pragma once
// The emulator's one seam between instances: processes (or threads) that each run a slice
// of one replicated graph's replicas, as poprun starts them (engine options
// target.firstRuntimeReplica / numberRuntimeReplica / syncReplicasIndependently). An
// engine whose replicas are a slice sends every collective through the exchange current
// on the thread that made it: all instances' contributions are gathered on every
// instance, which computes its own replicas' results exactly as one process would.
//
// Transports: ThreadInstanceGroup below (instances as threads of one process, for tests
// that need no launcher), CallbackInstanceExchange (any all-gather, e.g. MPI's through
// mpi4py; popdsl.distributed installs one under mpiexec) and, for a C++ program started by
// an MPI launcher, MPI itself, found at run time (src/poplar/MpiInstanceExchange.cpp). The
// SDK has no such seam: there the collectives are GCL programs on the IPU-Links.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace poplar::detail {

class InstanceExchange {
public:
  virtual ~InstanceExchange() = default;
  virtual unsigned instances() const = 0;
  virtual unsigned index() const = 0;
  // Every instance's `mine`, in instance order. Every instance calls it the same number of
  // times; an instance that cannot complete one throws poplar_error (never waits forever
  // where the transport can tell).
  virtual std::vector<std::string> allGather(const std::string &mine) = 0;
};

// The exchange an engine made on this thread uses: the thread's (set here), else the
// process's, else, in a process that an MPI launcher started as one of several ranks, one
// over that MPI (made on first use; poplar_error when no MPI library can be found); null:
// none (an engine running a slice of the replicas then fails at its first run, naming the
// missing exchange).
void setThreadInstanceExchange(std::shared_ptr<InstanceExchange> exchange);
void setProcessInstanceExchange(std::shared_ptr<InstanceExchange> exchange);
std::shared_ptr<InstanceExchange> currentInstanceExchange();

// `instances` instances in one process, one per thread. An all-gather waits up to
// `timeoutSeconds` for the others; abort(why) makes every waiting and later all-gather
// throw, naming why (a thread whose instance failed calls it, so the others never hang).
class ThreadInstanceGroup : public std::enable_shared_from_this<ThreadInstanceGroup> {
public:
  ThreadInstanceGroup(unsigned instances, double timeoutSeconds);
  unsigned instances() const { return count_; }
  std::shared_ptr<InstanceExchange> member(unsigned index);
  void abort(const std::string &why);
  std::vector<std::string> allGather(unsigned index, const std::string &mine);

private:
  unsigned count_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> slots_;
  std::vector<bool> arrived_;
  unsigned arrivals_ = 0, leaving_ = 0;
  std::uint64_t round_ = 0;
  std::vector<std::string> result_;
  std::string aborted_;
  std::chrono::duration<double> timeout_;
};

// An exchange whose all-gather is a function (popdsl.distributed hands mpi4py's in).
class CallbackInstanceExchange : public InstanceExchange {
public:
  using AllGather = std::function<std::vector<std::string>(const std::string &)>;
  CallbackInstanceExchange(unsigned instances, unsigned index, AllGather allGather);
  unsigned instances() const override { return instances_; }
  unsigned index() const override { return index_; }
  std::vector<std::string> allGather(const std::string &mine) override;

private:
  unsigned instances_, index_;
  AllGather allGather_;
};

} // namespace poplar::detail
