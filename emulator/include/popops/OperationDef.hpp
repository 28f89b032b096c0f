#pragma once

namespace popops {

// The binary operations reductions and multi-updates combine elements with.
enum class Operation { ADD, MUL, MIN, MAX, LOGICAL_AND, LOGICAL_OR, SQUARE_ADD, LOG_ADD };

} // namespace popops
