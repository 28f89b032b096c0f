#pragma once
#include <poplar/Graph.hpp>

namespace popnn {
// The emulator's popnn work is built in; this exists for code written for the SDK.
void addCodelets(poplar::Graph &graph);
} // namespace popnn
