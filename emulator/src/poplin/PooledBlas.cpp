#include "PooledBlas.hpp"

#include <algorithm>
#include <cstddef>

#include "poplar/ThreadPool.hpp"

namespace poplin::detail {

namespace {
// The multiply-adds of a product before cutting it over the pool pays.
constexpr double kPooledWork = 1 << 22;
// Ranges are multiples of OpenBLAS's widest register block, so cuts add no edge blocks.
constexpr int kRangeAlignment = 16;

// Set when libpoplin loads (after OpenBLAS, which it links, has started): every product
// the emulator runs is single-threaded OpenBLAS on one of the pool's threads.
const bool kSingleThreadedBlas = (scipy_openblas_set_num_threads(1), true);
} // namespace

void pooledSgemm(CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc) {
  const unsigned threads = poplar::detail::ThreadPool::instance().size();
  const bool cutRows = m >= n;
  const int length = cutRows ? m : n;
  const int perRange = (length / int(threads) + kRangeAlignment - 1) / kRangeAlignment * kRangeAlignment;
  if (threads < 2 || double(m) * n * k < kPooledWork || perRange >= length) {
    scipy_cblas_sgemm(CblasRowMajor, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  poplar::detail::parallelBlocks(std::size_t(length), std::size_t(perRange),
                                 [&](std::size_t begin, std::size_t end, unsigned) {
    const auto first = std::ptrdiff_t(begin);
    const int count = int(end - begin);
    if (cutRows) // rows of op(a) and c
      scipy_cblas_sgemm(CblasRowMajor, transA, transB, count, n, k, alpha,
                        a + (transA == CblasTrans ? first : first * lda), lda, b, ldb, beta,
                        c + first * ldc, ldc);
    else // columns of op(b) and c
      scipy_cblas_sgemm(CblasRowMajor, transA, transB, m, count, k, alpha, a, lda,
                        b + (transB == CblasTrans ? first * ldb : first), ldb, beta, c + first, ldc);
  });
}

} // namespace poplin::detail
