#pragma once
// Program instrumentation: cycle counts and stamps as [lo32, hi32] UNSIGNED_INT
// tensors. The emulator's counter runs in *estimated* cycles (the Engine's cost
// model, docs/profiling.rst), starting at 0 when the engine is loaded.
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/SyncType.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {

// Wraps `prog` so that it also writes the cycles it took to the returned tensor:
// the estimated cycles of the steps it ran, plus the sync that ends the window.
Tensor cycleCount(Graph &graph, program::Sequence &prog, unsigned tile, SyncType syncType,
                  const DebugContext &debugContext = {});

// Appends to `prog` a sync and then a snapshot of the cycle counter on `tile`.
Tensor cycleStamp(Graph &graph, program::Sequence &prog, unsigned tile, SyncType syncType,
                  const DebugContext &debugContext = {});
std::vector<Tensor> cycleStamp(Graph &graph, program::Sequence &prog,
                               const std::vector<unsigned> &tiles, SyncType syncType,
                               const DebugContext &debugContext = {});

} // namespace poplar
