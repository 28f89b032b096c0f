#pragma once
// The tensor view model. A tensor is a shape plus a list of strided blocks of
// variables whose elements, concatenated, are the tensor's elements in row-major
// order. Most views are one block whose dims equal the shape ("aligned"); view
// operations then only change offsets and strides.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <poplar/Internals.hpp>
#include <poplar/Tensor.hpp>

#include "Variable.hpp"

namespace poplar::detail {

using Dims = std::vector<std::size_t>;
using Strides = std::vector<std::int64_t>;

// Element (i0, .., ik) is element offset + sum(i_j * strides[j]) of variable `var`.
struct Block {
  unsigned var = 0;
  std::int64_t offset = 0;
  Dims dims;
  Strides strides;
  std::size_t numElements() const;
};

// One run of elements in flat order: var[start + k * stride] for k < count.
struct Run {
  unsigned var;
  std::int64_t start;
  std::size_t count;
  std::int64_t stride;
};

struct TensorImpl {
  Type type;
  Dims shape;
  std::vector<Block> blocks;
  std::shared_ptr<VarTable> vars;

  std::size_t numElements() const;
  bool aligned() const { return blocks.size() == 1 && blocks[0].dims == shape; }
  // Calls fn for maximal runs covering the tensor's elements in flat order.
  void forEachRun(const std::function<void(const Run &)> &fn) const;
  std::vector<Run> runs() const;
  // "name[shape] (type)" for error messages.
  std::string describe() const;
};

std::shared_ptr<const TensorImpl> makeVariableView(std::shared_ptr<VarTable> vars, unsigned var,
                                                   Type type, const Dims &shape);
std::string shapeString(const Dims &shape);
// The number of elements of a tensor of `shape` and `type`. Throws
// tensor_creation_error naming what() when the tensor's bytes would not fit in
// the signed 64-bit offsets that element positions use (what() is only called
// then: views are made often and describing a tensor is not free).
std::size_t checkedNumElements(const Dims &shape, const Type &type, const std::function<std::string()> &what);

} // namespace poplar::detail
