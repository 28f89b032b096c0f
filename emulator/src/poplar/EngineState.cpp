// An engine's state at run time: memory access, streams, the instruction interpreter and replicas in lockstep.
#include "EngineState.hpp"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "Instances.hpp"
#include "TensorImpl.hpp"

namespace poplar::detail {

Access EngineState::access(const Tensor &t) {
  const TensorImpl &impl = detail::tensorImpl(t);
  if (impl.vars != graph->vars)
    throw graph_program_compilation_error("Tensor " + impl.describe() + " belongs to a different graph");
  Access a;
  a.type = impl.type;
  a.elemSize = typeSize(impl.type);
  a.numElements = impl.numElements();
  std::set<unsigned> vars;
  impl.forEachRun([&](const Run &r) {
    if (r.var >= memory.size())
      throw graph_program_compilation_error("Tensor " + impl.describe() +
                                            " uses a variable added after the Engine was compiled");
    a.segments.push_back(Segment{memory[r.var].get() + r.start * a.elemSize, r.count,
                                 static_cast<std::ptrdiff_t>(r.stride) * a.elemSize});
    vars.insert(r.var);
  });
  a.vars.assign(vars.begin(), vars.end());
  usedVars.insert(vars.begin(), vars.end());
  for (unsigned v : vars) ++pendingUses[v].first;
  return a;
}

void EngineState::noteWrite(const Tensor &t) {
  std::set<unsigned> vars;
  detail::tensorImpl(t).forEachRun([&](const Run &r) { vars.insert(r.var); });
  for (unsigned v : vars) ++pendingUses[v].second;
}

void EngineState::estimateCycles() {
  if (estimated) return;
  const CostModel model(graph->target, *graph->vars);
  for (auto &step : steps) {
    step->cost = step->estimate(model);
    step->cycles = step->cost.total();
  }
  if (graph->target.getNumIPUs() > 1) spanBranches();
  estimated = true;
}

void EngineState::spanBranches() {
  using Span = CycleEstimate::Span;
  // Inner scopes first, so that an outer one sees what its inner branches decided.
  std::vector<BranchScope> scopes = branchScopes;
  std::stable_sort(scopes.begin(), scopes.end(),
                   [](const BranchScope &a, const BranchScope &b) { return a.end - a.begin < b.end - b.begin; });
  for (const BranchScope &scope : scopes) {
    CycleEstimate &branch = steps[scope.step]->cost;
    std::set<unsigned> ipus(branch.ipus.begin(), branch.ipus.end());
    bool everyIpu = branch.span == Span::AllIpus;
    for (std::uint32_t pc = scope.begin; pc < scope.end && !everyIpu; ++pc) {
      if (code[pc].op == Op::Call) everyIpu = true; // the function's steps are elsewhere
      if (code[pc].op != Op::Run) continue;
      const CycleEstimate &cost = steps[code[pc].arg]->cost;
      if (cost.span == Span::AllIpus) everyIpu = true;
      if (cost.span == Span::Ipus) ipus.insert(cost.ipus.begin(), cost.ipus.end());
    }
    if (everyIpu) {
      branch.span = Span::AllIpus;
      branch.ipus.clear();
    } else {
      branch.ipus.assign(ipus.begin(), ipus.end());
    }
  }
}

std::string EngineState::replicasText() const {
  if (slice.whole()) return "the graph has " + std::to_string(slice.total) + " replica(s)";
  return "this instance runs replicas " + std::to_string(slice.first) + " to " +
         std::to_string(slice.first + slice.count - 1) + " of " + std::to_string(slice.total) + " as 0 to " +
         std::to_string(slice.count - 1);
}

void EngineState::resetMemory() {
  const auto &vars = graph->vars->vars;
  for (std::size_t i = 0; i < memory.size(); ++i) {
    const std::size_t bytes = vars[i].numElements * typeSize(vars[i].type);
    if (vars[i].data.empty()) std::memset(memory[i].get(), 0, bytes);
    else std::memcpy(memory[i].get(), vars[i].data.data(), bytes);
  }
  const std::uint32_t index = replica;
  for (unsigned id : graph->replicaIndexVars)
    if (id < memory.size()) std::memcpy(memory[id].get(), &index, sizeof index);
}

bool Scalar::isTrue() const {
  if (type == HALF) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return (h & 0x7fffu) != 0;
  }
  return loadElement(type, p) != 0;
}

std::int64_t Scalar::value() const { return static_cast<std::int64_t>(loadElement(type, p)); }

void StreamState::transfer(std::uint8_t *device, std::size_t bytes, bool toDevice) {
  // Copies between the device-side buffer and `n` host bytes at `host`.
  const auto move = [&](std::uint8_t *host, std::size_t offset, std::size_t n) {
    if (toDevice) std::memcpy(device + offset, host, n);
    else std::memcpy(host, device + offset, n);
  };
  switch (mode) {
  case Mode::Unconnected:
    throw stream_connection_error("Stream '" + stream.handle() +
                                  "' is not connected: call Engine::connectStream or "
                                  "connectStreamToCallback before running");
  case Mode::Buffer:
    move(begin + slot * bytes, 0, bytes);
    return;
  case Mode::Circular: {
    // Each copy takes `slots` items (one per replica) from the buffer; this replica's
    // is item `slot`.
    const std::size_t size = static_cast<std::size_t>(end - begin);
    std::size_t at = (position + slot * bytes) % size;
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t n = std::min(bytes - done, size - at);
      move(begin + at, done, n);
      done += n;
      at = (at + n) % size;
    }
    position = (position + slots * bytes) % size;
    return;
  }
  case Mode::Callback:
    if (!callback) { // a BROADCAST stream's other replicas: replica 0 fetched their data
      if (broadcast->empty())
        throw stream_connection_error("Stream '" + stream.handle() +
                                      "': a replica copies from the BROADCAST stream more often than replica 0");
      std::memcpy(device, broadcast->front().data(), bytes);
      broadcast->pop_front();
      return;
    }
    if (hasPrefetched && prefetched.size() != bytes) replaceCallback(callback, prefetch); // another copy size
    if (hasPrefetched) {
      std::memcpy(device, prefetched.data(), bytes);
      hasPrefetched = false;
    } else if (resumable) {
      Internals::fetchWhenReady(*resumable, device);
    } else {
      callback->fetch(device);
    }
    callback->complete();
    if (broadcast) broadcast->emplace_back(device, device + bytes);
    if (toDevice && prefetch) {
      prefetched.resize(bytes);
      hasPrefetched = callback->prefetch(prefetched.data()) == StreamCallback::Result::Success;
    }
    return;
  }
}

void StreamState::replaceCallback(std::shared_ptr<StreamCallback> cb, bool prefetchAhead) {
  if (hasPrefetched && callback) callback->invalidatePrefetched();
  hasPrefetched = false;
  callback = std::move(cb);
  resumable = dynamic_cast<ResumableStreamCallback *>(callback.get());
  prefetch = callback && prefetchAhead;
}

EngineState::Pause EngineState::execute() {
  for (;;) {
    // Every loop passes a step or a jump, so a stop or pause is seen within one iteration.
    if (stopRequested.load(std::memory_order_relaxed)) return Pause::Stopped;
    const Instr &in = code[pc];
    switch (in.op) {
    case Op::Run: {
      Step &step = *steps[in.arg];
      if (step.crossReplica) return Pause::CrossReplica;
      countExecution(in.arg);
      clock += step.cycles;
      if (timeSteps && profiling) {
        const auto t0 = std::chrono::steady_clock::now();
        step.run();
        step.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      } else {
        step.run();
      }
      ++pc;
      break;
    }
    case Op::Jump: pc = in.target; break;
    case Op::JumpIfFalse: pc = scalars[in.arg].isTrue() ? pc + 1 : in.target; break;
    case Op::JumpIfTrue: pc = scalars[in.arg].isTrue() ? in.target : pc + 1; break;
    case Op::LoopInit:
      loopCounters[in.arg] = loopCounts[in.arg];
      ++pc;
      break;
    case Op::LoopNext: pc = --loopCounters[in.arg] ? in.target : pc + 1; break;
    case Op::Call:
      callStack.push_back(pc + 1);
      pc = in.target;
      break;
    case Op::Return:
      pc = callStack.back();
      callStack.pop_back();
      break;
    case Op::Switch: {
      const SwitchTable &table = switches[in.arg];
      const std::int64_t v = scalars[table.control].value();
      pc = table.defaultTarget;
      for (const auto &c : table.cases)
        if (c.first == v) { pc = c.second; break; }
      break;
    }
    case Op::Halt: return Pause::Halted;
    }
  }
}

namespace {

// After replicas stopped: whether the run goes on. A stop ends it; a pause (cleared first,
// so that one requested from here on pauses the run again) asks the engine's onPause.
bool resumeAfterPause(EngineState &s) {
  bool stop = false;
  s.forEachReplica([&stop](EngineState &r) {
    stop = (r.stopRequested.fetch_and(static_cast<std::uint8_t>(~EngineState::kPauseRun)) & EngineState::kStopRun) ||
           stop;
  });
  return !stop && (!s.onPause || s.onPause());
}

} // namespace

// Runs every replica up to its next cross-replica step (replica after replica: they
// share nothing else), runs that step across them, and so on until all halt. An engine
// running a slice of the replicas also checks at the end that every instance ended.
void runInLockstep(EngineState &s, unsigned prog) {
  using Pause = EngineState::Pause;
  for (;;) {
    std::vector<EngineState *> replicas;
    std::vector<Pause> pauses;
    s.forEachReplica([&](EngineState &r) {
      replicas.push_back(&r);
      pauses.push_back(r.execute());
    });
    if (std::find(pauses.begin(), pauses.end(), Pause::Stopped) != pauses.end()) {
      if (!resumeAfterPause(s)) return;
      continue; // every replica goes on from where it paused
    }
    bool allHalted = true;
    for (Pause p : pauses) allHalted = allHalted && p == Pause::Halted;
    const std::string program = "program " + std::to_string(prog);
    if (allHalted) {
      if (!s.slice.whole()) exchangeStep(s.slice, "the end of " + program, std::vector<std::string>(s.slice.count));
      return;
    }
    const auto stepAt = [](const EngineState &r) { return r.code[r.pc].arg; };
    std::vector<CrossReplicaStep *> peers;
    for (std::size_t i = 0; i < replicas.size(); ++i) {
      if (pauses[i] != Pause::CrossReplica || pauses[0] != Pause::CrossReplica ||
          stepAt(*replicas[i]) != stepAt(*replicas[0])) {
        const auto where = [&](std::size_t k) {
          return pauses[k] == Pause::Halted ? std::string("the end of the program")
                                            : "cross-replica step '" + replicas[k]->steps[stepAt(*replicas[k])]->name + "'";
        };
        throw poplar_error("Engine::run: the replicas took different paths: replica " + std::to_string(s.replica) +
                           " reached " + where(0) + " but replica " + std::to_string(replicas[i]->replica) +
                           " reached " + where(i) +
                           " (collectives must run on every replica)");
      }
      peers.push_back(static_cast<CrossReplicaStep *>(replicas[i]->steps[stepAt(*replicas[i])].get()));
    }
    for (EngineState *r : replicas) {
      r->countExecution(stepAt(*r));
      r->clock += r->steps[stepAt(*r)]->cycles;
      ++r->pc;
    }
    const std::string where = "step " + std::to_string(stepAt(s)) + " of " + program;
    if (s.timeSteps && s.profiling) {
      const auto t0 = std::chrono::steady_clock::now();
      peers[0]->runAcross(peers, s.slice, where);
      peers[0]->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else {
      peers[0]->runAcross(peers, s.slice, where);
    }
  }
}

} // namespace poplar::detail
