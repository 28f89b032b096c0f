#pragma once
// Estimated IPU cycles for the Engine's program steps. Like Poplar's IPUModel,
// the emulator does not measure device cycles; it estimates them from the tile
// mapping and the Target's figures with the model below (docs/emulator.rst).
//
// Every step costs sync + exchange + compute cycles per execution (BSP):
//
//  * sync: kSyncCycles + Target::getMinIPUSyncDelay() for the tiles of one IPU,
//    plus Target::getGlobalSyncCycles() when the target has several IPUs.
//  * compute set (Execute), per kernel (one whole op: map, matmul, reduce, ...):
//    - work tile: a kernel works where its output lives (reductions: where
//      their input lives); n = elements of that tensor on the tile.
//    - element-wise kernels: kVertexCycles + ceil(ceil(n / v) / workers) *
//      workers * cyclesPerVector, with v the vector width (64-bit data path:
//      2 floats, 4 halves per cycle) and the 6 workers of a tile taking turns
//      (one instruction per cycle per tile). cyclesPerVector is the kernel's op
//      cost: 1 per arithmetic op, kDivideCycles for divide/remainder/inverse,
//      kTranscendentalCycles for exp/log/tanh/sigmoid/sqrt/sin/pow/...
//    - matmul: kVertexCycles + ceil(2 * K * n / AMP FLOPs per cycle per tile)
//      with the AMP rates of kAmpFlopsPerCycle (Mk2: float 32, half 128; Mk1
//      half).
//    - convolution: the same, with K the kernel's multiply-adds per output element
//      (input channels per group x kernel taps, averaged over the output).
//    - exchange: each tile receives the operand elements its work needs and does
//      not hold. Operands with as many elements as the work tensor are matched
//      element by element; matmul operands by the rows of A and columns of B
//      the tile's outputs use, taken as a near-square block (sqrt(n) rows, as a
//      planner would tile them); any other operand (broadcasts, slices, reduction
//      results) at most min(operand elements not on the tile, n).
//    - the compute set costs the busiest tile: max over tiles of the sum of its
//      kernels' cycles, plus max over tiles of received bytes /
//      exchangeBytesPerCycle.
//  * custom vertex (Graph::addVertex): the cycles given to setPerfEstimate,
//    else kVertexCycles + one cycle per element of its edges; it runs on its
//    own tile, which receives the input elements that live on other tiles and
//    sends its output elements to the tiles they live on.
//  * Copy: elements whose source and destination tiles differ cross the
//    exchange (received bytes / exchangeBytesPerCycle on the busiest tile); the
//    rest copy on tile at the data path width (8 bytes per cycle). Elements whose
//    tiles are on different IPUs cross the IPU-Links instead: all of them at
//    kIpuLinkBytesPerSecond / clock frequency, added to the exchange.
//  * stream copies, remote buffer copies and PrintTensor: kHostSyncCycles + bytes /
//    kHostBytesPerCycle.
//  * loading a function's code from its function buffer: the same, for
//    kCodeBytesPerInstruction bytes per instruction of the function's compiled body on
//    every tile (each tile runs the control code).
//  * collectives (gcl): a global sync plus the bytes a ring sends per replica
//    (CrossReplicaSpec::linkBytes) at kIpuLinkBytesPerSecond / clock frequency.
//  * control flow: If, Switch and each While condition broadcast their
//    predicate (a sync) and branch (kBranchCycles); Repeat costs kBranchCycles
//    per iteration, Call kBranchCycles per call.
//
// Elapsed cycles (IpuTimeline.hpp): each IPU runs its own control program, so each
// step says which IPUs it runs on (CycleEstimate::span): a compute set or a copy on the
// IPUs whose tiles hold its operands; Repeat and Call on every IPU independently (each
// counts its own loop); an If, Switch or While condition on the IPUs of its predicate and
// of the steps it decides about (EngineState::estimateCycles; a Call among them: every
// IPU); everything else (syncs, host transfers, collectives) on all IPUs together.
//
// Memory per tile is the bytes of the variables and constants mapped to it: every
// variable has its own memory. libpva's report estimates the rest (CodeMemory.hpp) and
// the variables' liveness (Liveness.hpp).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <poplar/SyncType.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>

#include "Kernel.hpp"
#include "VertexKernel.hpp"
#include "Variable.hpp"

namespace poplar::detail {

constexpr std::uint64_t kSyncCycles = 100;
constexpr std::uint64_t kVertexCycles = 50;
constexpr std::uint64_t kBranchCycles = 10;
constexpr std::uint64_t kDivideCycles = 4;
constexpr std::uint64_t kTranscendentalCycles = 10;
constexpr std::uint64_t kHostSyncCycles = 1000;
constexpr std::uint64_t kHostBytesPerCycle = 8;
// The code of one emulator instruction (a step, jump or call): an assumption, as the
// emulator compiles no IPU code; eight 64-bit instruction bundles.
constexpr std::uint64_t kCodeBytesPerInstruction = 64;
// One replica's IPU-Link bandwidth in a collective's ring. No readable source gives the
// Mk2 figure (a Mk1 C2 card had 192 GB/s between its two IPUs); this is an assumption.
constexpr double kIpuLinkBytesPerSecond = 64e9;

// Floating-point operations per cycle per tile of the matrix units.
std::uint64_t ampFlopsPerCycle(const Target &target, const Type &type);

struct CycleEstimate {
  std::uint64_t sync = 0, exchange = 0, compute = 0;
  std::uint64_t exchangeBytes = 0; // bytes that cross between tiles (or to/from the host)
  std::uint64_t ipuLinkBytes = 0;  // the part of exchangeBytes that crosses between IPUs
  // Compute sets and copies: each tile's compute cycles (`compute` is their maximum);
  // empty for the steps the model costs as a whole (syncs, host transfers, branches).
  std::vector<std::uint64_t> computeByTile;
  // Which IPUs' clocks the step advances (IpuTimeline): all of them brought together
  // first, each on its own, or those in `ipus` (brought together first when several).
  enum class Span : std::uint8_t { AllIpus, EachIpu, Ipus };
  Span span = Span::AllIpus;
  std::vector<unsigned> ipus; // Span::Ipus: in increasing order
  std::uint64_t total() const { return sync + exchange + compute; }
};

class CostModel {
public:
  CostModel(const Target &target, const VarTable &vars) : target_(target), vars_(vars) {}

  std::uint64_t syncCycles() const;
  // A Sync program or the sync before a cycle stamp: all tiles of an IPU, or all IPUs.
  CycleEstimate sync(SyncType type) const;
  CycleEstimate computeSet(const std::vector<Kernel> &kernels) const;
  // One kernel's compute cycles on each tile: the tiles its work lands on are nonzero.
  std::vector<std::uint64_t> kernelCyclesByTile(const Kernel &kernel) const;
  CycleEstimate copy(const Tensor &src, const Tensor &dst) const;
  CycleEstimate hostTransfer(std::size_t bytes) const;
  // A function's code, `instructions` of it, from its function buffer onto every tile.
  CycleEstimate functionCodeLoad(std::uint64_t instructions) const;
  // A collective's traffic between replicas: a global sync, then `bytes` over the IPU-Links.
  CycleEstimate ipuLinkTransfer(std::uint64_t bytes) const;
  // An If, Switch or While condition: broadcast the predicate, then branch; on every IPU,
  // or given the predicate, on the IPUs that hold it.
  CycleEstimate branch(const Tensor *predicate = nullptr) const;
  CycleEstimate loop(std::uint64_t iterations) const;

private:
  using PerTile = std::vector<std::uint64_t>;
  // Where a tensor's elements live.
  struct Layout {
    std::vector<std::pair<unsigned, std::size_t>> segments; // (tile, elements) in flat order
    PerTile stored;            // distinct elements per tile (a broadcast element counts once)
    std::uint64_t distinct = 0;
  };
  Layout layout(const Tensor &t) const;
  // Adds to received[tile of work element i] the bytes of element i of `operand`
  // when it lives on another tile; to linkReceived instead, if given, when that tile
  // is on another IPU.
  void addMisplaced(const Layout &work, const Layout &operand, std::uint64_t elementBytes,
                    PerTile &received, PerTile *linkReceived = nullptr) const;
  std::uint64_t ipuLinkCycles(std::uint64_t bytes) const;
  void addKernel(const Kernel &k, PerTile &cycles, PerTile &received) const;
  void addVertex(const Kernel &k, const VertexPlacement &placement, PerTile &cycles, PerTile &received) const;
  CycleEstimate finish(const PerTile &cycles, const PerTile &received) const;
  // Sets e's span to the IPUs whose tiles hold elements of `tensors` (several-IPU
  // targets only: on one IPU every step spans it).
  void spanIpusOf(const std::vector<const Tensor *> &tensors, CycleEstimate &e) const;

  const Target &target_;
  const VarTable &vars_;
  // Variables' tile mappings as sorted arrays: walking them is the model's main cost.
  struct MappedInterval {
    std::size_t begin, end;
    unsigned tile;
  };
  mutable std::map<unsigned, std::vector<MappedInterval>> flatMappings_;
};

} // namespace poplar::detail
