#pragma once
// Host values to and from the bytes the device holds for a Type, element by
// element: FLOAT, HALF (rounded once, to nearest with ties to even), BOOL (non-zero
// is true) and the integer types (truncated towards zero, saturated, NaN as 0).
// The host element type T is float, double, int, unsigned or IeeeHalf, const or
// not for the source. QUARTER takes the overloads with QuarterMetadata (the others
// throw poplar_error for it, as for QUARTER_METADATA, LONG, UNSIGNED_LONG and DOUBLE,
// which have no device form here).
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/IeeeHalf.hpp>
#include <poplar/Quarter.hpp>
#include <poplar/Type.hpp>

namespace poplar {

// Writes src.size() elements of dstType to dst.
template <typename T> void convertToDeviceType(Type dstType, ArrayRef<T> src, void *dst);
// The same for a vector's elements (poplibs' tests pass one directly).
template <typename T> void convertToDeviceType(Type dstType, const std::vector<T> &src, void *dst) {
  convertToDeviceType(dstType, ArrayRef<const T>(src), dst);
}
// Reads dst.size() elements of srcType from src into dst.
template <typename T> void convertFromDeviceType(Type srcType, const void *src, ArrayRef<T> dst);

// QUARTER elements under `metadata`: to the nearest quarter (ties to even); NaN and
// infinities become NaN, as magnitudes past the format's largest do when nanOnOverflow
// (else they saturate to it).
template <typename T>
void convertToDeviceType(Type dstType, const QuarterMetadata &metadata, ArrayRef<T> src, void *dst,
                         bool nanOnOverflow = true);
template <typename T>
void convertFromDeviceType(Type srcType, const QuarterMetadata &metadata, const void *src, ArrayRef<T> dst);

} // namespace poplar
