#pragma once
// Products with few rows, c = alpha * a x b + beta * c for a [m,k] with small m,
// computed with AVX-512 or AVX2 and FMA straight from b's rows: no packing, so the part of b
// each thread reads stays in its core's cache from one call to the next (an LSTM's
// weights, read at every step). BLAS packs b at every call, which costs more than
// the product when m is the batch of one step.
#include <cstddef>
#include <vector>

namespace poplin::detail {

// The rows the kernel takes (checked once), [least, most]: beyond `most` BLAS's packing
// may pay for itself, and with one row the kernel is a matrix-vector product, which
// sgemv may stream faster. Measured with benchmarks/gemm_shapes.py: on Zen3 (AVX2) BLAS
// won from 65 rows, and sgemv at one row (1.6x); on Zen5 the kernel in AVX2 tied
// OpenBLAS's Haswell kernels at 128 and 256 rows on 1 thread, and in AVX-512 it beat
// them at every size ([3200,256]x[256,1024] in 0.50x the time) and sgemv at one row
// (0.73-0.93x numpy's time against 1.04-1.16x at B=1), so in AVX-512 it takes any
// number, unless OpenBLAS runs AVX-512 kernels of its own (on Sapphire Rapids they ran
// [3200,512]^T x [3200,1024], an LSTM's weight update, at 190 GFLOP/s on 2 threads against
// the kernel's 85, and [3200,256]x[256,1024] at 216 against 147): then it stops at 256 rows.
// From 2 to 256 rows both instruction sets take the same products, and give the same bits.
struct FewRowsRange {
  std::size_t least, most;
};
FewRowsRange fewRowsRange();

// Whether the kernel takes products of `rows` rows on this CPU: supported, and `rows` within
// fewRowsRange().
bool fewRowsTake(std::size_t rows);

// Element (i, j) lies at data[i * rowStride + j * colStride].
struct StridedFloats {
  float *data = nullptr;
  std::ptrdiff_t rowStride = 0, colStride = 1;
};

// Whether this CPU has AVX2 and FMA (checked once). The kernel then uses AVX-512 where
// the CPU has avx512f, unless the environment has POPDSL_FEW_ROWS_ISA=avx2 (read once;
// for comparing the two, which give the same bits).
bool fewRowsGemmSupported();


// Columns [first, first + width) of a matrix, stored apart from its other columns, with
// unit column stride: element (i, j) of the panel at floats.data[i * floats.rowStride + j].
struct ColumnPanel {
  std::size_t first, width;
  StridedFloats floats;
};

// Whether the kernel takes (fewRowsTake) a product of m rows and k steps whose b is stored transposed
// (unit row stride: b^T row-major, as x W^T has it). Each thread transposes the panels of b
// it reads into a copy: for 7 rows or more, the copy of kDepth steps its row blocks read
// anyway; for fewer, a copy of all k steps (so only up to kTransposedMostSteps of them, 4 MB
// in AVX-512), which its one row block reads. One row is sgemv's (a dot product per column,
// in place).
constexpr std::size_t kTransposedMostSteps = 16384;
bool fewRowsTakesTransposedB(std::size_t m, std::size_t k);

// c = alpha * a x b + beta * c, a [m,k] with k >= 1 (the caller handles empty sums), b [k,n]
// as column panels side by side (in order, covering its n columns; one panel where b is one
// strided matrix, which may be stored transposed where fewRowsTakesTransposedB), c [m,n]; c is
// not read when beta is 0. Requires fewRowsGemmSupported()
// and m within fewRowsRange(). When `pooled`, the columns (or, when they are too few, the
// rows) are shared out over the thread pool; every element is one chain of fused
// multiply-adds over k in order, then alpha and beta applied, so its bits depend neither
// on the thread count nor on the shape of the blocks or panels nor on the instruction set.
void fewRowsGemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const StridedFloats &a,
                 const std::vector<ColumnPanel> &b, float beta, const StridedFloats &c, bool pooled);

} // namespace poplin::detail
