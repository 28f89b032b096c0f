#pragma once
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <popops/Operation.hpp>
#include <poputil/exceptions.hpp>

namespace popops {

// What a reduction does: the operation, whether it accumulates into the output
// (out += reduce(in)) and an optional scalar scale tensor multiplying the result.
struct ReduceParams {
  ReduceParams() = default;
  // Implicit, so {Operation::MAX} works.
  ReduceParams(popops::Operation op, bool update = false) : op(op), update(update), useScale(false) {}
  ReduceParams(popops::Operation op, bool update, poplar::Tensor scale)
      : op(op), update(update), useScale(true), scale(scale) {}
  // A constant scale is no longer accepted: it would silently convert to `update`.
  ReduceParams(popops::Operation op, float constantScale, bool update = false) = delete;

  popops::Operation op = popops::Operation::ADD;
  bool update = false;
  bool useScale = false;
  poplar::Tensor scale;
};

// Reduces `in` over `dims` (a set); the result has `in`'s shape with those
// dimensions removed. ADD, SQUARE_ADD, MUL: float, half or int in, the same
// out (or float<->half); MAX, MIN: float, half or int, same out; LOG_ADD: float
// or half; LOGICAL_*: bool. Only ADD, SQUARE_ADD and LOG_ADD take update and
// scale; for LOG_ADD the scale is added (a log-multiply) and the update is a
// log-add. HALF accumulates in float (in half with accumType.inVertex=half),
// FLOAT in double, INT wraps. Options: accumType.interTile, accumType.inVertex
// (float|half).
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});
// `out` may have extra singleton dimensions; an incompletely mapped `out` is mapped linearly.
void reduceWithOutput(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});

// Deprecated forms: each adds one compute set to `css` for the caller to execute.
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});
void reduceWithOutput(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});

// One reduction of a reduceMany call.
struct SingleReduceOp {
  poplar::Tensor in;
  std::vector<std::size_t> dims;
  ReduceParams params;
  bool useOutType;
  poplar::Type outType;
  std::string debugName;

  SingleReduceOp(poplar::Tensor in, std::vector<std::size_t> dims, ReduceParams params,
                 poplar::Type outType, std::string debugName = "")
      : in(std::move(in)), dims(std::move(dims)), params(std::move(params)), useOutType(true),
        outType(outType), debugName(std::move(debugName)) {}
  SingleReduceOp(poplar::Tensor in, std::vector<std::size_t> dims, ReduceParams params,
                 std::string debugName = "")
      : in(std::move(in)), dims(std::move(dims)), params(std::move(params)), useOutType(false),
        outType(this->in.elementType()), debugName(std::move(debugName)) {}
};

// Runs the reductions in one compute set. With an empty `outputs` the results are
// created and appended; otherwise `outputs` holds one output per reduction.
void reduceMany(poplar::Graph &graph, const std::vector<SingleReduceOp> &reductions,
                std::vector<poplar::Tensor> &outputs, poplar::program::Sequence &prog,
                const poplar::DebugContext &debugContext = {},
                const poplar::OptionFlags &options = {});

} // namespace popops
