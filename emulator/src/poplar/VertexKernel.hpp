#pragma once
// Custom vertices as kernels of their compute set: at compileGraph each vertex
// becomes a kernel of kind kVertexKernelKind whose parameters name its class
// (codelet library key and vertex type), tile, perf estimate and how each field
// is bound; reads are its Input edges, writes its Output/InOut edges. The
// kernel registry re-makes it from those parameters, so executables that use
// codelets serialize like any other (with their codelet sources).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Kernel.hpp"

namespace poplar::detail {

struct GraphState;
struct VertexClass;

inline const char *const kVertexKernelKind = "poplar::Vertex";

struct VertexPlacement {
  unsigned vertexId;
  unsigned tile;
  bool hasPerfEstimate;
  std::uint64_t cycles, flops;
};

// The placement of a vertex kernel; nullopt for other kernels.
std::optional<VertexPlacement> vertexPlacement(const Kernel &k);

// Checks every vertex (connections, tile, conflicting writes) and (re)makes its kernel.
void materializeVertices(GraphState &g);

// Per kernel of a compute set, per read: whether another vertex of the set
// writes some of its elements. Such reads are snapshotted before any vertex
// runs, so every vertex sees the values from before the compute set (as the
// IPU's exchange-then-compute phases give), whatever order tiles run in.
std::vector<std::vector<bool>> vertexReadsWrittenByOthers(const std::vector<Kernel> &kernels);

// The vertex kernels of one compute set, grouped by tile. Tiles run in parallel
// on the thread pool when the compute set is large enough to gain from it.
class TileGroups {
public:
  void add(unsigned tile, std::function<void()> vertex, std::uint64_t elements);
  // A dense copy of `live`, refreshed at the start of every run; returns its access.
  Access snapshot(const Access &live);
  bool empty() const { return tiles_.empty(); }
  // Runs every vertex; a failure names the compute set.
  void run(const std::string &computeSet);
  // Restores every vertex's fields to their values when the engine was made.
  void reset();
  // Makes every vertex run its class compiled with checks on every field access
  // (emulator.checkVertexAccess); vertices of codelet objects stay unchecked.
  void checkVertexAccess(const GraphState &g);

private:
  std::vector<std::pair<Access, std::vector<std::uint8_t>>> snapshots_; // (live, copy)
  std::vector<unsigned> tileIds_;
  struct TileVertex {
    std::function<void()> run;
    const char *where; // "vertex 'X' (id 3) on tile 1", for fault reports
  };
  std::vector<std::vector<TileVertex>> tiles_;
  std::uint64_t vertices_ = 0, elements_ = 0;
};

// `cls` compiled with POPDSL_CHECK_VERTEX_ACCESS from the codelet source `g` loaded it from
// (compiled once per process); null for a codelet object's class, which has no source.
std::shared_ptr<const VertexClass> checkedVertexClass(const GraphState &g, const VertexClass &cls);

} // namespace poplar::detail
