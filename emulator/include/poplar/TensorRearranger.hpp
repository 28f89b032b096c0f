#pragma once
#include <cstddef>
#include <utility>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {

class Graph;

// A fixed reordering of the elements of tensors of one size, from
// Graph::getSimplifyingRearranger: rearrange() puts a tensor's flattened elements
// into the new order, undoRearrangement() puts them back. Both return 1-D tensors.
class TensorRearranger {
public:
  // One that is not valid(); using it throws poplar_error.
  TensorRearranger();

  Tensor rearrange(const Tensor &t) const;
  Tensor undoRearrangement(const Tensor &t) const;
  // Where the elements of `intervals` of the original order are in the new order,
  // and the reverse; the result's intervals are sorted and do not touch.
  std::vector<Interval> rearrange(ArrayRef<Interval> intervals) const;
  std::vector<Interval> undoRearrangement(ArrayRef<Interval> intervals) const;
  bool valid() const;

private:
  friend class Graph;
  // Takes the elements of `order[i].first .. order[i].first + order[i].second` of the
  // original, for each i in turn.
  explicit TensorRearranger(std::vector<std::pair<std::size_t, std::size_t>> order);
  std::vector<std::pair<std::size_t, std::size_t>> order_; // (original begin, length), in the new order
  bool valid_;
};

} // namespace poplar
