#pragma once
#include <memory>
#include <string>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Type.hpp>
#include <poplar/VariableRef.hpp>

namespace poplar {

namespace detail {
struct TensorImpl;
struct VarTable;
struct Internals;
} // namespace detail

enum class UpsampleMethod { REPEAT };

// A view of elements of one or more variables. Every view operation returns a
// tensor that aliases the same elements: writing through one is seen by all.
class Tensor {
public:
  Tensor();

  bool valid() const;
  Type elementType() const;
  // A quarter tensor's one-element QUARTER_METADATA tensor (that of its first
  // element's variable); tensor_metadata_error for a tensor without one.
  Tensor getMetadata() const;
  bool hasMetadata() const;
  std::size_t dim(unsigned i) const;
  unsigned rank() const;
  std::vector<std::size_t> shape() const;
  std::size_t numElements() const;
  std::string shapeToString() const;

  Tensor operator[](std::size_t i) const;
  Tensor index(ArrayRef<std::size_t> indices) const;
  Tensor slice(std::size_t begin, std::size_t end, unsigned dimension = 0) const;
  Tensor slice(const Interval &region, unsigned dimension = 0) const;
  Tensor slice(ArrayRef<std::size_t> begin, ArrayRef<std::size_t> end) const;
  std::vector<Tensor> slices(ArrayRef<Interval> intervals, unsigned dimension = 0) const;
  std::vector<Tensor> slices(const std::vector<std::vector<Interval>> &intervals,
                             unsigned dimension = 0) const;
  std::vector<Tensor> slices(const ArrayRef<unsigned> &indices, unsigned dimension = 0) const;

  Tensor flatten() const;
  Tensor flatten(unsigned dimBegin, unsigned dimEnd) const;
  Tensor reshape(ArrayRef<std::size_t> shape) const;
  Tensor reshapePartial(unsigned beginIndex, unsigned endIndex,
                        ArrayRef<std::size_t> newDims) const;
  Tensor dimShuffle(ArrayRef<unsigned> permutation) const;
  Tensor dimShufflePartial(ArrayRef<unsigned> source, ArrayRef<unsigned> destination) const;
  Tensor dimRoll(unsigned dimIdx, unsigned newIdx = 0) const;
  Tensor transpose() const;
  Tensor expand(ArrayRef<std::size_t> indices) const;
  Tensor squeeze(ArrayRef<std::size_t> indices) const;
  Tensor broadcast(unsigned N, unsigned dimension) const;
  Tensor upsample(unsigned scale, unsigned dimension, UpsampleMethod method) const;
  Tensor subSample(unsigned stride, unsigned dimension) const;
  Tensor reverse(unsigned dimension) const;
  Tensor reinterpret(const Type &type) const;

  bool isContiguous() const;
  bool containsAliases() const;
  bool containsConstant() const;
  bool isParallelWriteable() const;
  bool intersectsWith(const Tensor &other) const;
  std::vector<Interval> getContiguousRegions() const;
  std::vector<VariableInterval> getVarRegions() const;
  std::string getVarStr() const;
  std::string getDebugStr() const;
  void dump() const;

  friend bool operator==(const Tensor &a, const Tensor &b);
  friend bool operator!=(const Tensor &a, const Tensor &b) { return !(a == b); }

private:
  friend struct detail::Internals;
  explicit Tensor(std::shared_ptr<const detail::TensorImpl> impl);
  std::shared_ptr<const detail::TensorImpl> impl_;
};

Tensor concat(ArrayRef<Tensor> ts, unsigned dimension = 0);
inline Tensor concat(const Tensor &first, const Tensor &second, unsigned dimension = 0) {
  return concat({first, second}, dimension);
}
Tensor append(const Tensor &first, const Tensor &second, unsigned dimension);
inline Tensor append(const Tensor &first, const Tensor &second) { return append(first, second, 0); }

} // namespace poplar
