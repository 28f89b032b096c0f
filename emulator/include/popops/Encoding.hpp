#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <popops/EncodingConstants.hpp>

namespace popops {

// Row i of the 2-D `encoded` [N][C] becomes a one-hot vector: 1 at column indices[i]
// (1-D, INT or UNSIGNED_INT, N elements), 0 elsewhere. A MASKED_LABEL_CODE index (or
// one past the row) gives a row of zeros.
void encodeOneHot(poplar::Graph &graph, const poplar::Tensor &indices, const poplar::Tensor &encoded,
                  poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
// As above with `on` at the hot column and `off` elsewhere (single-element tensors of
// encoded's type).
void encodeOneHot(poplar::Graph &graph, const poplar::Tensor &indices, const poplar::Tensor &encoded,
                  poplar::program::Sequence &prog, const poplar::Tensor &on, const poplar::Tensor &off,
                  const poplar::DebugContext &debugContext = {});

// Fills the 1-D INT or UNSIGNED_INT tensor t with startInteger, startInteger + 1, ...
void iota(poplar::Graph &graph, const poplar::Tensor &t, unsigned startInteger, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext = {});
void iota(poplar::Graph &graph, const poplar::Tensor &t, int startInteger, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext = {});
// As iota, starting at the value of the single-element tensor `offset` (t's type) when
// the program runs.
void iotaWithOffset(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &offset,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops
