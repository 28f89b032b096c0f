#pragma once
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

// A history of the last `size` tensors of one shape, kept on the device: add() writes
// the newest over the oldest, prev(i) reads the one added i adds ago (0: the newest).
class CircBuf {
  poplar::Graph &graph;
  unsigned size_;
  poplar::Tensor index; // where the newest entry is: UNSIGNED_INT [1]
  std::vector<std::size_t> shape;
  poplar::Tensor hist; // [size_][elements of one entry]

public:
  CircBuf(poplar::Graph &graph, const poplar::Type &dataType, unsigned size, const std::vector<std::size_t> &shape,
          const poplar::DebugContext &debugContext = {});

  // The entry added i adds ago (i < size()), as a new tensor of the entries' shape.
  poplar::Tensor prev(unsigned i, poplar::program::Sequence &seq, const poplar::DebugContext &debugContext = {});

  // Steps the index and writes t (the entries' shape and type) there.
  void add(poplar::Tensor t, poplar::program::Sequence &seq, const poplar::DebugContext &debugContext = {});

  poplar::Tensor getIndex() const { return index; }

  unsigned size() const { return size_; }

  // The tile mapping of the tensors prev() returns.
  poplar::Graph::TileToTensorMapping getTileMapping();
};

} // namespace popops
