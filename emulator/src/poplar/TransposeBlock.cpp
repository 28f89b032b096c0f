#include "TransposeBlock.hpp"

#include <immintrin.h>

namespace poplar::detail {

namespace {

#define TRANSPOSE_TARGET __attribute__((target("avx2")))

// v[k] holds row k of an 8x8 block of 4-byte elements; afterwards v[m] holds its column m.
// Shuffles only, so every element keeps its bits (NaN payloads and integers included).
TRANSPOSE_TARGET void transpose(__m256 v[8]) {
  __m256 pairs[8], quads[8];
  for (int k = 0; k < 8; k += 2) {
    pairs[k] = _mm256_unpacklo_ps(v[k], v[k + 1]);     // (k,0) (k+1,0) (k,1) (k+1,1) | lanes 4-5
    pairs[k + 1] = _mm256_unpackhi_ps(v[k], v[k + 1]); // (k,2) (k+1,2) (k,3) (k+1,3) | lanes 6-7
  }
  for (int k = 0; k < 8; k += 4)
    for (int half = 0; half < 2; ++half) {
      quads[k + 2 * half] = _mm256_shuffle_ps(pairs[k + half], pairs[k + 2 + half], 0x44);
      quads[k + 2 * half + 1] = _mm256_shuffle_ps(pairs[k + half], pairs[k + 2 + half], 0xEE);
    }
  for (int m = 0; m < 4; ++m) {
    v[m] = _mm256_permute2f128_ps(quads[m], quads[m + 4], 0x20);
    v[m + 4] = _mm256_permute2f128_ps(quads[m], quads[m + 4], 0x31);
  }
}

// The same for 2-byte elements, a row to a 128-bit register.
TRANSPOSE_TARGET void transpose(__m128i v[8]) {
  __m128i pairs[8], quads[8];
  for (int k = 0; k < 8; k += 2) {
    pairs[k] = _mm_unpacklo_epi16(v[k], v[k + 1]);     // columns 0-3 of rows k, k+1, interleaved
    pairs[k + 1] = _mm_unpackhi_epi16(v[k], v[k + 1]); // columns 4-7
  }
  for (int k = 0; k < 8; k += 4)
    for (int half = 0; half < 2; ++half) {
      quads[k + 2 * half] = _mm_unpacklo_epi32(pairs[k + half], pairs[k + 2 + half]);
      quads[k + 2 * half + 1] = _mm_unpackhi_epi32(pairs[k + half], pairs[k + 2 + half]);
    }
  for (int m = 0; m < 4; ++m) {
    v[2 * m] = _mm_unpacklo_epi64(quads[m], quads[m + 4]);
    v[2 * m + 1] = _mm_unpackhi_epi64(quads[m], quads[m + 4]);
  }
}

// A block's row as one register: 8 elements of 4 bytes, or of 2 bytes.
struct FourBytes {
  using Row = __m256;
  TRANSPOSE_TARGET static Row load(const std::uint8_t *p) { return _mm256_loadu_ps(reinterpret_cast<const float *>(p)); }
  TRANSPOSE_TARGET static void store(std::uint8_t *p, Row v) { _mm256_storeu_ps(reinterpret_cast<float *>(p), v); }
};
struct TwoBytes {
  using Row = __m128i;
  TRANSPOSE_TARGET static Row load(const std::uint8_t *p) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p)); }
  TRANSPOSE_TARGET static void store(std::uint8_t *p, Row v) { _mm_storeu_si128(reinterpret_cast<__m128i *>(p), v); }
};

template <class Elements>
TRANSPOSE_TARGET void rowsToColumnsOf(const std::uint8_t *const rows[8], std::uint8_t *cols, std::ptrdiff_t colStride) {
  typename Elements::Row v[8];
  for (int k = 0; k < 8; ++k) v[k] = Elements::load(rows[k]);
  transpose(v);
  for (int m = 0; m < 8; ++m) Elements::store(cols + m * colStride, v[m]);
}

template <class Elements>
TRANSPOSE_TARGET void columnsToRowsOf(const std::uint8_t *cols, std::ptrdiff_t colStride, std::uint8_t *const rows[8]) {
  typename Elements::Row v[8];
  for (int m = 0; m < 8; ++m) v[m] = Elements::load(cols + m * colStride);
  transpose(v);
  for (int k = 0; k < 8; ++k) Elements::store(rows[k], v[k]);
}

#undef TRANSPOSE_TARGET

} // namespace

bool transposeBlocksSupported(std::size_t elemSize) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 && (elemSize == 2 || elemSize == 4);
}

void rowsToColumns(std::size_t elemSize, const std::uint8_t *const rows[8], std::uint8_t *cols,
                   std::ptrdiff_t colStride) {
  if (elemSize == 4) rowsToColumnsOf<FourBytes>(rows, cols, colStride);
  else rowsToColumnsOf<TwoBytes>(rows, cols, colStride);
}

void columnsToRows(std::size_t elemSize, const std::uint8_t *cols, std::ptrdiff_t colStride,
                   std::uint8_t *const rows[8]) {
  if (elemSize == 4) columnsToRowsOf<FourBytes>(cols, colStride, rows);
  else columnsToRowsOf<TwoBytes>(cols, colStride, rows);
}

} // namespace poplar::detail
