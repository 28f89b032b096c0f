#include "CrossReplica.hpp"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <string>

#include "Instances.hpp"
#include "TypeInfo.hpp"

namespace poplar::detail {

std::vector<std::int32_t> CrossReplicaSpec::encode() const {
  std::vector<std::int32_t> v = {static_cast<std::int32_t>(collective), static_cast<std::int32_t>(reduction),
                                 static_cast<std::int32_t>(groupType), static_cast<std::int32_t>(groupSize),
                                 static_cast<std::int32_t>(root)};
  for (const auto &[from, to] : copies) {
    v.push_back(static_cast<std::int32_t>(from));
    v.push_back(static_cast<std::int32_t>(to));
  }
  return v;
}

CrossReplicaSpec CrossReplicaSpec::decode(const std::vector<std::int32_t> &v) {
  const bool copy = v.size() >= 5 && v[0] == static_cast<std::int32_t>(Collective::Copy);
  if (v.size() < 5 || (!copy && v.size() != 5) || (v.size() - 5) % 2 != 0 ||
      std::any_of(v.begin(), v.end(), [](std::int32_t x) { return x < 0; }) ||
      v[0] > static_cast<std::int32_t>(Collective::AllToAll) || v[1] > static_cast<std::int32_t>(ReplicaReduction::Local) ||
      v[2] > static_cast<std::int32_t>(ReplicaGroupType::Orthogonal))
    throw graph_program_compilation_error("A cross-replica program has an invalid description");
  CrossReplicaSpec s;
  s.collective = static_cast<Collective>(v[0]);
  s.reduction = static_cast<ReplicaReduction>(v[1]);
  s.groupType = static_cast<ReplicaGroupType>(v[2]);
  s.groupSize = static_cast<unsigned>(v[3]);
  s.root = static_cast<unsigned>(v[4]);
  for (std::size_t i = 5; i < v.size(); i += 2)
    s.copies.emplace_back(static_cast<unsigned>(v[i]), static_cast<unsigned>(v[i + 1]));
  return s;
}

void CrossReplicaSpec::checkReplicas(unsigned replicas, const std::string &program) const {
  for (const auto &[from, to] : copies)
    if (from >= replicas || to >= replicas)
      throw graph_program_compilation_error(program + ": replica " + std::to_string(std::max(from, to)) +
                                            " does not exist (the graph has " + std::to_string(replicas) +
                                            " replica(s))");
}

unsigned CrossReplicaSpec::sizeOfGroup(unsigned replicas) const {
  const unsigned size = groupType == ReplicaGroupType::All || groupSize == 0 ? replicas : groupSize;
  if (size > replicas || replicas % size != 0)
    throw graph_replication_error("A cross-replica group of " + std::to_string(size) + " replicas does not divide the " +
                                  std::to_string(replicas) + " replicas");
  return size;
}

// CONSECUTIVE groups are {0..k-1}, {k..2k-1}, ...; ORTHOGONAL groups take every
// (replicas/k)-th replica: {0, n, 2n, ...}, {1, n+1, ...} with n = replicas / k.
std::vector<unsigned> CrossReplicaSpec::group(unsigned replica, unsigned replicas) const {
  const unsigned size = sizeOfGroup(replicas);
  std::vector<unsigned> members;
  if (groupType == ReplicaGroupType::Orthogonal) {
    const unsigned stride = replicas / size;
    for (unsigned k = 0; k < size; ++k) members.push_back(replica % stride + k * stride);
  } else {
    for (unsigned k = 0; k < size; ++k) members.push_back(replica / size * size + k);
  }
  return members;
}

std::uint64_t CrossReplicaSpec::linkBytes(std::uint64_t bytes, unsigned replicas) const {
  if (collective == Collective::Copy) // each replica sends at most once (distinct destinations)
    return std::any_of(copies.begin(), copies.end(), [](const auto &c) { return c.first != c.second; }) ? bytes : 0;
  const std::uint64_t k = sizeOfGroup(replicas);
  if (k == 1) return 0;
  switch (collective) {
  case Collective::AllReduce: return 2 * bytes * (k - 1) / k;
  case Collective::ReduceScatter: return bytes * (k - 1) / k;
  case Collective::AllGather: return bytes * (k - 1); // each replica's input goes to k-1 others
  case Collective::AllToAll: return bytes * (k - 1) / k; // each replica keeps one of its k rows
  case Collective::Broadcast: return bytes;
  case Collective::Copy: break;
  }
  return bytes;
}

namespace {

long double reduce(ReplicaReduction op, long double acc, long double x) {
  switch (op) {
  case ReplicaReduction::Add:
  case ReplicaReduction::Mean: return acc + x;
  case ReplicaReduction::SquareAdd: return acc + x * x;
  case ReplicaReduction::Mul: return acc * x;
  case ReplicaReduction::Min: return x < acc ? x : acc;
  case ReplicaReduction::Max: return x > acc ? x : acc;
  case ReplicaReduction::LogicalAnd: return (acc != 0 && x != 0) ? 1 : 0;
  case ReplicaReduction::LogicalOr: return (acc != 0 || x != 0) ? 1 : 0;
  case ReplicaReduction::Local: return acc;
  }
  return acc;
}

// The element-wise reduction of the members' values, in rank order; LOCAL keeps the
// replica's own.
std::vector<long double> reduceGroup(const CrossReplicaSpec &spec, const std::vector<unsigned> &members,
                                     unsigned self, const std::vector<std::vector<long double>> &values) {
  if (spec.reduction == ReplicaReduction::Local) return values[self];
  const bool squares = spec.reduction == ReplicaReduction::SquareAdd;
  std::vector<long double> out = values[members[0]];
  if (squares)
    for (long double &v : out) v *= v;
  for (std::size_t k = 1; k < members.size(); ++k) {
    const auto &x = values[members[k]];
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = reduce(spec.reduction, out[i], x[i]);
  }
  if (spec.reduction == ReplicaReduction::Mean)
    for (long double &v : out) v /= static_cast<long double>(members.size());
  return out;
}

} // namespace

std::string CollectiveStep::describe() const {
  static const char *const names[] = {"all-reduce", "reduce-scatter", "all-gather", "broadcast", "cross-replica copy", "all-to-all"};
  std::string codes;
  for (std::int32_t v : spec.encode()) codes += (codes.empty() ? "" : ",") + std::to_string(v);
  return std::string(names[static_cast<unsigned>(spec.collective)]) + " '" + name + "' of " +
         std::to_string(src.numElements) + " x " + src.type.toString().str() + " into " +
         std::to_string(dst.numElements) + " (spec " + codes + ")";
}

namespace {
std::string gathered(const Access &a) {
  std::string bytes(a.numElements * a.elemSize, '\0');
  a.gather(bytes.data());
  return bytes;
}
} // namespace

void CollectiveStep::runAcross(const std::vector<CrossReplicaStep *> &local, const ReplicaSlice &slice,
                               const std::string &where) {
  const auto self = [&](unsigned replica) { return static_cast<CollectiveStep *>(local[replica - slice.first]); };
  const auto isLocal = [&](unsigned replica) { return replica >= slice.first && replica < slice.first + slice.count; };
  // Every source is read before any destination is written (src and dst may be one tensor).
  std::vector<std::string> inputs;
  for (CrossReplicaStep *r : local) inputs.push_back(gathered(static_cast<CollectiveStep *>(r)->src));
  const std::vector<std::string> all =
      slice.whole() ? std::move(inputs) : exchangeStep(slice, where + ": " + describe(), inputs);
  if (spec.collective == Collective::Copy) { // bytes as they are, no arithmetic
    for (const auto &[from, to] : spec.copies)
      if (isLocal(to)) self(to)->dst.scatter(all[from].data());
    return;
  }
  const unsigned replicaCount = slice.total;
  std::vector<std::vector<long double>> values(replicaCount);
  for (unsigned r = 0; r < replicaCount; ++r) {
    const auto *bytes = reinterpret_cast<const std::uint8_t *>(all[r].data());
    values[r].resize(src.numElements);
    for (std::size_t i = 0; i < src.numElements; ++i) values[r][i] = loadElement(src.type, bytes + i * src.elemSize);
  }
  std::vector<std::uint8_t> bytes;
  for (unsigned r = slice.first; r < slice.first + slice.count; ++r) {
    const std::vector<unsigned> members = spec.group(r, replicaCount);
    unsigned rank = 0;
    while (members[rank] != r) ++rank;
    std::vector<long double> out;
    switch (spec.collective) {
    case Collective::AllReduce: out = reduceGroup(spec, members, r, values); break;
    case Collective::ReduceScatter: {
      // Replica of rank k gets elements [k*c, (k+1)*c) of the reduction, zero past its end.
      const std::vector<long double> reduced = reduceGroup(spec, members, r, values);
      const std::size_t chunk = dst.numElements;
      out.assign(chunk, 0);
      for (std::size_t i = 0; i < chunk && rank * chunk + i < reduced.size(); ++i) out[i] = reduced[rank * chunk + i];
      break;
    }
    case Collective::AllGather:
      for (unsigned m : members) out.insert(out.end(), values[m].begin(), values[m].end());
      break;
    case Collective::Broadcast: out = values[members[spec.root]]; break;
    case Collective::AllToAll: {
      const std::size_t row = src.numElements / members.size();
      for (unsigned m : members)
        out.insert(out.end(), values[m].begin() + rank * row, values[m].begin() + (rank + 1) * row);
      break;
    }
    case Collective::Copy: break; // handled above
    }
    const Access &dstOf = self(r)->dst;
    bytes.assign(dstOf.numElements * dstOf.elemSize, 0);
    for (std::size_t i = 0; i < dstOf.numElements; ++i) storeElement(dstOf.type, bytes.data() + i * dstOf.elemSize, out[i]);
    dstOf.scatter(bytes.data());
  }
}

} // namespace poplar::detail
