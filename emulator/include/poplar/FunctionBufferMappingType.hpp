#pragma once

namespace poplar {

// Where a function buffer keeps a function's code: REMOTE is off-chip (remote) memory.
enum class FunctionBufferMappingType { REMOTE };

} // namespace poplar
