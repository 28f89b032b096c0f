#include "Instances.hpp"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace poplar::detail {

namespace {

std::uint64_t unsignedOption(const OptionFlags &options, const char *key, std::uint64_t dflt) {
  const auto it = options.find(key);
  return it == options.end() ? dflt : std::stoull(it->second, nullptr, 0); // validated by validatedOptions
}

// One instance's message: what it reached, its slice, and each replica's payload, each
// string preceded by its length.
void put(std::string &out, std::uint64_t n) { out.append(reinterpret_cast<const char *>(&n), sizeof n); }
void putText(std::string &out, const std::string &text) {
  put(out, text.size());
  out += text;
}

struct Reader {
  const std::string &in;
  std::size_t at = 0;
  std::uint64_t number() {
    std::uint64_t n = 0;
    if (at + sizeof n > in.size()) throw poplar_error("The exchange between instances returned a truncated message");
    std::memcpy(&n, in.data() + at, sizeof n);
    at += sizeof n;
    return n;
  }
  std::string text() {
    const std::uint64_t n = number();
    if (n > in.size() - at) throw poplar_error("The exchange between instances returned a truncated message");
    at += n;
    return in.substr(at - n, n);
  }
};

} // namespace

ReplicaSlice replicaSlice(const OptionFlags &options, unsigned total) {
  ReplicaSlice slice;
  slice.total = total;
  const std::uint64_t first = unsignedOption(options, "target.firstRuntimeReplica", 0);
  const std::uint64_t count = unsignedOption(options, "target.numberRuntimeReplica", total - std::min<std::uint64_t>(first, total));
  if (count == 0 || first + count > total)
    throw poplar_error("Engine: target.firstRuntimeReplica=" + std::to_string(first) + " and target.numberRuntimeReplica=" +
                       std::to_string(count) + " choose replicas outside the graph's " + std::to_string(total) +
                       " (the replication factor counts every instance's replicas)");
  slice.first = static_cast<unsigned>(first);
  slice.count = static_cast<unsigned>(count);
  if (slice.whole()) return slice;
  const auto sync = options.find("target.syncReplicasIndependently");
  if (sync == options.end() || sync->second != "true")
    throw poplar_error("Engine: running replicas " + std::to_string(first) + " to " + std::to_string(first + count - 1) +
                       " of " + std::to_string(total) +
                       " needs target.syncReplicasIndependently=true (each instance synchronises its own replicas)");
  slice.exchange = currentInstanceExchange();
  return slice;
}

std::vector<std::string> exchangeStep(const ReplicaSlice &slice, const std::string &step,
                                      const std::vector<std::string> &payloads) {
  if (!slice.exchange)
    throw poplar_error("Engine::run: " + step + " needs the replicas of other instances, but no exchange between instances "
                       "was set up for this engine: start the program's instances with an MPI launcher (mpiexec -n I), "
                       "which the engine finds by OMPI_COMM_WORLD_SIZE/RANK or PMI_SIZE/RANK (popdsl.distributed does "
                       "it under mpiexec; the C++ API also has poplar::detail::setProcessInstanceExchange)");
  std::string mine;
  putText(mine, step);
  put(mine, slice.first);
  put(mine, slice.count);
  for (const std::string &p : payloads) putText(mine, p);
  const std::vector<std::string> all = slice.exchange->allGather(mine);

  std::vector<Reader> readers;
  std::vector<std::string> steps;
  bool same = true;
  for (const std::string &message : all) {
    readers.push_back(Reader{message});
    steps.push_back(readers.back().text());
    same = same && steps.back() == step;
  }
  if (!same) {
    std::string reached;
    for (std::size_t k = 0; k < steps.size(); ++k)
      reached += (k ? "; instance " : "instance ") + std::to_string(k) + " reached " + steps[k];
    throw poplar_error("Engine::run on instance " + std::to_string(slice.exchange->index()) +
                       ": the instances took different paths: " + reached +
                       " (every instance must run the same programs and collectives)");
  }
  std::vector<std::string> byReplica(slice.total);
  std::vector<bool> seen(slice.total, false);
  for (std::size_t k = 0; k < readers.size(); ++k) {
    const std::uint64_t first = readers[k].number(), count = readers[k].number();
    for (std::uint64_t r = first; r < first + count; ++r) {
      if (r >= slice.total || seen[r])
        throw poplar_error("Engine::run: instance " + std::to_string(k) + " runs replica " + std::to_string(r) +
                           ", which is past the graph's " + std::to_string(slice.total) +
                           " replicas or run by another instance too");
      seen[r] = true;
      byReplica[r] = readers[k].text();
    }
  }
  for (unsigned r = 0; r < slice.total; ++r)
    if (!seen[r])
      throw poplar_error("Engine::run: no instance runs replica " + std::to_string(r) + " of the graph's " +
                         std::to_string(slice.total) + " (check target.firstRuntimeReplica/numberRuntimeReplica)");
  return byReplica;
}

} // namespace poplar::detail
