#pragma once
#include <poplar/Graph.hpp>

namespace poprand {

// Adds poprand's vertices to the graph (the emulator's kernels need nothing added).
void addCodelets(poplar::Graph &graph);

} // namespace poprand
