#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {

// Element type conversion between BOOL, CHAR, SIGNED_CHAR, UNSIGNED_CHAR, SHORT,
// UNSIGNED_SHORT, INT, UNSIGNED_INT, HALF and FLOAT. Floating point to integer
// truncates toward zero and saturates (NaN gives 0); integer to integer wraps;
// anything to BOOL is "not zero"; to HALF rounds to nearest even.

// A program converting src into dst (same number of elements).
poplar::program::Program cast(poplar::Graph &graph, poplar::Tensor src, poplar::Tensor dst,
                              const poplar::DebugContext &debugContext = {});
// Adds the conversion of src into dst to compute set `cs`.
void cast(poplar::Graph &graph, poplar::Tensor src, poplar::Tensor dst, poplar::ComputeSet cs);
// A new tensor of dstType mapped like src, converted in compute set `cs`.
poplar::Tensor cast(poplar::Graph &graph, poplar::Tensor src, const poplar::Type &dstType,
                    poplar::ComputeSet cs, const poplar::DebugContext &debugContext = {});
// A new tensor of dstType mapped like src; a Copy when the types are equal.
poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
void castWithOutput(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops
