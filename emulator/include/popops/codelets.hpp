#pragma once
#include <poplar/Graph.hpp>

namespace popops {

// Registers popops' vertices with the graph. The emulator's kernels are built
// in, so this only exists for code written against the SDK.
void addCodelets(poplar::Graph &graph);

} // namespace popops
