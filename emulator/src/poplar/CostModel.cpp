#include "CostModel.hpp"

#include <algorithm>
#include <cmath>

#include "TensorImpl.hpp"
#include "TypeInfo.hpp"
#include "VertexKernel.hpp"

namespace poplar::detail {

namespace {

constexpr unsigned kNoTile = ~0u;

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) { return b ? (a + b - 1) / b : 0; }

// Calls fn(tile, count, distinct) for consecutive elements of t, in flat order,
// that live on one tile (kNoTile when unmapped). `distinct` counts a broadcast
// run (stride 0) as the one element it stores. mappingOf(var) gives a variable's
// mapped intervals, sorted.
template <class MappingOf, class Fn> void forEachTileSegment(const TensorImpl &t, MappingOf mappingOf, Fn fn) {
  t.forEachRun([&](const Run &r) {
    const auto &mapping = mappingOf(r.var);
    const auto contains = [&](std::size_t i, std::size_t e) {
      return i < mapping.size() && mapping[i].begin <= e && e < mapping[i].end;
    };
    std::size_t interval = mapping.size();
    for (std::size_t k = 0; k < r.count;) {
      const auto e = static_cast<std::size_t>(r.start + static_cast<std::int64_t>(k) * r.stride);
      // Runs walk memory in order, so the interval is usually the next one.
      if (r.stride > 0 && !contains(interval, e) && contains(interval + 1, e)) ++interval;
      if (!contains(interval, e)) {
        const auto after = std::upper_bound(mapping.begin(), mapping.end(), e,
                                            [](std::size_t x, const auto &m) { return x < m.begin; });
        interval = static_cast<std::size_t>(after - mapping.begin()) - 1; // wraps when none starts before e
        if (!contains(interval, e)) {
          fn(kNoTile, 1, 1);
          ++k;
          continue;
        }
      }
      const std::size_t begin = mapping[interval].begin, end = mapping[interval].end;
      // How many further elements of the run stay inside [begin, end).
      std::size_t n = r.count - k;
      if (r.stride > 0) n = std::min(n, (end - 1 - e) / static_cast<std::size_t>(r.stride) + 1);
      else if (r.stride < 0) n = std::min(n, (e - begin) / static_cast<std::size_t>(-r.stride) + 1);
      fn(mapping[interval].tile, n, r.stride == 0 ? 1 : n);
      k += n;
    }
  });
}

// Cycles per vector of an element-wise kernel: the op cost the kernel declares.
std::uint64_t elementwiseCycles(std::uint64_t elements, unsigned vectorWidth, unsigned workers,
                                unsigned cyclesPerVector) {
  return kVertexCycles + ceilDiv(ceilDiv(elements, vectorWidth), workers) * workers * cyclesPerVector;
}

} // namespace

std::uint64_t ampFlopsPerCycle(const Target &target, const Type &type) {
  const bool half = type == HALF;
  if (target.getTargetArchString() == "ipu1") return half ? 64 : 16;
  return half ? 128 : 32;
}

std::uint64_t CostModel::syncCycles() const {
  return kSyncCycles + target_.getMinIPUSyncDelay() +
         (target_.getNumIPUs() > 1 ? target_.getGlobalSyncCycles() : 0);
}

CostModel::Layout CostModel::layout(const Tensor &t) const {
  Layout l;
  l.stored.assign(target_.getNumTiles(), 0);
  const auto mappingOf = [this](unsigned var) -> const std::vector<MappedInterval> & {
    auto it = flatMappings_.find(var);
    if (it != flatMappings_.end()) return it->second;
    std::vector<MappedInterval> &flat = flatMappings_[var];
    for (const auto &m : vars_.vars[var].mapping) flat.push_back({m.first, m.second.first, m.second.second});
    return flat;
  };
  forEachTileSegment(detail::tensorImpl(t), mappingOf, [&](unsigned tile, std::size_t n, std::size_t distinct) {
    if (tile != kNoTile) l.stored[tile] += distinct;
    l.distinct += distinct;
    if (!l.segments.empty() && l.segments.back().first == tile) l.segments.back().second += n;
    else l.segments.emplace_back(tile, n);
  });
  return l;
}

void CostModel::addMisplaced(const Layout &work, const Layout &operand, std::uint64_t elementBytes,
                             PerTile &received, PerTile *linkReceived) const {
  const auto &w = work.segments, &x = operand.segments;
  const unsigned perIpu = target_.getTilesPerIPU();
  std::size_t i = 0, j = 0, usedW = 0, usedX = 0;
  while (i < w.size() && j < x.size()) {
    const std::size_t n = std::min(w[i].second - usedW, x[j].second - usedX);
    const unsigned to = w[i].first, from = x[j].first;
    if (to != kNoTile && to != from) {
      const bool acrossIpus = linkReceived && from != kNoTile && to / perIpu != from / perIpu;
      (acrossIpus ? *linkReceived : received)[to] += n * elementBytes;
    }
    usedW += n;
    usedX += n;
    if (usedW == w[i].second) ++i, usedW = 0;
    if (usedX == x[j].second) ++j, usedX = 0;
  }
}

void CostModel::addKernel(const Kernel &k, PerTile &cycles, PerTile &received) const {
  if (const auto placement = vertexPlacement(k)) {
    addVertex(k, *placement, cycles, received);
    return;
  }
  const bool matmul = k.costShape == CostShape::MatMul;
  const bool reduce = k.costShape == CostShape::Reduction;
  std::vector<const Tensor *> operands;
  for (const Tensor &t : k.reads) operands.push_back(&t);
  for (const Tensor &t : k.writes) operands.push_back(&t);
  if (operands.empty()) return;
  const Tensor &work = reduce || k.writes.empty() ? k.reads.front() : k.writes.front();
  const Layout workLayout = layout(work);
  const PerTile &w = workLayout.stored;
  const unsigned workers = target_.getNumWorkerContexts();
  const Type type = (matmul || k.costShape == CostShape::Convolution ? k.reads.front() : work).elementType();
  const unsigned vectorWidth = std::max(1u, target_.getDataPathWidth() / 8 / typeSize(type));
  // matmul operands are [groups, m, k] and [groups, k, n]
  const std::uint64_t K = matmul ? k.reads[0].dim(2) : 0, N = matmul ? k.reads[1].dim(2) : 0;

  const bool conv = k.costShape == CostShape::Convolution;
  for (unsigned tile = 0; tile < w.size(); ++tile)
    if (w[tile]) {
      const std::uint64_t multiplyAdds = matmul ? K : conv ? k.multiplyAddsPerOutput : 0;
      cycles[tile] += matmul || conv
                          ? kVertexCycles + ceilDiv(2 * multiplyAdds * w[tile], ampFlopsPerCycle(target_, type))
                          : elementwiseCycles(w[tile], vectorWidth, workers, k.cyclesPerVector);
    }

  for (std::size_t i = 0; i < operands.size(); ++i) {
    const Tensor &x = *operands[i];
    if (&x == &work) continue;
    const Layout xLayout = layout(x);
    const PerTile &held = xLayout.stored;
    const std::uint64_t stored = xLayout.distinct;
    const std::uint64_t size = typeSize(x.elementType());
    if (!matmul || i > 1) {
      if (x.numElements() == work.numElements() && stored == x.numElements()) {
        addMisplaced(workLayout, xLayout, size, received);
        continue;
      }
    }
    for (unsigned tile = 0; tile < w.size(); ++tile) {
      if (!w[tile]) continue;
      std::uint64_t needed = w[tile];
      if (matmul && i < 2) {
        // The tile's outputs as a near-square block: rows of A and columns of B.
        const std::uint64_t rows = std::min<std::uint64_t>(
            work.numElements() / N, static_cast<std::uint64_t>(std::ceil(std::sqrt(double(w[tile])))));
        needed = (i == 0 ? rows : std::min<std::uint64_t>(N, ceilDiv(w[tile], rows))) * K;
      }
      received[tile] += std::min(stored - held[tile], needed) * size;
    }
  }
}

void CostModel::addVertex(const Kernel &k, const VertexPlacement &placement, PerTile &cycles,
                          PerTile &received) const {
  std::uint64_t elements = 0;
  for (const auto *operands : {&k.reads, &k.writes})
    for (const Tensor &t : *operands) {
      elements += t.numElements();
      const std::uint64_t size = typeSize(t.elementType());
      for (const auto &[tile, n] : layout(t).segments)
        if (tile != placement.tile && tile != kNoTile) // inputs come to the vertex, outputs go to their tiles
          received[operands == &k.reads ? placement.tile : tile] += n * size;
    }
  cycles[placement.tile] += placement.hasPerfEstimate ? placement.cycles : kVertexCycles + elements;
}

CycleEstimate CostModel::finish(const PerTile &cycles, const PerTile &received) const {
  CycleEstimate e;
  e.sync = syncCycles();
  e.compute = *std::max_element(cycles.begin(), cycles.end());
  e.computeByTile = cycles;
  const std::uint64_t busiest = *std::max_element(received.begin(), received.end());
  e.exchange = ceilDiv(busiest, target_.getExchangeBytesPerCycle());
  for (std::uint64_t r : received) e.exchangeBytes += r;
  return e;
}

void CostModel::spanIpusOf(const std::vector<const Tensor *> &tensors, CycleEstimate &e) const {
  const unsigned ipus = target_.getNumIPUs(), perIpu = target_.getTilesPerIPU();
  if (ipus == 1) return;
  std::vector<bool> used(ipus, false);
  for (const Tensor *t : tensors)
    for (const auto &[tile, n] : layout(*t).segments)
      if (tile != kNoTile) used[tile / perIpu] = true;
  e.span = CycleEstimate::Span::Ipus;
  for (unsigned ipu = 0; ipu < ipus; ++ipu)
    if (used[ipu]) e.ipus.push_back(ipu);
  if (e.ipus.empty()) e.span = CycleEstimate::Span::AllIpus; // nothing mapped: no IPU to pin it to
}

CycleEstimate CostModel::computeSet(const std::vector<Kernel> &kernels) const {
  PerTile cycles(target_.getNumTiles(), 0), received(target_.getNumTiles(), 0);
  for (const Kernel &k : kernels) addKernel(k, cycles, received);
  CycleEstimate e = finish(cycles, received);
  if (target_.getNumIPUs() > 1) {
    std::vector<const Tensor *> operands;
    for (const Kernel &k : kernels) {
      for (const Tensor &t : k.reads) operands.push_back(&t);
      for (const Tensor &t : k.writes) operands.push_back(&t);
    }
    spanIpusOf(operands, e);
    // A custom vertex runs on its own tile, which may hold none of its operands.
    for (const Kernel &k : kernels)
      if (const auto placement = vertexPlacement(k)) {
        const unsigned ipu = placement->tile / target_.getTilesPerIPU();
        if (std::find(e.ipus.begin(), e.ipus.end(), ipu) == e.ipus.end()) e.ipus.push_back(ipu);
        e.span = CycleEstimate::Span::Ipus;
      }
    std::sort(e.ipus.begin(), e.ipus.end());
  }
  return e;
}

std::vector<std::uint64_t> CostModel::kernelCyclesByTile(const Kernel &kernel) const {
  PerTile cycles(target_.getNumTiles(), 0), received(target_.getNumTiles(), 0);
  addKernel(kernel, cycles, received);
  return cycles;
}

CycleEstimate CostModel::copy(const Tensor &src, const Tensor &dst) const {
  PerTile received(target_.getNumTiles(), 0), linkReceived(target_.getNumTiles(), 0);
  const Layout dstLayout = layout(dst);
  const std::uint64_t size = typeSize(dst.elementType());
  addMisplaced(dstLayout, layout(src), size, received, &linkReceived);
  // On-tile copies: the destination elements that did not arrive by exchange.
  const PerTile &local = dstLayout.stored;
  PerTile cycles(target_.getNumTiles(), 0);
  for (unsigned tile = 0; tile < cycles.size(); ++tile) {
    const std::uint64_t arrived = received[tile] + linkReceived[tile];
    const std::uint64_t localBytes = local[tile] * size - std::min(local[tile] * size, arrived);
    cycles[tile] = ceilDiv(localBytes, target_.getDataPathWidth() / 8);
  }
  CycleEstimate e = finish(cycles, received);
  for (std::uint64_t r : linkReceived) e.ipuLinkBytes += r;
  e.exchange += ipuLinkCycles(e.ipuLinkBytes);
  e.exchangeBytes += e.ipuLinkBytes;
  spanIpusOf({&src, &dst}, e);
  return e;
}

std::uint64_t CostModel::ipuLinkCycles(std::uint64_t bytes) const {
  const double bytesPerCycle = kIpuLinkBytesPerSecond / target_.getTileClockFrequency();
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(bytes) / bytesPerCycle));
}

CycleEstimate CostModel::hostTransfer(std::size_t bytes) const {
  CycleEstimate e;
  e.sync = kHostSyncCycles;
  e.exchange = ceilDiv(bytes, kHostBytesPerCycle);
  e.exchangeBytes = bytes;
  return e;
}

CycleEstimate CostModel::functionCodeLoad(std::uint64_t instructions) const {
  return hostTransfer(instructions * kCodeBytesPerInstruction * target_.getNumTiles());
}

CycleEstimate CostModel::sync(SyncType type) const {
  CycleEstimate e;
  e.sync = syncCycles() + (type == SyncType::INTERNAL ? 0 : target_.getGlobalSyncCycles());
  return e;
}

CycleEstimate CostModel::ipuLinkTransfer(std::uint64_t bytes) const {
  CycleEstimate e;
  e.sync = syncCycles() + target_.getGlobalSyncCycles();
  e.exchange = ipuLinkCycles(bytes);
  e.exchangeBytes = bytes;
  e.ipuLinkBytes = bytes;
  return e;
}

CycleEstimate CostModel::branch(const Tensor *predicate) const {
  CycleEstimate e;
  e.sync = syncCycles();
  e.compute = kBranchCycles;
  if (predicate) spanIpusOf({predicate}, e);
  return e;
}

CycleEstimate CostModel::loop(std::uint64_t iterations) const {
  CycleEstimate e;
  e.compute = kBranchCycles * iterations;
  e.span = CycleEstimate::Span::EachIpu;
  return e;
}

} // namespace poplar::detail
