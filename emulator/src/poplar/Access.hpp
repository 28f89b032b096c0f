#pragma once
// How a compiled program reaches a tensor's elements in engine memory: a list of
// strided byte segments in the tensor's flat order, resolved once at compile time.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <poplar/Type.hpp>

namespace poplar::detail {

struct Segment {
  std::uint8_t *base;
  std::size_t count;
  std::ptrdiff_t stride; // bytes between consecutive elements
};

struct Access {
  Type type;
  unsigned elemSize = 0;
  std::size_t numElements = 0;
  std::vector<Segment> segments;
  std::vector<unsigned> vars; // variables touched, sorted, unique

  bool contiguous() const {
    return segments.size() == 1 &&
           (segments[0].count == 1 || segments[0].stride == static_cast<std::ptrdiff_t>(elemSize));
  }
  // The first element; the whole tensor when contiguous().
  std::uint8_t *data() const { return segments.empty() ? nullptr : segments[0].base; }
  bool sharesVariableWith(const Access &other) const;
  // Copies the elements to/from a dense buffer of numElements * elemSize bytes.
  void gather(void *dst) const;
  void scatter(const void *src) const;
};

// Copies n elements of elemSize bytes, each side stepping by its stride in bytes
// (a stride of 0 repeats one element); a memmove when both sides are dense.
void copyRun(std::uint8_t *dst, std::ptrdiff_t dstStride, const std::uint8_t *src,
             std::ptrdiff_t srcStride, std::size_t n, unsigned elemSize);

// Copies elements between accesses of the same size, as if through a buffer when
// they share a variable (so overlapping views copy like Poplar's Copy).
void copyElements(const Access &src, const Access &dst);

// The bytes of a copy between these accesses that is one memmove (both dense, too
// few elements to split over threads), or 0 when copyElements has to walk them.
std::size_t denseCopyBytes(const Access &src, const Access &dst);

} // namespace poplar::detail
