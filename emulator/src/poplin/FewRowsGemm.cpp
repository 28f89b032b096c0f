#include "FewRowsGemm.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "poplar/ThreadPool.hpp"

namespace poplin::detail {

namespace {

constexpr std::size_t kLanes = 8;        // floats in an AVX register
constexpr std::size_t kPanelColumns = 16; // columns that every row block reads while they are in L1
// Column ranges given to threads are multiples of the widest block.
constexpr std::size_t kChunkColumns = 64;
// The multiply-adds of a product before waking the pool's threads pays (measured on Zen3).
constexpr double kThreadedWork = 1 << 16;

struct Product {
  std::size_t k;
  float alpha, beta;
  StridedFloats a, b, c;
};

// Where a block reads its columns of b: from b itself (rowStride apart), copying
// them to `copy` (Vectors * 8 floats a row) on the way when that is not null.
struct Panel {
  const float *data;
  std::ptrdiff_t rowStride;
  float *copy;
};

// Rows [row, row + Rows) and columns [col, min(col + Vectors * 8, end)) of the
// product, reading the columns of b from `panel`: Rows x Vectors registers of sums,
// each fed by a broadcast element of a and a row of the panel.
template <int Rows, int Vectors, bool Partial, bool Copies>
__attribute__((target("avx2,fma"))) void block(const Product &p, std::size_t row, std::size_t col,
                                               std::size_t end, const Panel &panel) {
  // Locals, not p's fields: the stores to c could otherwise alias them.
  const std::size_t k = p.k;
  const std::ptrdiff_t aRowStride = p.a.rowStride, aColStride = p.a.colStride, bRowStride = panel.rowStride;
  const std::ptrdiff_t cRowStride = p.c.rowStride, cColStride = p.c.colStride;
  const float alpha = p.alpha, beta = p.beta;
  __m256i masks[Vectors];
  if constexpr (Partial) { // lanes at or past `end` are neither loaded nor stored
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v)
      masks[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(end - col) - v * int(kLanes)), lanes);
  }
  __m256 sums[Rows][Vectors];
#pragma GCC unroll 8
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v) sums[r][v] = _mm256_setzero_ps();

  const float *a = p.a.data + std::ptrdiff_t(row) * aRowStride;
  const float *b = panel.data;
  float *copy = panel.copy;
  for (std::size_t i = 0; i < k; ++i, a += aColStride, b += bRowStride, copy += Vectors * kLanes) {
    __m256 bRow[Vectors];
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v) {
      bRow[v] = Partial ? _mm256_maskload_ps(b + v * kLanes, masks[v]) : _mm256_loadu_ps(b + v * kLanes);
      if constexpr (Copies) _mm256_storeu_ps(copy + v * kLanes, bRow[v]);
    }
    if constexpr (Copies) _mm_prefetch(reinterpret_cast<const char *>(b + kPanelColumns), _MM_HINT_T0);
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r) {
      const __m256 aElement = _mm256_broadcast_ss(a + r * aRowStride);
#pragma GCC unroll 8
      for (int v = 0; v < Vectors; ++v) sums[r][v] = _mm256_fmadd_ps(aElement, bRow[v], sums[r][v]);
    }
  }

  // c = beta * c + alpha * sum, as one fused multiply-add in either path.
  const __m256 alphas = _mm256_set1_ps(alpha), betas = _mm256_set1_ps(beta);
  alignas(32) float values[Rows][Vectors * kLanes];
#pragma GCC unroll 8
  for (int r = 0; r < Rows; ++r) {
    float *c = p.c.data + std::ptrdiff_t(row + r) * cRowStride + std::ptrdiff_t(col) * cColStride;
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v) {
      if (cColStride != 1) {
        _mm256_store_ps(values[r] + v * kLanes, sums[r][v]);
        continue;
      }
      float *out = c + v * kLanes;
      __m256 value = _mm256_mul_ps(alphas, sums[r][v]);
      if (beta != 0.0f)
        value = _mm256_fmadd_ps(betas, Partial ? _mm256_maskload_ps(out, masks[v]) : _mm256_loadu_ps(out), value);
      if (Partial)
        _mm256_maskstore_ps(out, masks[v], value);
      else
        _mm256_storeu_ps(out, value);
    }
  }
  if (cColStride == 1) return;
  const std::size_t count = Partial ? end - col : Vectors * kLanes;
  for (int r = 0; r < Rows; ++r) {
    float *c = p.c.data + std::ptrdiff_t(row + r) * cRowStride + std::ptrdiff_t(col) * cColStride;
    for (std::size_t j = 0; j < count; ++j) {
      float &out = c[std::ptrdiff_t(j) * cColStride];
      out = beta == 0.0f ? alpha * values[r][j] : std::fma(beta, out, alpha * values[r][j]);
    }
  }
}

// Every block of Rows rows from `row` over columns [begin, end), read from b.
template <int Rows, int Vectors>
void blocks(const Product &p, std::size_t row, std::size_t begin, std::size_t end) {
  constexpr std::size_t width = Vectors * kLanes;
  std::size_t col = begin;
  for (; col + width <= end; col += width)
    block<Rows, Vectors, false, false>(p, row, col, end, {p.b.data + col, p.b.rowStride, nullptr});
  if (col < end) block<Rows, Vectors, true, false>(p, row, col, end, {p.b.data + col, p.b.rowStride, nullptr});
}

// Rows [row, row + Rows) over one panel of at most 16 columns [col, end).
template <int Rows, bool Copies>
void panelBlock(const Product &p, std::size_t row, std::size_t col, std::size_t end, const Panel &panel) {
  if (end - col == kPanelColumns)
    block<Rows, 2, false, Copies>(p, row, col, end, panel);
  else
    block<Rows, 2, true, Copies>(p, row, col, end, panel);
}

// Up to 6 rows: the fewer the rows, the more columns a block spans, so every block
// keeps at least 8 independent sums in flight (an FMA's latency over its throughput).
void rowBlock(const Product &p, std::size_t row, std::size_t rows, std::size_t begin, std::size_t end) {
  switch (rows) {
  case 1: return blocks<1, 8>(p, row, begin, end);
  case 2: return blocks<2, 4>(p, row, begin, end);
  case 3: return blocks<3, 4>(p, row, begin, end);
  case 4: return blocks<4, 2>(p, row, begin, end);
  case 5: return blocks<5, 2>(p, row, begin, end);
  default: return blocks<6, 2>(p, row, begin, end);
  }
}

// Rows [row, row + rows) over one panel, for 3 to 6 rows.
template <bool Copies>
void panelRowBlock(const Product &p, std::size_t row, std::size_t rows, std::size_t col, std::size_t end,
                   const Panel &panel) {
  switch (rows) {
  case 3: return panelBlock<3, Copies>(p, row, col, end, panel);
  case 4: return panelBlock<4, Copies>(p, row, col, end, panel);
  case 5: return panelBlock<5, Copies>(p, row, col, end, panel);
  default: return panelBlock<6, Copies>(p, row, col, end, panel);
  }
}

// Columns [begin, end) of every row. More than 6 rows are cut into blocks of 3 to 6,
// which take turns over each panel of 16 columns. The first reads the panel from b
// and copies it to consecutive memory, where the others read it: b's rows lie far
// apart (a page apart for 1024 columns), so reading them again would miss the TLB.
void columnRange(const Product &p, std::size_t m, std::size_t begin, std::size_t end) {
  if (m <= 6) return rowBlock(p, 0, m, begin, end);
  thread_local std::vector<float> copy;
  copy.resize(p.k * kPanelColumns);
  const Panel copied{copy.data(), kPanelColumns, nullptr};
  const std::size_t rowBlocks = (m + 5) / 6;
  for (std::size_t col = begin; col < end; col += kPanelColumns) {
    const std::size_t panelEnd = std::min(end, col + kPanelColumns);
    for (std::size_t i = 0, row = 0; i < rowBlocks; ++i) {
      const std::size_t rows = (m - row) / (rowBlocks - i); // as even as they go
      if (i == 0)
        panelRowBlock<true>(p, row, rows, col, panelEnd, {p.b.data + col, p.b.rowStride, copy.data()});
      else
        panelRowBlock<false>(p, row, rows, col, panelEnd, copied);
      row += rows;
    }
  }
}

} // namespace

bool fewRowsGemmSupported() {
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return supported;
}

void fewRowsGemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const StridedFloats &a,
                 const StridedFloats &b, float beta, const StridedFloats &c, bool pooled) {
  const Product p{k, alpha, beta, a, b, c};
  const unsigned threads = poplar::detail::ThreadPool::instance().size();
  if (!pooled || threads < 2 || double(m) * double(n) * double(k) < kThreadedWork)
    return columnRange(p, m, 0, n);
  // One contiguous range of columns per thread: the same part of b each call.
  const std::size_t chunks = (n + kChunkColumns - 1) / kChunkColumns;
  const std::size_t perThread = (chunks + threads - 1) / threads * kChunkColumns;
  poplar::detail::parallelBlocks(n, perThread, [&](std::size_t begin, std::size_t end, unsigned) {
    columnRange(p, m, begin, end);
  });
}

} // namespace poplin::detail
