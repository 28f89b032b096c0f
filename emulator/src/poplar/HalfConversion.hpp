#pragma once
// Runs of floats converted to half and back, element for element as floatToHalf and
// halfToFloat convert (TypeInfo.hpp): with F16C's vector conversions where the CPU has them,
// for the kernels that move many halves (casts, maps in half, staged products).
#include <cstddef>
#include <cstdint>

namespace poplar::detail {

void floatsToHalves(const float *from, std::uint16_t *to, std::size_t n);
void halvesToFloats(const std::uint16_t *from, float *to, std::size_t n);
// Each value rounded to the nearest half, in place (as an IPU computing in half rounds).
void roundToHalves(float *values, std::size_t n);

} // namespace poplar::detail
