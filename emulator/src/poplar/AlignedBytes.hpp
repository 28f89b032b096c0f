#pragma once
// Heap blocks aligned for vector loads and stores (std::aligned_alloc, freed with std::free).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace poplar::detail {

struct FreeDeleter {
  void operator()(std::uint8_t *p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<std::uint8_t[], FreeDeleter>;

// At least `bytes` bytes (and at least one alignment's worth) at a multiple of `align`, a power
// of two; std::bad_alloc when the memory is not there.
inline AlignedBytes alignedBytes(std::size_t bytes, std::size_t align = 64) {
  const std::size_t size = std::max((bytes + align - 1) / align * align, align);
  auto *p = static_cast<std::uint8_t *>(std::aligned_alloc(align, size));
  if (!p) throw std::bad_alloc();
  return AlignedBytes(p);
}

} // namespace poplar::detail
