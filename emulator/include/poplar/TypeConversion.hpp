#pragma once
// Host values to and from the bytes the device holds for a Type, element by
// element: FLOAT, HALF (rounded once, to nearest with ties to even), BOOL (non-zero
// is true) and the integer types (truncated towards zero, saturated, NaN as 0).
// The host element type T is float, double, int, unsigned or IeeeHalf, const or
// not for the source. QUARTER and QUARTER_METADATA need quarter metadata and
// LONG, UNSIGNED_LONG and DOUBLE have no device form: those throw poplar_error.
#include <poplar/ArrayRef.hpp>
#include <poplar/Type.hpp>

namespace poplar {

// Writes src.size() elements of dstType to dst.
template <typename T> void convertToDeviceType(Type dstType, ArrayRef<T> src, void *dst);
// Reads dst.size() elements of srcType from src into dst.
template <typename T> void convertFromDeviceType(Type srcType, const void *src, ArrayRef<T> dst);

} // namespace poplar
