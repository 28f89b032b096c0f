#include "HalfConversion.hpp"

#include <immintrin.h>

#include "TypeInfo.hpp"

namespace poplar::detail {

namespace {

#define F16C_TARGET __attribute__((target("avx,f16c")))

// Eight elements at a time. A group holding a NaN goes element by element: the instructions
// keep a NaN's payload (and quieten a signalling one) where floatToHalf makes every NaN the
// one quiet NaN and halfToFloat keeps a signalling one signalling.
F16C_TARGET bool holdsNaN(__m256 v) { return _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0; }

F16C_TARGET void floatsToHalvesF16c(const float *from, std::uint16_t *to, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(from + i);
    if (holdsNaN(v))
      for (std::size_t j = i; j < i + 8; ++j) to[j] = floatToHalf(from[j]);
    else
      _mm_storeu_si128(reinterpret_cast<__m128i *>(to + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
  for (; i < n; ++i) to[i] = floatToHalf(from[i]);
}

F16C_TARGET void halvesToFloatsF16c(const std::uint16_t *from, float *to, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(from + i)));
    if (holdsNaN(v))
      for (std::size_t j = i; j < i + 8; ++j) to[j] = halfToFloat(from[j]);
    else
      _mm256_storeu_ps(to + i, v);
  }
  for (; i < n; ++i) to[i] = halfToFloat(from[i]);
}

F16C_TARGET void roundToHalvesF16c(float *values, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(values + i);
    if (holdsNaN(v))
      for (std::size_t j = i; j < i + 8; ++j) values[j] = halfToFloat(floatToHalf(values[j]));
    else
      _mm256_storeu_ps(values + i, _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)));
  }
  for (; i < n; ++i) values[i] = halfToFloat(floatToHalf(values[i]));
}

#undef F16C_TARGET

bool hasF16c() {
  static const bool f16c = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return f16c;
}

} // namespace

void floatsToHalves(const float *from, std::uint16_t *to, std::size_t n) {
  if (hasF16c()) return floatsToHalvesF16c(from, to, n);
  for (std::size_t i = 0; i < n; ++i) to[i] = floatToHalf(from[i]);
}

void halvesToFloats(const std::uint16_t *from, float *to, std::size_t n) {
  if (hasF16c()) return halvesToFloatsF16c(from, to, n);
  for (std::size_t i = 0; i < n; ++i) to[i] = halfToFloat(from[i]);
}

void roundToHalves(float *values, std::size_t n) {
  if (hasF16c()) return roundToHalvesF16c(values, n);
  for (std::size_t i = 0; i < n; ++i) values[i] = halfToFloat(floatToHalf(values[i]));
}

} // namespace poplar::detail
