#pragma once
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {

// The hardware random seeds of every tile's worker contexts, as an UNSIGNED_INT
// tensor [numTiles, numWorkerContexts, 4], copied out in `prog`.
//
// Emulator: unlike the IPUModel (one hard-coded seed on every tile), each engine
// derives the seeds from its random seed (engine option "prng.seed"), a different
// stream per tile and worker.
Tensor getHwSeeds(Graph &graph, program::Sequence &prog, const DebugContext &debugContext = {});
// Sets the hardware seeds from a tensor shaped like getHwSeeds' result, in `prog`.
void setHwSeeds(Graph &graph, const Tensor &hwSeeds, program::Sequence &prog,
                const DebugContext &debugContext = {});

} // namespace poplar
