#pragma once
// What gather and scatter do with a start index whose slice does not fit its dimension:
// their options remapOutOfBoundIndices (such an index becomes 0) and paddingIndexUsed (an
// index equal to the dimension's size is padding: gathered as zeros, never scattered).
// Otherwise gather clamps the start into the dimension and scatter skips the update, as
// XLA's operations do.
#include <cmath>
#include <cstddef>

#include <poplar/OptionFlags.hpp>

#include "KernelSupport.hpp"
#include "poplar/Bytes.hpp"

namespace popops::detail {

struct OutOfBoundIndices {
  bool remap = false;
  bool padding = false;

  static OutOfBoundIndices parse(const poplar::OptionFlags &options) {
    OutOfBoundIndices o;
    parseOptions(options, {{"remapOutOfBoundIndices", boolOption("remapOutOfBoundIndices", o.remap)},
                           {"paddingIndexUsed", boolOption("paddingIndexUsed", o.padding)}});
    return o;
  }
  void write(poplar::detail::ByteWriter &w) const { w.boolean(remap).boolean(padding); }
  static OutOfBoundIndices read(poplar::detail::ByteReader &r) {
    OutOfBoundIndices o;
    o.remap = r.boolean();
    o.padding = r.boolean();
    return o;
  }

  // Where a slice of `size` starts in a dimension of `extent` for index value `index`,
  // or -1 when the slice is padding or (without `clamp`) does not fit.
  long long start(double index, std::size_t extent, std::size_t size, bool clamp) const {
    const double highest = double(extent - size);
    if (padding && index == double(extent)) return -1;
    if (index >= 0 && index <= highest) return static_cast<long long>(index);
    if (remap) return 0;
    return clamp ? static_cast<long long>(std::fmin(std::fmax(index, 0.0), highest)) : -1;
  }
};

} // namespace popops::detail
