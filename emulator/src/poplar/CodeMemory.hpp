#pragma once
// libpva's memory categories beyond data, per tile, for the report (ProfileReport.cpp).
// The emulator compiles no IPU code, so these are estimates from the compiled engine:
//
//  * vertexCode: kVertexCodeBytes for each vertex type with an instance on the tile (a
//    kernel, one whole op, is an instance on every tile its work lands on, as the cost
//    model places it).
//  * vertexInstanceState: kVertexFieldStateBytes (a pointer and a size) per field of every
//    instance on the tile, for each compute set that some program executes.
//  * controlCode: kCodeBytesPerInstruction (CostModel.hpp) per instruction of the compiled
//    control program (steps, jumps, calls), on every tile: each tile runs it.
//  * internalExchangeCode: kCodeBytesPerInstruction on each tile holding a variable that
//    an exchanging step uses (a Copy, or a compute set that receives operands), per step.
//  * hostExchangeCode: the same for the stream copies (and the other host transfers).
//  * stack: kStackBytesPerContext for the supervisor and each worker context, on every tile.
#include <cstdint>
#include <vector>

namespace poplar::detail {

struct EngineState;

constexpr std::uint64_t kVertexCodeBytes = 256;
constexpr std::uint64_t kVertexFieldStateBytes = 8;
constexpr std::uint64_t kStackBytesPerContext = 128;

struct CodeMemory {
  std::vector<std::uint64_t> vertexCode, vertexInstanceState, controlCode, internalExchangeCode, hostExchangeCode,
      stack;
};

CodeMemory estimateCodeMemory(const EngineState &s);

} // namespace poplar::detail
