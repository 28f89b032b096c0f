#pragma once
// The emulator's OpenBLAS runs single-threaded (set when libpoplin loads), and its large
// products run on the emulator's thread pool instead: OpenBLAS's own threads spin for a while after every
// call, so on a machine with few cores they take the cores from the pool's threads
// (an LSTM's loop of products and element-wise maps ran ~1.5x the CPU time with them).
#include <cblas.h>

namespace poplin::detail {

// scipy_cblas_sgemm on row-major operands, cut into ranges of rows or of columns (of
// the larger dimension, so the smaller operand is the one each call packs again) over
// the pool when the product is large enough. The sums over k are never cut: OpenBLAS
// sums each element in the same order whichever rows and columns a call covers, so the
// bits do not depend on the thread count.
void pooledSgemm(CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);

} // namespace poplin::detail
