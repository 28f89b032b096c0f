#include <popops/Pad.hpp>
#include <poputil/exceptions.hpp>

#include <functional>

#include "KernelSupport.hpp"

namespace popops {

using poplar::Tensor;
using namespace popops::detail;

namespace {

// Makes the block of `amount` elements to put before (lower) or after the
// current tensor along `dim`.
using PaddingBlock = std::function<Tensor(const Tensor &t, unsigned dim, std::size_t amount, bool lower)>;

// Pads one dimension at a time; negative amounts slice elements off instead.
Tensor padWith(const Tensor &in, const std::vector<std::ptrdiff_t> &lower,
               const std::vector<std::ptrdiff_t> &upper, const PaddingBlock &block) {
  if (lower.size() != in.rank() || upper.size() != in.rank())
    throw poputil::poplibs_error("pad: " + std::to_string(lower.size()) + " lower and " +
                                 std::to_string(upper.size()) + " upper padding amounts given for " +
                                 describe(in) + " of rank " + std::to_string(in.rank()));
  Tensor t = in;
  for (unsigned d = 0; d < t.rank(); ++d) {
    const auto size = static_cast<std::ptrdiff_t>(t.dim(d));
    const std::ptrdiff_t cutLower = std::max<std::ptrdiff_t>(-lower[d], 0);
    const std::ptrdiff_t cutUpper = std::max<std::ptrdiff_t>(-upper[d], 0);
    if (cutLower + cutUpper > size)
      throw poputil::poplibs_error("pad: negative padding removes " + std::to_string(cutLower + cutUpper) +
                                   " elements from dimension " + std::to_string(d) + " of " +
                                   describe(in) + ", which has " + std::to_string(size));
    t = t.slice(static_cast<std::size_t>(cutLower), static_cast<std::size_t>(size - cutUpper), d);
    std::vector<Tensor> parts;
    if (lower[d] > 0) parts.push_back(block(t, d, static_cast<std::size_t>(lower[d]), true));
    parts.push_back(t);
    if (upper[d] > 0) parts.push_back(block(t, d, static_cast<std::size_t>(upper[d]), false));
    if (parts.size() > 1) t = poplar::concat(parts, d);
  }
  return t;
}

std::vector<std::size_t> blockShape(const Tensor &t, unsigned dim, std::size_t amount) {
  std::vector<std::size_t> shape = t.shape();
  shape[dim] = amount;
  return shape;
}

// Places a constant block as the mapping method says.
void mapPadding(poplar::Graph &graph, const Tensor &t, const Tensor &block, unsigned dim, bool lower,
                padding::MappingMethod method) {
  if (method == padding::MappingMethod::NONE || block.numElements() == 0) return;
  if (method == padding::MappingMethod::ZERO || t.dim(dim) == 0) { // no edge to follow
    graph.setTileMapping(block, 0);
    return;
  }
  // EDGE: each padding plane lives where the adjacent edge plane of t does.
  const std::size_t edgeIndex = lower ? 0 : t.dim(dim) - 1;
  const auto edgeMapping = graph.getTileMapping(t.slice(edgeIndex, edgeIndex + 1, dim), false);
  for (std::size_t i = 0; i < block.dim(dim); ++i) graph.setTileMapping(block.slice(i, i + 1, dim), edgeMapping);
}

template <class Value>
Tensor padConstant(poplar::Graph &graph, const Tensor &t, const std::vector<std::ptrdiff_t> &lower,
                   const std::vector<std::ptrdiff_t> &upper, Value val, padding::MappingMethod method) {
  return padWith(t, lower, upper, [&](const Tensor &current, unsigned dim, std::size_t amount, bool isLower) {
    Tensor block = graph.addConstant(current.elementType(), blockShape(current, dim, amount), val, "padding");
    mapPadding(graph, current, block, dim, isLower, method);
    return block;
  });
}

// Amounts for one dimension of t, zero elsewhere.
std::vector<std::ptrdiff_t> oneDim(const Tensor &t, unsigned dim, std::ptrdiff_t amount) {
  if (dim >= t.rank())
    throw poputil::poplibs_error("pad: dimension " + std::to_string(dim) + " is out of range for " +
                                 describe(t));
  std::vector<std::ptrdiff_t> amounts(t.rank(), 0);
  amounts[dim] = amount;
  return amounts;
}

} // namespace

Tensor pad(poplar::Graph &graph, const Tensor &t, const std::vector<std::ptrdiff_t> &paddingLower,
           const std::vector<std::ptrdiff_t> &paddingUpper, float val, padding::MappingMethod mappingMethod) {
  return padConstant(graph, t, paddingLower, paddingUpper, val, mappingMethod);
}

Tensor pad(poplar::Graph &graph, const Tensor &t, const std::vector<std::ptrdiff_t> &paddingLower,
           const std::vector<std::ptrdiff_t> &paddingUpper, int val, padding::MappingMethod mappingMethod) {
  return padConstant(graph, t, paddingLower, paddingUpper, val, mappingMethod);
}

Tensor pad(poplar::Graph &, const Tensor &t, const std::vector<std::ptrdiff_t> &paddingLower,
           const std::vector<std::ptrdiff_t> &paddingUpper, const Tensor &val, padding::MappingMethod) {
  if (val.numElements() != 1 || val.elementType() != t.elementType())
    throw poputil::poplibs_error("pad: the padding value " + describe(val) +
                                 " must be one element of the type of " + describe(t));
  // The one element, broadcast to each block: the padding aliases `val`, which
  // is already mapped, so there is no mapping method to apply.
  const Tensor scalar = val.reshape(std::vector<std::size_t>(t.rank(), 1));
  return padWith(t, paddingLower, paddingUpper, [&](const Tensor &current, unsigned dim, std::size_t amount, bool) {
    Tensor block = scalar;
    const auto shape = blockShape(current, dim, amount);
    for (unsigned d = 0; d < shape.size(); ++d) block = block.broadcast(static_cast<unsigned>(shape[d]), d);
    return block;
  });
}

Tensor pad(poplar::Graph &graph, const Tensor &t, std::ptrdiff_t paddingLower, std::ptrdiff_t paddingUpper,
           unsigned dim, float val, padding::MappingMethod mappingMethod) {
  return pad(graph, t, oneDim(t, dim, paddingLower), oneDim(t, dim, paddingUpper), val, mappingMethod);
}

Tensor pad(poplar::Graph &graph, const Tensor &t, std::ptrdiff_t paddingLower, std::ptrdiff_t paddingUpper,
           unsigned dim, int val, padding::MappingMethod mappingMethod) {
  return pad(graph, t, oneDim(t, dim, paddingLower), oneDim(t, dim, paddingUpper), val, mappingMethod);
}

Tensor pad(poplar::Graph &graph, const Tensor &t, std::ptrdiff_t paddingLower, std::ptrdiff_t paddingUpper,
           unsigned dim, const Tensor &val, padding::MappingMethod mappingMethod) {
  return pad(graph, t, oneDim(t, dim, paddingLower), oneDim(t, dim, paddingUpper), val, mappingMethod);
}

Tensor pad(const Tensor &t, const std::vector<std::ptrdiff_t> &paddingLower,
           const std::vector<std::ptrdiff_t> &paddingUpper, padding::Type type) {
  return padWith(t, paddingLower, paddingUpper, [&](const Tensor &current, unsigned dim, std::size_t amount,
                                                    bool lower) {
    const std::size_t size = current.dim(dim);
    if (type == padding::Type::EDGE) {
      if (size == 0)
        throw poputil::poplibs_error("pad: dimension " + std::to_string(dim) + " of " + describe(t) +
                                     " has no edge element to repeat");
      const std::size_t edge = lower ? 0 : size - 1;
      return current.slice(edge, edge + 1, dim).broadcast(static_cast<unsigned>(amount), dim);
    }
    // REFLECT mirrors the elements next to the edge, not the edge itself.
    if (amount >= size)
      throw poputil::poplibs_error("pad: cannot reflect " + std::to_string(amount) +
                                   " elements in dimension " + std::to_string(dim) + " of " + describe(t) +
                                   ", which has " + std::to_string(size));
    return (lower ? current.slice(1, amount + 1, dim) : current.slice(size - 1 - amount, size - 1, dim))
        .reverse(dim);
  });
}

Tensor pad(const Tensor &t, std::ptrdiff_t paddingLower, std::ptrdiff_t paddingUpper, unsigned dim,
           padding::Type type) {
  return pad(t, oneDim(t, dim, paddingLower), oneDim(t, dim, paddingUpper), type);
}

} // namespace popops
