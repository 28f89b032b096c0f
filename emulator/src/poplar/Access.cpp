#include "Access.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

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

void copyElements(const Access &src, const Access &dst) {
  if (src.contiguous() && dst.contiguous()) {
    std::memmove(dst.data(), src.data(), src.numElements * src.elemSize);
    return;
  }
  if (src.sharesVariableWith(dst)) {
    std::vector<std::uint8_t> buffer(src.numElements * src.elemSize);
    src.gather(buffer.data());
    dst.scatter(buffer.data());
    return;
  }
  // Walk both segment lists in step, copying the overlap of the current pair.
  std::size_t i = 0, j = 0, doneI = 0, doneJ = 0;
  while (i < src.segments.size() && j < dst.segments.size()) {
    const Segment &s = src.segments[i], &d = dst.segments[j];
    const std::size_t n = std::min(s.count - doneI, d.count - doneJ);
    copyRun(d.base + static_cast<std::ptrdiff_t>(doneJ) * d.stride, d.stride,
            s.base + static_cast<std::ptrdiff_t>(doneI) * s.stride, s.stride, n, src.elemSize);
    doneI += n, doneJ += n;
    if (doneI == s.count) ++i, doneI = 0;
    if (doneJ == d.count) ++j, doneJ = 0;
  }
}

} // namespace poplar::detail
