#pragma once
#include <poplar/Graph.hpp>

namespace poplin {

// Registers poplin's vertices with `graph`. The emulator's kernels are built in,
// so this only exists for source compatibility.
void addCodelets(poplar::Graph &graph);

} // namespace poplin
