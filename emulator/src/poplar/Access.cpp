#include "Access.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "ThreadPool.hpp"
#include "TransposeBlock.hpp"

namespace poplar::detail {

namespace {

template <class T>
void stridedCopy(std::uint8_t *dst, std::ptrdiff_t dstStride, const std::uint8_t *src,
                 std::ptrdiff_t srcStride, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, src, sizeof(T));
    std::memcpy(dst, &v, sizeof(T));
    src += srcStride;
    dst += dstStride;
  }
}

} // namespace

void copyRun(std::uint8_t *dst, std::ptrdiff_t dstStride, const std::uint8_t *src,
             std::ptrdiff_t srcStride, std::size_t n, unsigned elemSize) {
  const auto size = static_cast<std::ptrdiff_t>(elemSize);
  if ((dstStride == size || n == 1) && (srcStride == size || n == 1)) {
    std::memmove(dst, src, n * elemSize);
    return;
  }
  switch (elemSize) {
  case 1: stridedCopy<std::uint8_t>(dst, dstStride, src, srcStride, n); return;
  case 2: stridedCopy<std::uint16_t>(dst, dstStride, src, srcStride, n); return;
  case 4: stridedCopy<std::uint32_t>(dst, dstStride, src, srcStride, n); return;
  case 8: stridedCopy<std::uint64_t>(dst, dstStride, src, srcStride, n); return;
  default:
    for (std::size_t i = 0; i < n; ++i)
      std::memcpy(dst + static_cast<std::ptrdiff_t>(i) * dstStride,
                  src + static_cast<std::ptrdiff_t>(i) * srcStride, elemSize);
  }
}

bool Access::sharesVariableWith(const Access &other) const {
  std::size_t i = 0, j = 0;
  while (i < vars.size() && j < other.vars.size()) {
    if (vars[i] == other.vars[j]) return true;
    if (vars[i] < other.vars[j]) ++i;
    else ++j;
  }
  return false;
}

void Access::gather(void *dst) const {
  auto *out = static_cast<std::uint8_t *>(dst);
  for (const Segment &s : segments) {
    copyRun(out, elemSize, s.base, s.stride, s.count, elemSize);
    out += s.count * elemSize;
  }
}

void Access::scatter(const void *src) const {
  const auto *in = static_cast<const std::uint8_t *>(src);
  for (const Segment &s : segments) {
    copyRun(s.base, s.stride, in, elemSize, s.count, elemSize);
    in += s.count * elemSize;
  }
}

namespace {

// Where a copy between two accesses stands: the current segment of each side and
// the elements of it already copied.
struct CopyPosition {
  std::size_t srcSegment = 0, srcDone = 0, dstSegment = 0, dstDone = 0;
};

// Copies (or, with copy false, only steps over) the next n elements, walking both
// segment lists in step.
template <bool copy> void walkPair(const Access &src, const Access &dst, CopyPosition &at, std::size_t n) {
  while (n) {
    const Segment &s = src.segments[at.srcSegment], &d = dst.segments[at.dstSegment];
    const std::size_t k = std::min({n, s.count - at.srcDone, d.count - at.dstDone});
    if (copy)
      copyRun(d.base + static_cast<std::ptrdiff_t>(at.dstDone) * d.stride, d.stride,
              s.base + static_cast<std::ptrdiff_t>(at.srcDone) * s.stride, s.stride, k, src.elemSize);
    at.srcDone += k, at.dstDone += k, n -= k;
    if (at.srcDone == s.count) ++at.srcSegment, at.srcDone = 0;
    if (at.dstDone == d.count) ++at.dstSegment, at.dstDone = 0;
  }
}

// Elements per block of a copy on the thread pool; copies of two blocks or more are split.
// A copy reading memory that is not in cache waits on it, and two cores wait in parallel:
// an LSTM's 128 KB step slice out of a 13 MB buffer took 10.6-11.4 us in two blocks of
// 16384 floats against 13-19 us in one memmove (Zen3, in one process).
constexpr std::size_t kCopyBlock = 16384;

// One side of a copy as rows of equally strided elements: one segment a row, or one
// contiguous run cut into rows.
struct Grid {
  const Segment *rows; // null when contiguous
  std::uint8_t *base;  // when contiguous: row i starts at base + i * rowBytes
  std::ptrdiff_t rowBytes, colStride;

  std::uint8_t *row(std::size_t i) const { return rows ? rows[i].base : base + std::ptrdiff_t(i) * rowBytes; }
};

// `a` as `rows` rows of `cols` elements; nothing when its segments are not such rows.
std::optional<Grid> asGrid(const Access &a, std::size_t rows, std::size_t cols) {
  const auto elemSize = std::ptrdiff_t(a.elemSize);
  if (a.contiguous()) return Grid{nullptr, a.data(), std::ptrdiff_t(cols) * elemSize, elemSize};
  const std::vector<Segment> &s = a.segments;
  if (s.size() != rows) return std::nullopt;
  for (const Segment &row : s)
    if (row.count != cols || row.stride != s[0].stride) return std::nullopt;
  return Grid{s.data(), nullptr, 0, s[0].stride};
}

// Rows [rowBegin, rowEnd) of a grid copy in tiles of kTile x kTile elements. Along a row,
// one side steps across memory (a transpose); a tile touches kTile cache lines of each
// side and uses each line kTile times, where a row at a time would fetch a line for
// every element of that side.
constexpr std::size_t kTile = 16;

// The first of rows [i, i + 8) of `g` when the 8 lie `size` bytes apart, a column of 8
// elements together; else null.
std::uint8_t *columnOfEight(const Grid &g, std::size_t i, std::size_t size) {
  std::uint8_t *first = g.row(i);
  for (std::size_t k = 1; k < 8; ++k)
    if (g.row(i + k) != first + size * k) return nullptr;
  return first;
}

// Rows [i, i + 8), columns [j0, j1) of a grid copy in 8x8 blocks transposed in registers
// (TransposeBlock.hpp), where one side holds the rows' elements contiguously and the other
// holds the 8 rows as columns; false, copying nothing, elsewhere.
template <class T>
bool copyEightRows(const Grid &dst, const Grid &src, std::size_t i, std::size_t j0, std::size_t j1) {
  constexpr std::ptrdiff_t size = sizeof(T);
  if (!transposeBlocksSupported(size)) return false;
  // A scatter (src's rows contiguous, dst's 8 rows a column) or a gather (the reverse).
  std::uint8_t *dstColumn = src.colStride == size ? columnOfEight(dst, i, size) : nullptr;
  const std::uint8_t *srcColumn = dst.colStride == size ? columnOfEight(src, i, size) : nullptr;
  if (!dstColumn && !srcColumn) return false;
  const Grid &rowSide = dstColumn ? src : dst; // the side holding the 8 rows' elements contiguously
  std::size_t j = j0;
  for (; j + 8 <= j1; j += 8) {
    std::uint8_t *rows[8];
    for (std::size_t k = 0; k < 8; ++k) rows[k] = rowSide.row(i + k) + std::ptrdiff_t(j) * size;
    if (dstColumn)
      rowsToColumns(size, rows, dstColumn + std::ptrdiff_t(j) * dst.colStride, dst.colStride);
    else
      columnsToRows(size, srcColumn + std::ptrdiff_t(j) * src.colStride, src.colStride, rows);
  }
  for (std::size_t k = 0; k < 8 && j < j1; ++k)
    stridedCopy<T>(dst.row(i + k) + std::ptrdiff_t(j) * dst.colStride, dst.colStride,
                   src.row(i + k) + std::ptrdiff_t(j) * src.colStride, src.colStride, j1 - j);
  return true;
}

template <class T>
void copyTiles(const Grid &dst, const Grid &src, std::size_t rowBegin, std::size_t rowEnd, std::size_t cols) {
  for (std::size_t i0 = rowBegin; i0 < rowEnd; i0 += kTile)
    for (std::size_t j0 = 0; j0 < cols; j0 += kTile) {
      const std::size_t i1 = std::min(rowEnd, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      std::size_t i = i0;
      while (i + 8 <= i1 && copyEightRows<T>(dst, src, i, j0, j1)) i += 8;
      for (; i < i1; ++i)
        stridedCopy<T>(dst.row(i) + std::ptrdiff_t(j0) * dst.colStride, dst.colStride,
                       src.row(i) + std::ptrdiff_t(j0) * src.colStride, src.colStride, j1 - j0);
    }
}

// A copy between accesses that are both grids of the same rows, one of them strided along
// its rows, in tiles (over the pool when large); false when the copy is not one.
bool copyGrid(const Access &src, const Access &dst) {
  const bool tileable = src.elemSize == 1 || src.elemSize == 2 || src.elemSize == 4 || src.elemSize == 8;
  const Access &rowsFrom = src.contiguous() ? dst : src; // the side whose segments are the rows
  if (!tileable || rowsFrom.segments.size() < kTile) return false;
  const std::size_t rows = rowsFrom.segments.size(), cols = rowsFrom.segments[0].count;
  const std::optional<Grid> from = asGrid(src, rows, cols), to = asGrid(dst, rows, cols);
  const auto elemSize = std::ptrdiff_t(src.elemSize);
  if (!from || !to || (from->colStride == elemSize && to->colStride == elemSize)) return false;
  const auto run = [&](std::size_t begin, std::size_t end) {
    switch (src.elemSize) {
    case 1: return copyTiles<std::uint8_t>(*to, *from, begin, end, cols);
    case 2: return copyTiles<std::uint16_t>(*to, *from, begin, end, cols);
    case 4: return copyTiles<std::uint32_t>(*to, *from, begin, end, cols);
    default: return copyTiles<std::uint64_t>(*to, *from, begin, end, cols);
    }
  };
  const std::size_t rowsPerBlock = (std::max<std::size_t>(1, kCopyBlock / cols) + kTile - 1) / kTile * kTile;
  parallelBlocks(rows, rowsPerBlock, [&](std::size_t begin, std::size_t end, unsigned) { run(begin, end); });
  return true;
}

} // namespace

std::size_t denseCopyBytes(const Access &src, const Access &dst) {
  const bool dense = src.contiguous() && dst.contiguous() && src.numElements < 2 * kCopyBlock;
  return dense ? src.numElements * src.elemSize : 0;
}

void copyElements(const Access &src, const Access &dst) {
  const std::size_t n = src.numElements;
  const bool contiguous = src.contiguous() && dst.contiguous();
  // Overlapping accesses copy as if through a buffer: every element is read before any is written.
  const bool overlapping = (!contiguous || n >= 2 * kCopyBlock) && src.sharesVariableWith(dst);
  if (contiguous && (overlapping || n < 2 * kCopyBlock)) {
    std::memmove(dst.data(), src.data(), n * src.elemSize);
    return;
  }
  if (overlapping) {
    std::vector<std::uint8_t> buffer(n * src.elemSize);
    src.gather(buffer.data());
    dst.scatter(buffer.data());
    return;
  }
  if (copyGrid(src, dst)) return;
  if (n < 2 * kCopyBlock) {
    CopyPosition at;
    walkPair<true>(src, dst, at, n);
    return;
  }
  // Where each block starts, found in one pass over the segments.
  std::vector<CopyPosition> starts;
  CopyPosition at;
  for (std::size_t begin = 0; begin < n; begin += kCopyBlock) {
    starts.push_back(at);
    walkPair<false>(src, dst, at, std::min(kCopyBlock, n - begin));
  }
  parallelBlocks(n, kCopyBlock, [&](std::size_t begin, std::size_t end, unsigned) {
    CopyPosition block = starts[begin / kCopyBlock];
    walkPair<true>(src, dst, block, end - begin);
  });
}

} // namespace poplar::detail
