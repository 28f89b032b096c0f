#include "FewRowsGemm.hpp"

#include <immintrin.h>

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <vector>

#include "poplar/ThreadPool.hpp"
#include "poplar/TransposeBlock.hpp"

namespace poplin::detail {

namespace {

// The multiply-adds of a product before waking the pool's threads pays (measured on Zen5
// in AVX-512 with benchmarks/gemm_shapes.py's shapes cut down: 2 threads lost below
// [16,64]x[64,128], tied at [32,64]x[64,128], won from [32,128]x[128,128]).
constexpr double kThreadedWork = 1 << 18;

struct Product {
  std::size_t k;
  float alpha, beta;
  StridedFloats a, b, c;
};

// Where a block reads its columns of b: from b itself (rowStride apart), copying
// them to `copy` (a row of the block's width at a time) on the way when that is not null.
struct Panel {
  const float *data;
  std::ptrdiff_t rowStride;
  float *copy;
};

} // namespace

// The kernel's body (FewRowsGemmBody.inc) once per instruction set, in its namespace.
namespace avx2 {
namespace {
#define FEW_ROWS_TARGET __attribute__((target("avx2,fma")))
struct Isa {
  using Vec = __m256;
  using Mask = __m256i; // lanes with all bits set are loaded and stored
  static constexpr std::size_t kLanes = 8;
  // 16 registers: blocks of up to 6 rows x 2 vectors (12 sums, 2 of b, 1 of a).
  static constexpr std::size_t kBlockRows = 6;
  static constexpr int kPanelVectors = 2;
  static constexpr int vectors(int rows) { return rows == 1 ? 8 : rows <= 3 ? 4 : 2; }
  static constexpr int kStreamVectors = 8; // one row over back-to-back rows too: 16 registers
  // Column ranges given to threads are multiples of the widest block.
  static constexpr std::size_t kChunkColumns = 64;

  FEW_ROWS_TARGET static Mask firstLanes(std::ptrdiff_t count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(count)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  FEW_ROWS_TARGET static Vec zero() { return _mm256_setzero_ps(); }
  FEW_ROWS_TARGET static Vec set1(float x) { return _mm256_set1_ps(x); }
  FEW_ROWS_TARGET static Vec broadcast(const float *p) { return _mm256_broadcast_ss(p); }
  FEW_ROWS_TARGET static Vec load(const float *p) { return _mm256_loadu_ps(p); }
  FEW_ROWS_TARGET static Vec load(const float *p, Mask m) { return _mm256_maskload_ps(p, m); }
  FEW_ROWS_TARGET static void store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
  FEW_ROWS_TARGET static void store(float *p, Mask m, Vec v) { _mm256_maskstore_ps(p, m, v); }
  FEW_ROWS_TARGET static Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  FEW_ROWS_TARGET static Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  // Column r of the 8 x 8 tile of rows `from` (fromStride apart) to row r of `to` (toStride apart).
  static void transposeTile(const float *from, std::ptrdiff_t fromStride, float *to, std::ptrdiff_t toStride) {
    std::uint8_t *rows[8];
    for (int r = 0; r < 8; ++r) rows[r] = reinterpret_cast<std::uint8_t *>(to + r * toStride);
    poplar::detail::columnsToRows(sizeof(float), reinterpret_cast<const std::uint8_t *>(from),
                                  fromStride * std::ptrdiff_t(sizeof(float)), rows);
  }
};
#include "FewRowsGemmBody.inc"
#undef FEW_ROWS_TARGET
} // namespace
} // namespace avx2

namespace avx512 {
namespace {
#define FEW_ROWS_TARGET __attribute__((target("avx512f,avx2,fma")))
struct Isa {
  using Vec = __m512;
  using Mask = __mmask16; // a bit per lane
  static constexpr std::size_t kLanes = 16;
  // 32 registers: blocks of up to 6 rows x 4 vectors (24 sums, 4 of b, 1 of a).
  static constexpr std::size_t kBlockRows = 6;
  static constexpr int kPanelVectors = 4;
  static constexpr int vectors(int rows) { return rows == 1 ? 8 : 4; }
  // One row over a panel of b whose rows lie back to back (a row of at most this many
  // vectors): one block of 16 vectors reads b as one stream, where blocks of 8 over rows
  // further apart read the parts between them too (Zen5, [1,256]x[256,1024] on two threads:
  // 4.2 us over rows 4160 bytes apart, 2.5 us in panels of 256 columns; blocks of 16 over
  // rows 4 KB apart took 5.4 us against 8's 4.8).
  static constexpr int kStreamVectors = 16;
  static constexpr std::size_t kChunkColumns = 64;

  FEW_ROWS_TARGET static Mask firstLanes(std::ptrdiff_t count) {
    return Mask(count >= std::ptrdiff_t(kLanes) ? 0xffffu : count <= 0 ? 0u : (1u << count) - 1);
  }
  FEW_ROWS_TARGET static Vec zero() { return _mm512_setzero_ps(); }
  FEW_ROWS_TARGET static Vec set1(float x) { return _mm512_set1_ps(x); }
  FEW_ROWS_TARGET static Vec broadcast(const float *p) { return _mm512_set1_ps(*p); }
  FEW_ROWS_TARGET static Vec load(const float *p) { return _mm512_loadu_ps(p); }
  FEW_ROWS_TARGET static Vec load(const float *p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  FEW_ROWS_TARGET static void store(float *p, Vec v) { _mm512_storeu_ps(p, v); }
  FEW_ROWS_TARGET static void store(float *p, Mask m, Vec v) { _mm512_mask_storeu_ps(p, m, v); }
  FEW_ROWS_TARGET static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  FEW_ROWS_TARGET static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  // Column r of the 16 x 16 tile of rows `from` (fromStride apart) to row r of `to` (toStride
  // apart). The shuffles are the masked forms with every lane set: the plain ones pass GCC 12's
  // _mm512_undefined_ps, which -Wuninitialized reports.
  FEW_ROWS_TARGET static void transposeTile(const float *from, std::ptrdiff_t fromStride, float *to,
                                            std::ptrdiff_t toStride) {
    constexpr __mmask16 all = 0xffff;
    __m512 rows[16], pairs[16], quads[16];
    for (int r = 0; r < 16; ++r) rows[r] = _mm512_loadu_ps(from + r * fromStride);
    for (int r = 0; r < 16; r += 2) { // pairs of rows interleaved, within each 128-bit lane
      pairs[r] = _mm512_mask_unpacklo_ps(rows[r], all, rows[r], rows[r + 1]);
      pairs[r + 1] = _mm512_mask_unpackhi_ps(rows[r], all, rows[r], rows[r + 1]);
    }
    // quads[4q + c]: in lane L, column 4L + c of rows 4q to 4q + 3
    for (int r = 0; r < 16; r += 4) {
      quads[r] = _mm512_mask_shuffle_ps(pairs[r], all, pairs[r], pairs[r + 2], 0x44);
      quads[r + 1] = _mm512_mask_shuffle_ps(pairs[r], all, pairs[r], pairs[r + 2], 0xee);
      quads[r + 2] = _mm512_mask_shuffle_ps(pairs[r], all, pairs[r + 1], pairs[r + 3], 0x44);
      quads[r + 3] = _mm512_mask_shuffle_ps(pairs[r], all, pairs[r + 1], pairs[r + 3], 0xee);
    }
    for (int c = 0; c < 4; ++c) { // column 4L + c gathers lane L of quads c, 4 + c, 8 + c, 12 + c
      const __m512 evenLow = lanes<0x88>(quads[c], quads[4 + c]), oddLow = lanes<0xdd>(quads[c], quads[4 + c]);
      const __m512 evenHigh = lanes<0x88>(quads[8 + c], quads[12 + c]);
      const __m512 oddHigh = lanes<0xdd>(quads[8 + c], quads[12 + c]);
      _mm512_storeu_ps(to + c * toStride, lanes<0x88>(evenLow, evenHigh));
      _mm512_storeu_ps(to + (4 + c) * toStride, lanes<0x88>(oddLow, oddHigh));
      _mm512_storeu_ps(to + (8 + c) * toStride, lanes<0xdd>(evenLow, evenHigh));
      _mm512_storeu_ps(to + (12 + c) * toStride, lanes<0xdd>(oddLow, oddHigh));
    }
  }
  // Two 128-bit lanes of `low` then two of `high`, as `select` picks them.
  template <int select> FEW_ROWS_TARGET static __m512 lanes(__m512 low, __m512 high) {
    return _mm512_mask_shuffle_f32x4(low, 0xffff, low, high, select);
  }
};
#include "FewRowsGemmBody.inc"
#undef FEW_ROWS_TARGET
} // namespace
} // namespace avx512

namespace {

enum class Simd { none, avx2, avx512 };

// The widest instruction set the kernel has a body for and this CPU runs, checked
// once; POPDSL_FEW_ROWS_ISA=avx2 keeps it to AVX2 (to compare the two).
Simd simd() {
  static const Simd chosen = [] {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return Simd::none;
    const char *limit = std::getenv("POPDSL_FEW_ROWS_ISA");
    if (limit && std::string_view(limit) == "avx2") return Simd::avx2;
    return __builtin_cpu_supports("avx512f") ? Simd::avx512 : Simd::avx2;
  }();
  return chosen;
}

// Columns [begin, end) of the product, panel by panel of b: each part the product of a and
// the panel, into the panel's columns of c.
template <class ColumnRange>
void panelRange(const Product &p, const std::vector<ColumnPanel> &panels, std::size_t m, std::size_t begin,
                std::size_t end, ColumnRange columnRange) {
  for (const ColumnPanel &panel : panels) {
    const std::size_t from = std::max(begin, panel.first), to = std::min(end, panel.first + panel.width);
    if (from >= to) continue;
    Product part = p;
    part.b = panel.floats;
    part.c.data += std::ptrdiff_t(panel.first) * p.c.colStride;
    columnRange(part, m, from - panel.first, to - panel.first);
  }
}

// The kernel over the pool, in one instruction set's body: its columns cut into chunks of
// chunkColumns, or where there are too few for every thread, its rows into multiples of rowGrain.
template <class PanelColumnRange>
void run(const Product &p, const std::vector<ColumnPanel> &panels, std::size_t m, std::size_t n, bool pooled,
         std::size_t chunkColumns, std::size_t rowGrain, PanelColumnRange panelColumnRange) {
  const auto columnRange = [&](const Product &rows, std::size_t rowCount, std::size_t begin, std::size_t end) {
    panelRange(rows, panels, rowCount, begin, end, panelColumnRange);
  };
  const unsigned threads = poplar::detail::ThreadPool::instance().size();
  if (!pooled || threads < 2 || double(m) * double(n) * double(p.k) < kThreadedWork)
    return columnRange(p, m, 0, n);
  // One contiguous range of columns per thread: the same part of b each call. (A thread's
  // share of rows may be few, whose copy of a transposed b holds every step: only so many.)
  const std::size_t chunks = (n + chunkColumns - 1) / chunkColumns;
  const bool transposedB = panels.front().floats.colStride != 1;
  if (chunks >= threads || m < 2 * rowGrain || (transposedB && p.k > kTransposedMostSteps)) {
    const std::size_t perThread = (chunks + threads - 1) / threads * chunkColumns;
    return poplar::detail::parallelBlocks(n, perThread, [&](std::size_t begin, std::size_t end, unsigned) {
      columnRange(p, m, begin, end);
    });
  }
  // Too few columns to go round: a contiguous range of rows per thread instead.
  const std::size_t rowsPerThread = ((m + threads - 1) / threads + rowGrain - 1) / rowGrain * rowGrain;
  poplar::detail::parallelBlocks(m, rowsPerThread, [&](std::size_t begin, std::size_t end, unsigned) {
    Product rows = p;
    rows.a.data += std::ptrdiff_t(begin) * p.a.rowStride;
    rows.c.data += std::ptrdiff_t(begin) * p.c.rowStride;
    columnRange(rows, end - begin, 0, n);
  });
}

} // namespace

bool fewRowsGemmSupported() { return simd() != Simd::none; }

// Whether OpenBLAS runs AVX-512 kernels of its own on this CPU (its SkylakeX, Cooperlake
// and SapphireRapids cores), which pack both operands and cut the sum into cached blocks.
bool blasRunsAvx512() {
  static const bool avx512 = [] {
    const std::string_view core = scipy_openblas_get_corename();
    return core == "SkylakeX" || core == "Cooperlake" || core == "SapphireRapids";
  }();
  return avx512;
}

bool fewRowsTakesTransposedB(std::size_t m, std::size_t k) {
  static_assert(avx512::kBlockRows == avx2::kBlockRows, "both bodies copy all the steps for the same rows");
  return fewRowsTake(m) && m >= 2 && (m > avx512::kBlockRows || k <= kTransposedMostSteps);
}

FewRowsRange fewRowsRange() {
  constexpr std::size_t kMostRows = 256;
  if (simd() == Simd::avx512) return {1, blasRunsAvx512() ? kMostRows : std::numeric_limits<std::size_t>::max()};
  return {2, kMostRows};
}

bool fewRowsTake(std::size_t rows) {
  if (!fewRowsGemmSupported()) return false;
  const auto [least, most] = fewRowsRange();
  return least <= rows && rows <= most;
}

void fewRowsGemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const StridedFloats &a,
                 const std::vector<ColumnPanel> &b, float beta, const StridedFloats &c, bool pooled) {
  const Product p{k, alpha, beta, a, {}, c};
  if (simd() == Simd::avx512)
    run(p, b, m, n, pooled, avx512::Isa::kChunkColumns, avx512::Isa::kBlockRows, avx512::columnRange);
  else
    run(p, b, m, n, pooled, avx2::Isa::kChunkColumns, avx2::Isa::kBlockRows, avx2::columnRange);
}

} // namespace poplin::detail
