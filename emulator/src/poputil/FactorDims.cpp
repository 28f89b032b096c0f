// factorDims / unfactorDims: splitting dimensions into an outer and an inner factor.
#include <poputil/Util.hpp>
#include <poputil/exceptions.hpp>

#include <string>

namespace poputil {

poplar::Tensor factorDims(const poplar::Tensor &t, const std::vector<std::size_t> &factors, unsigned startDim) {
  const std::size_t n = factors.size();
  if (startDim + n > t.rank())
    throw poplibs_error("factorDims: " + std::to_string(n) + " factor(s) from dimension " + std::to_string(startDim) +
                        " do not fit a rank-" + std::to_string(t.rank()) + " tensor");
  std::vector<std::size_t> split;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t size = t.dim(startDim + i);
    if (factors[i] == 0 || size % factors[i] != 0)
      throw poplibs_error("factorDims: factor " + std::to_string(factors[i]) + " does not divide dimension " +
                          std::to_string(startDim + i) + " of size " + std::to_string(size));
    split.push_back(size / factors[i]);
    split.push_back(factors[i]);
  }
  const poplar::Tensor pairs = t.reshapePartial(startDim, startDim + n, split);
  // [.., a0, f0, a1, f1, ..] -> [.., a0, a1, .., f0, f1, ..]
  std::vector<unsigned> order(pairs.rank());
  for (unsigned d = 0; d < order.size(); ++d) order[d] = d;
  for (std::size_t i = 0; i < n; ++i) {
    order[startDim + i] = startDim + 2 * i;
    order[startDim + n + i] = startDim + 2 * i + 1;
  }
  return pairs.dimShuffle(order);
}

poplar::Tensor unfactorDims(const poplar::Tensor &t, unsigned numDims, unsigned startDim) {
  if (startDim + 2 * numDims > t.rank())
    throw poplibs_error("unfactorDims: " + std::to_string(numDims) + " factored dimension(s) from " +
                        std::to_string(startDim) + " need rank " + std::to_string(startDim + 2 * numDims) +
                        ", the tensor has rank " + std::to_string(t.rank()));
  // [.., a0, a1, .., f0, f1, ..] -> [.., a0, f0, a1, f1, ..] -> [.., a0*f0, a1*f1, ..]
  std::vector<unsigned> order(t.rank());
  for (unsigned d = 0; d < order.size(); ++d) order[d] = d;
  std::vector<std::size_t> merged;
  for (unsigned i = 0; i < numDims; ++i) {
    order[startDim + 2 * i] = startDim + i;
    order[startDim + 2 * i + 1] = startDim + numDims + i;
    merged.push_back(t.dim(startDim + i) * t.dim(startDim + numDims + i));
  }
  return t.dimShuffle(order).reshapePartial(startDim, startDim + 2 * numDims, merged);
}

} // namespace poputil
